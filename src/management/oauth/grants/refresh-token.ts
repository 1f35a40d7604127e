/**
 * `grant_type=refresh_token`: a refresh token is valid once. The new pair carries the user's
 * current roles, sources and (narrowed) scopes; the chain keeps its first grant type, as the
 * reference does (managementportal.md §3.3).
 *
 * A refresh token the reference ManagementPortal issued before a switch-over (signed with the
 * same key, unknown here) is accepted once within its expiry, unless issued after
 * MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL (refresh-tokens.ts `rotate`'s `legacy`).
 *
 * Reference bug fixed: the reference never invalidated a used refresh token. Here it is consumed
 * atomically (refresh-tokens.ts `rotate`); presenting a used one is `invalid_grant` and revokes
 * its whole chain, unless it is a repeat within MANAGEMENTPORTAL_OAUTH_REFRESH_REUSE_GRACE_SECONDS.
 *
 * The hot path is one round trip: `rotate` consumes the token, records its successor (whose `jti`
 * and expiry are chosen before signing) and loads the user's claims in one statement. The two
 * tokens are signed while that statement runs, with the user's roles, authorities and sources as
 * the presented token carries them: when the statement's fresh ones are the same (they are unless
 * the user's roles or sources changed since the last refresh), those tokens are the answer, byte
 * for byte what signing after the statement would give; otherwise they are dropped and the pair
 * is signed again. A refresh thus waits for the crypto worker and the database side by side, not
 * one after the other (issue 30 item 3: each hand-off between threads and processes cost about as
 * much as the work on this 2-core host). Nothing is signed before the presented token verified.
 */
import { InvalidGrant, InvalidRequest, InvalidScope, InvalidToken, Unauthorized } from '../errors.js';
import { rotate, type LegacyRefreshToken } from '../refresh-tokens.js';
import { newJti, refuseClientTwin, refreshValidity, type TokenUser } from '../token-issuer.js';
import type { Claims } from '../token-signing.js';
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
  const chainGrant = typeof claims.grant_type === 'string' ? claims.grant_type : grantType;
  // Signed while `rotate` runs; used only if the statement finds the same user claims (see above).
  const presentedUser = userOfClaims(login, claims);
  const speculative = deps.issuer.issue({
    client, grantType: chainGrant, scope: presentedUser ? narrowScopes(requested ?? original, presentedUser.authorities) : requested ?? original,
    user: presentedUser, withRefreshToken: true, iat, refreshJti,
  });
  // A refused refresh drops it: no unhandled rejection (a closed signer, at shutdown).
  speculative.catch(() => {});
  const result = await rotate(deps.db, claims.jti, {
    jti: refreshJti, clientId: client.clientId, userLogin: login, expiresAt: new Date((iat + refreshValidity(client)) * 1000),
  }, new Date(nowMs), deps.refreshReuseGraceSeconds, legacyOf(claims, client.clientId, login, deps.legacyRefreshUntil));
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
  const issued = sameUser(presentedUser, tokenUser)
    ? await speculative
    : await deps.issuer.issue({ client, grantType: chainGrant, scope, user: tokenUser, withRefreshToken: true, iat, refreshJti });
  audit(deps, issued, tokenUser?.login ?? client.clientId);
  return issued.body;
};

/**
 * The presented token as a possible reference-issued one: with its issue and expiry times, and
 * not issued after `until` (undefined: no limit). The signature and expiry are verified already.
 */
function legacyOf(claims: Claims, clientId: string, userLogin: string | null, until: number | undefined): LegacyRefreshToken | undefined {
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return undefined;
  if (until !== undefined && claims.iat * 1000 > until) return undefined;
  return { clientId, userLogin, issuedAt: new Date(claims.iat * 1000), expiresAt: new Date(claims.exp * 1000) };
}

/** The user as the presented token's claims describe it (undefined without `user_name`). */
function userOfClaims(login: string | null, claims: Claims): TokenUser | undefined {
  if (login === null) return undefined;
  return { login, roles: stringList(claims.roles), authorities: stringList(claims.authorities), sources: stringList(claims.sources) };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Whether two users give the same claims (and, through their authorities, the same narrowed scope). */
function sameUser(a: TokenUser | undefined, b: TokenUser | undefined): boolean {
  if (!a || !b) return a === b;
  return a.login === b.login && sameList(a.roles, b.roles) && sameList(a.authorities, b.authorities) && sameList(a.sources, b.sources);
}
