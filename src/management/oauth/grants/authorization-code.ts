/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): exchanges a code from
 * `/oauth/authorize` for the user's tokens, with the user's current roles, sources and narrowed
 * scopes. Errors as the reference (managementportal.md §3.2): a missing code is invalid_request
 * "An authorization code must be supplied.", a bad one invalid_grant "Invalid authorization code",
 * a different redirect URI invalid_grant "Redirect URI mismatch.".
 *
 * Deviations from the reference: codes are consumed atomically and a replayed code revokes the
 * refresh-token chain it started (RFC 6749 §4.1.2); PKCE S256 is verified when the authorization
 * request carried a challenge, and a verifier without a challenge is refused (downgrade).
 */
import { InvalidGrant, InvalidRequest, Unauthorized } from '../errors.js';
import { consumeCode } from '../authorize/codes.js';
import { setCodeFamily } from '../authorize/queries.js';
import { verifyS256 } from '../authorize/pkce.js';
import { revokeFamily } from '../queries.js';
import { audit, findUserByLogin, narrowScopes, recordNewChain, tokenUserOf } from './shared.js';
import type { Grant } from './types.js';

export const grantType = 'authorization_code';
export const parameters = {
  code: 'the code the redirect carried',
  redirect_uri: 'repeated when the authorization request named it',
  code_verifier: 'the PKCE verifier (RFC 7636) when the request had a code_challenge',
};

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  const code = params.code;
  if (!code) throw new InvalidRequest('An authorization code must be supplied.');
  const now = new Date(deps.now());
  const result = await consumeCode(deps.db, code, now);
  if (result.outcome === 'unknown') throw new InvalidGrant('Invalid authorization code');
  if (result.outcome === 'used') {
    if (result.row.familyId && result.row.clientId === client.clientId) await revokeFamily(deps.db, result.row.familyId, now);
    throw new InvalidGrant('Invalid authorization code');
  }
  const row = result.row;
  if (row.expiresAt.getTime() <= now.getTime() || row.clientId !== client.clientId) throw new InvalidGrant('Invalid authorization code');
  if (row.redirectUriGiven ? params.redirect_uri !== row.redirectUri : params.redirect_uri !== undefined && params.redirect_uri !== row.redirectUri) {
    throw new InvalidGrant('Redirect URI mismatch.');
  }
  const verifier = params.code_verifier;
  if (row.codeChallenge) {
    if (!verifier) throw new InvalidGrant('PKCE verification failed: code_verifier missing');
    if (!verifyS256(row.codeChallenge, verifier)) throw new InvalidGrant('PKCE verification failed');
  } else if (verifier !== undefined) {
    throw new InvalidGrant('PKCE verification failed: no code_challenge was sent');
  }

  const user = await findUserByLogin(deps.db, row.userLogin);
  if (!user) throw new Unauthorized(`User ${row.userLogin} was not found in the database`);
  if (!user.activated) throw new Unauthorized(`User ${user.login} was not activated`);
  const tokenUser = await tokenUserOf(deps.db, user);
  const scope = narrowScopes(row.scope, tokenUser.authorities);
  const issued = await deps.issuer.issue({
    client, grantType, scope, user: tokenUser, withRefreshToken: client.authorizedGrantTypes.includes('refresh_token'),
  });
  await recordNewChain(deps, issued, client, user.login);
  if (issued.refresh) await setCodeFamily(deps.db, row.codeHash, issued.refresh.jti);
  audit(deps, issued, user.login);
  return issued.body;
};
