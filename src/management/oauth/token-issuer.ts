/**
 * Builds and signs token pairs with the reference's claims and response body
 * (managementportal.md §3.3, clients.md §1.4). Pure apart from the clock and randomness: it
 * writes nothing; grants record refresh tokens and audit events.
 *
 * Deviation from the reference: the access-token JWT carries its `jti` too (RFC 9068 does; the
 * reference signed before adding it), which no client minds.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClient } from './clients/client-store.js';
import { InvalidGrant } from './errors.js';
import type { TokenResponseT } from './schemas.js';
import type { Claims, TokenSigner } from './token-signing.js';

/** The spring-security-oauth2 defaults when a client sets no validity `[lib]`. */
export const DEFAULT_ACCESS_TOKEN_VALIDITY = 12 * 3600;
export const DEFAULT_REFRESH_TOKEN_VALIDITY = 30 * 24 * 3600;

/** The user a token is issued to, as its claims show them. */
export interface TokenUser {
  login: string;
  /** `ROLE_SYS_ADMIN`, `<project>:ROLE_PARTICIPANT`, `<organization>:ROLE_ORGANIZATION_ADMIN`. */
  roles: string[];
  /** Authority names of the roles, without referent. */
  authorities: string[];
  /** Source UUIDs of the user's subject. */
  sources: string[];
}

export interface IssueRequest {
  client: OAuthClient;
  /** The grant that started the chain (a refreshed token keeps it, as the reference does). */
  grantType: string;
  scope: readonly string[];
  user?: TokenUser;
  withRefreshToken: boolean;
  /** Issue time in epoch seconds (default: now) and the refresh token's `jti` (default: a new one), for a caller that records the refresh token before signing. */
  iat?: number;
  refreshJti?: string;
}

export interface IssuedTokens {
  body: TokenResponseT;
  accessClaims: Claims;
  refresh?: { jti: string; expiresAt: Date; claims: Claims };
}

export const refreshValidity = (client: OAuthClient): number => client.refreshTokenValidity ?? DEFAULT_REFRESH_TOKEN_VALIDITY;

const JTI_BYTES = 20;
/**
 * Random bytes drawn 4 KiB at a time: one call into OpenSSL's generator per 204 token ids, not per
 * id (as randomUUID pools). bench/README.md's "2026-11-25 19:58 / 20:05 token ids" row
 * (`bench/jti.mjs`): 0.08–0.17 µs per id against 1.7–2.2 µs for one `randomBytes(20)` per id.
 */
let jtiPool = Buffer.alloc(0);
let jtiOffset = 0;

/** 20 random bytes, base64url: the reference's 27-character token id. */
export function newJti(): string {
  if (jtiOffset + JTI_BYTES > jtiPool.length) {
    jtiPool = randomBytes(JTI_BYTES * 204);
    jtiOffset = 0;
  }
  jtiOffset += JTI_BYTES;
  return jtiPool.toString('base64url', jtiOffset - JTI_BYTES, jtiOffset);
}

/**
 * Whether a token of `login` through `client` would have `sub == client_id`. radar-auth (the
 * gateway and every other resource server) counts such a token as the client's own, skipping the
 * user's roles, so no user token may ever look like that.
 */
export const isClientTwin = (client: OAuthClient, login: string): boolean => login === client.clientId;

/** invalid_grant for a user token that would read as the client's own (see `isClientTwin`). */
export function refuseClientTwin(client: OAuthClient, login: string): void {
  if (isClientTwin(client, login)) throw new InvalidGrant(`User ${login} cannot get tokens through the client of the same name`);
}

export interface TokenIssuer {
  /** @throws InvalidGrant for a user whose login is the client's id (every user grant passes here). */
  issue(request: IssueRequest): Promise<IssuedTokens>;
}

export function createTokenIssuer(deps: { signer: TokenSigner; issuer: string; now: () => number }): TokenIssuer {
  return {
    async issue({ client, grantType, scope, user, withRefreshToken, iat = Math.floor(deps.now() / 1000), refreshJti }) {
      if (user) refuseClientTwin(client, user.login);
      const accessValidity = client.accessTokenValidity ?? DEFAULT_ACCESS_TOKEN_VALIDITY;
      const jti = newJti();
      const claims: Claims = {};
      if (client.resourceIds.length > 0) claims.aud = client.resourceIds;
      if (user) {
        claims.sub = user.login;
        claims.sources = user.sources;
        claims.user_name = user.login;
        claims.roles = user.roles;
        claims.authorities = user.authorities;
      } else if (client.authorities.length > 0) {
        claims.authorities = client.authorities;
      }
      claims.scope = scope;
      claims.iss = deps.issuer;
      claims.iat = iat;
      claims.exp = iat + accessValidity;
      claims.grant_type = grantType;
      claims.client_id = client.clientId;
      claims.jti = jti;
      const accessToken = deps.signer.sign(claims);

      const body: TokenResponseT = {
        access_token: '',
        token_type: 'bearer',
        expires_in: accessValidity,
        scope: scope.join(' '),
        iat,
        iss: deps.issuer,
        grant_type: grantType,
        jti,
      };
      if (user) {
        body.sub = user.login;
        body.sources = user.sources;
        body.roles = user.roles;
      }
      let refresh: IssuedTokens['refresh'];
      if (withRefreshToken) {
        const exp = iat + refreshValidity(client);
        const refreshClaims: Claims = { ...claims, exp, jti: refreshJti ?? newJti(), ati: jti };
        // Both signatures requested together: one message to the crypto worker.
        const [access, refreshToken] = await Promise.all([accessToken, deps.signer.sign(refreshClaims)]);
        body.access_token = access;
        body.refresh_token = refreshToken;
        refresh = { jti: refreshClaims.jti as string, expiresAt: new Date(exp * 1000), claims: refreshClaims };
      } else {
        body.access_token = await accessToken;
      }
      return { body, accessClaims: claims, refresh };
    },
  };
}
