/**
 * `grant_type=password`: a user's login and password. Wrong credentials are 400 invalid_grant
 * "Bad credentials" whether the user exists or not (`verifyPassword` costs an unknown user one
 * comparison too, so the timing is alike).
 *
 * Reference bug fixed: the reference checked activation before the password, so a wrong
 * password told whether an account was deactivated; here the password is checked first.
 */
import { verifyPassword } from '../../security/passwords.js';
import { InvalidGrant, Unauthorized } from '../errors.js';
import { audit, clientScope, findUserByLogin, narrowScopes, parseScope, recordNewChain, SCOPE_PARAMETER, tokenUserOf } from './shared.js';
import type { Grant } from './types.js';

export const grantType = 'password';
export const parameters = { username: 'the user\'s login', password: 'the user\'s password', scope: SCOPE_PARAMETER };

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  const requested = clientScope(client, parseScope(params.scope));
  const login = (params.username ?? '').toLowerCase();
  const password = params.password ?? '';
  const user = login ? await findUserByLogin(deps.db, login) : undefined;
  const ok = await verifyPassword(password, user?.passwordHash);
  if (!user || !ok) throw new InvalidGrant('Bad credentials');
  if (!user.activated) throw new Unauthorized(`User ${user.login} was not activated`);

  const tokenUser = await tokenUserOf(deps.db, user);
  const scope = narrowScopes(requested, tokenUser.authorities);
  const issued = await deps.issuer.issue({
    client, grantType, scope, user: tokenUser, withRefreshToken: client.authorizedGrantTypes.includes('refresh_token'),
  });
  await recordNewChain(deps, issued, client, user.login);
  audit(deps, issued, user.login);
  return issued.body;
};
