/**
 * `grant_type=refresh_token`: a refresh token is valid once. The new pair carries the user's
 * current roles, sources and (narrowed) scopes; the chain keeps its first grant type, as the
 * reference does (managementportal.md §3.3).
 *
 * Reference bug fixed: the reference never invalidated a used refresh token. Here it is consumed
 * atomically (refresh-tokens.ts `rotate`); presenting a used one is `invalid_grant` and revokes
 * its whole chain, unless it is a repeat within MANAGEMENTPORTAL_OAUTH_REFRESH_REUSE_GRACE_SECONDS.
 *
 * The hot path is one round trip: `rotate` consumes the token, records its successor (whose `jti`
 * and expiry are chosen before signing) and loads the user's claims in one statement; the two
 * tokens are signed after it.
 */
import { InvalidGrant, InvalidRequest, InvalidScope, InvalidToken, Unauthorized } from '../errors.js';
import { rotate } from '../refresh-tokens.js';
import { newJti, refuseClientTwin, refreshValidity, type TokenUser } from '../token-issuer.js';
import { audit, claimsOf, narrowScopes, parseScope, SCOPE_PARAMETER } from './shared.js';
import type { Grant } from './types.js';

export const grantType = 'refresh_token';
export const parameters = { refresh_token: 'the refresh token', scope: SCOPE_PARAMETER };

const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  const token = params.refresh_token;
  if (!token) throw new InvalidRequest('refresh_token parameter not provided');
  const nowMs = deps.now();
  const iat = Math.floor(nowMs / 1000);
  const claims = await deps.verifier.verify(token, iat);
  if (typeof claims.ati !== 'string' || typeof claims.jti !== 'string') throw new InvalidToken('Encoded token is not a refresh token');
  if (claims.client_id !== client.clientId) throw new InvalidGrant('Wrong client for this refresh token');

  const original = stringList(claims.scope);
  const requested = parseScope(params.scope);
  if (requested && requested.some((s) => !original.includes(s))) {
    throw new InvalidScope('Unable to narrow the scope of the client authentication', { scope: original.join(' ') });
  }

  const login = typeof claims.user_name === 'string' ? claims.user_name : null;
  // The issuer refuses it too; checked before `rotate` so the refused token is not consumed.
  if (login !== null) refuseClientTwin(client, login);
  const refreshJti = newJti();
  const result = await rotate(deps.db, claims.jti, {
    jti: refreshJti, clientId: client.clientId, userLogin: login, expiresAt: new Date((iat + refreshValidity(client)) * 1000),
  }, new Date(nowMs), deps.refreshReuseGraceSeconds);
  switch (result.outcome) {
    case 'user_refused':
      throw new Unauthorized(`User ${login} was ${result.user ? 'not activated' : 'not found in the database'}`);
    case 'reused':
      throw new InvalidGrant('Refresh token was already used; its token chain is revoked');
    case 'revoked':
      throw new InvalidGrant('Refresh token was revoked');
    case 'unknown':
      throw new InvalidGrant('Invalid refresh token');
    case 'rotated':
    case 'grace':
      break;
  }

  let scope = requested ?? original;
  let tokenUser: TokenUser | undefined;
  if (result.user) {
    tokenUser = claimsOf(result.user.login, result.user.roles, result.user.sources);
    scope = narrowScopes(scope, tokenUser.authorities);
  }
  const chainGrant = typeof claims.grant_type === 'string' ? claims.grant_type : grantType;
  const issued = await deps.issuer.issue({ client, grantType: chainGrant, scope, user: tokenUser, withRefreshToken: true, iat, refreshJti });
  audit(deps, issued, tokenUser?.login ?? client.clientId);
  return issued.body;
};
