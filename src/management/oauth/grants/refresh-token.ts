/**
 * `grant_type=refresh_token`: a refresh token is valid once. The new pair carries the user's
 * current roles, sources and (narrowed) scopes; the chain keeps its first grant type, as the
 * reference does (managementportal.md §3.3).
 *
 * Reference bug fixed: the reference never invalidated a used refresh token. Here it is consumed
 * atomically (refresh-tokens.ts `rotate`); presenting a used one is `invalid_grant` and revokes
 * its whole chain, unless it is a repeat within MANAGEMENTPORTAL_OAUTH_REFRESH_REUSE_GRACE_SECONDS.
 */
import { InvalidGrant, InvalidRequest, InvalidScope, InvalidToken, Unauthorized } from '../errors.js';
import { rotate } from '../refresh-tokens.js';
import { verifyToken } from '../token-signing.js';
import { audit, loadTokenUser, narrowScopes, parseScope } from './shared.js';
import type { TokenUser } from '../token-issuer.js';
import type { Grant } from './types.js';

export const grantType = 'refresh_token';
export const parameters = ['refresh_token', 'scope'] as const;

const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  const token = params.refresh_token;
  if (!token) throw new InvalidRequest('refresh_token parameter not provided');
  const nowMs = deps.now();
  const claims = verifyToken(token, deps.keys, Math.floor(nowMs / 1000));
  if (typeof claims.ati !== 'string' || typeof claims.jti !== 'string') throw new InvalidToken('Encoded token is not a refresh token');
  if (claims.client_id !== client.clientId) throw new InvalidGrant('Wrong client for this refresh token');

  const original = stringList(claims.scope);
  const requested = parseScope(params.scope);
  if (requested && requested.some((s) => !original.includes(s))) {
    throw new InvalidScope('Unable to narrow the scope of the client authentication', { scope: original.join(' ') });
  }
  let scope = requested ?? original;

  let tokenUser: TokenUser | undefined;
  if (typeof claims.user_name === 'string') {
    const found = await loadTokenUser(deps.db, claims.user_name);
    if (!found) throw new Unauthorized(`User ${claims.user_name} was not found in the database`);
    if (!found.activated) throw new Unauthorized(`User ${claims.user_name} was not activated`);
    tokenUser = found.user;
    scope = narrowScopes(scope, tokenUser.authorities);
  }

  const chainGrant = typeof claims.grant_type === 'string' ? claims.grant_type : grantType;
  const issued = deps.issuer.issue({ client, grantType: chainGrant, scope, user: tokenUser, withRefreshToken: true });
  const result = await rotate(deps.db, claims.jti, {
    jti: issued.refresh!.jti, clientId: client.clientId, userLogin: tokenUser?.login ?? null, expiresAt: issued.refresh!.expiresAt,
  }, new Date(nowMs), deps.refreshReuseGraceSeconds);
  switch (result.outcome) {
    case 'rotated':
    case 'grace':
      audit(deps, issued, tokenUser?.login ?? client.clientId);
      return issued.body;
    case 'reused':
      throw new InvalidGrant('Refresh token was already used; its token chain is revoked');
    case 'revoked':
      throw new InvalidGrant('Refresh token was revoked');
    case 'unknown':
      throw new InvalidGrant('Invalid refresh token');
  }
};
