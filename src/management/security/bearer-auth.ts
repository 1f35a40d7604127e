/**
 * Bearer authentication of the management API (`/api/*`, managementportal.md §1 "Request
 * authentication"): our own JWTs, verified with the keystore's checking keys, `aud` ∋
 * `res_ManagementPortal`, claim `scope` present, `exp` in the future, not a refresh token. As in
 * the reference, a token with `user_name` is only good while that user exists, and the user's
 * current database roles replace the token's `roles` for this API. Issue deviation: the user must
 * also still be activated, so a deactivated user loses access at once (the user is read from the
 * database on every call; the verified-token cache below holds only signatures' claims).
 *
 * A token counts as the client's own (no user roles) only when its `grant_type` is
 * `client_credentials`. radar-auth also counted `sub == client_id`; the issuer never mints such a
 * user token (token-issuer.ts `refuseClientTwin`) and genuine client tokens always carry the
 * grant type (clients.md §3), so that rule is dropped here.
 *
 * Sets the domain's one request decorator, `request.mpAuth` (declared in principal.ts): null until
 * the `authenticate` hook has run, then the principal.
 *
 * Without an `Authorization` header, the signed-in session of the OAuth pages authenticates the
 * request instead (security/session-auth.ts, the admin UI's way in); a bearer token always wins.
 *
 * Reference bugs fixed: the missing-token 401 body was invalid JSON and a bearer value that was
 * not a JWT gave 500. Here every failure is 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3) and
 * the domain's `ErrorVM` body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createTtlCache } from '../../platform/ttl-cache.js';
import type { Database } from '../../platform/database.js';
import { findUserWithRoles, type UserRole } from './queries.js';
import { BearerUnauthorized, noCredentials, REALM, type MpAuth } from './principal.js';
import type { SessionAuth } from './session-auth.js';
import type { TokenVerifier } from './token-verifier.js';

export const RESOURCE_ID = 'res_ManagementPortal';

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const quote = (s: string) => s.replace(/["\\]/g, '\\$&');

export interface BearerAuthDeps {
  db: Database;
  verifier: TokenVerifier;
  /** Epoch milliseconds. */
  now: () => number;
  /** The signed-in session of the OAuth pages; without it only bearer tokens authenticate. */
  session?: SessionAuth;
}

export interface BearerAuth {
  /** Verifies a bearer token (no request involved); throws `BearerUnauthorized`. */
  principalOf(authorization: string | undefined): Promise<MpAuth>;
  /** `onRequest` hook for the API scope: sets `request.mpAuth` (bearer token, else session) or answers 401 (403 for a session request without its CSRF token). */
  authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** Verified tokens remembered per instance (~1 KB each), least recently used first out. */
export const VERIFIED_TOKENS_KEPT = 5000;

export function createBearerAuth(deps: BearerAuthDeps): BearerAuth {
  const invalid = (description: string) =>
    new BearerUnauthorized(description, `Bearer realm="${REALM}", error="invalid_token", error_description="${quote(description)}"`);

  /**
   * Tokens whose signature was verified, with their claims: a UI or client calls the API many
   * times with one token, and a signature check costs a hop to the crypto worker and ~60 µs there.
   * A signed token cannot change, so each is kept until it expires. Failures are not kept.
   * Justified by bench/README.md's 2026-11-24 17:44 subject-list row ("verified bearer tokens
   * remembered": 837–789 → 855 req/s on the first page, 891–872 → 911 on the last).
   */
  const verified = createTtlCache<string, Readonly<Record<string, unknown>>>({ max: VERIFIED_TOKENS_KEPT, now: deps.now });

  async function claimsOf(token: string, nowMs: number): Promise<Readonly<Record<string, unknown>>> {
    const hit = verified.get(token);
    if (hit) return hit;
    const claims = Object.freeze(await deps.verifier.verify(token, Math.floor(nowMs / 1000)));
    // An entry goes stale once its age exceeds `ttl`: served up to the last millisecond before
    // `exp`, as `verify` would. Under 1 ms left it is not kept (a ttl of 0 would mean forever).
    const ttl = Math.floor((claims.exp as number) * 1000 - nowMs - 1);
    if (ttl >= 1) verified.set(token, claims, { ttl, start: nowMs });
    return claims;
  }

  async function principalOf(authorization: string | undefined): Promise<MpAuth> {
    const match = authorization === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw noCredentials('No token provided');
    let claims: Readonly<Record<string, unknown>>;
    try {
      claims = await claimsOf(match[1]!, deps.now());
    } catch {
      throw invalid('No registered validator could authenticate this token');
    }
    if (typeof claims.ati === 'string') throw invalid('Encoded token is a refresh token');
    if (!strings(claims.aud).includes(RESOURCE_ID) || claims.scope === undefined) {
      throw invalid('No registered validator could authenticate this token');
    }
    const subject = str(claims.sub);
    const clientId = str(claims.client_id);
    const grantType = str(claims.grant_type);
    const userName = str(claims.user_name);
    let roles: UserRole[] = [];
    if (userName !== undefined) {
      const user = await findUserWithRoles(deps.db, userName);
      if (!user) throw invalid('User not found');
      if (!user.activated) throw invalid('User not activated');
      roles = user.roles;
    }
    return {
      subject, userName, clientId, grantType, roles,
      scopes: new Set(strings(claims.scope)),
      clientCredentials: grantType === 'client_credentials',
      jti: str(claims.jti),
    };
  }

  return {
    principalOf,
    async authenticate(request, reply) {
      try {
        if (request.headers.authorization === undefined && deps.session) {
          const fromSession = await deps.session.principalOf(request);
          if (fromSession) {
            request.mpAuth = { ...fromSession, address: request.ip };
            return;
          }
        }
        request.mpAuth = { ...await principalOf(request.headers.authorization), address: request.ip };
      } catch (err) {
        if (err instanceof BearerUnauthorized) reply.header('www-authenticate', err.challenge);
        throw err;
      }
    },
  };
}
