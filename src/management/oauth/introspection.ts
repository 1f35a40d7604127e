/**
 * Token checking for resource servers:
 * - `POST /oauth/check_token` in the reference's shape (spring-security-oauth2 `CheckTokenEndpoint`,
 *   managementportal.md §3.1, §16): the access token's claims plus `"active": true`; a token that
 *   does not verify, or a refresh token, is 400 `invalid_token`.
 * - `POST /oauth/introspect` (RFC 7662): `{"active": false}` for anything not currently valid; a
 *   refresh token is active only while unused and unrevoked, and only to the client it was issued
 *   to (RFC 7662 §4: a client learns nothing about another client's refresh tokens).
 * Both need client authentication (Basic or `client_id`/`client_secret`), limited like the token
 * endpoint's.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../platform/database.js';
import { authenticateClient, clientCredentialsOf, type ClientAuthDeps } from './client-authentication.js';
import { InvalidRequest, OAuthError } from './errors.js';
import { findRefreshToken } from './queries.js';
import { OAuthErrorBody } from './schemas.js';
import type { Claims, TokenVerifier } from './token-signing.js';
import { emptyFormBody, formParams } from './form-params.js';

/** The reference's 400 for a token `check_token` cannot accept `[lib]`. */
export class CheckTokenInvalid extends OAuthError { readonly error = 'invalid_token'; }

export interface IntrospectionDeps extends ClientAuthDeps {
  db: Database;
  verifier: TokenVerifier;
  /** Epoch milliseconds. */
  now: () => number;
}

const tags = ['management: oauth'];
const TokenForm = Type.Object({
  token: Type.Optional(Type.String({ description: 'The token' })),
  token_type_hint: Type.Optional(Type.String({ description: '`access_token` or `refresh_token` (RFC 7662/7009; optional)' })),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
}, { description: 'application/x-www-form-urlencoded' });

const claimsMembers = {
  aud: Type.Optional(Type.Array(Type.String())),
  sub: Type.Optional(Type.String()),
  user_name: Type.Optional(Type.String()),
  authorities: Type.Optional(Type.Array(Type.String())),
  roles: Type.Optional(Type.Array(Type.String())),
  sources: Type.Optional(Type.Array(Type.String())),
  iss: Type.Optional(Type.String()),
  iat: Type.Optional(Type.Integer()),
  exp: Type.Optional(Type.Integer()),
  grant_type: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  jti: Type.Optional(Type.String()),
};

const CheckTokenResponse = Type.Object({
  ...claimsMembers,
  scope: Type.Array(Type.String()),
  active: Type.Literal(true),
}, { additionalProperties: true, description: 'The access token\'s claims plus `active` (reference shape)' });

const IntrospectionResponse = Type.Object({
  active: Type.Boolean(),
  ...claimsMembers,
  scope: Type.Optional(Type.String({ description: 'Space-separated' })),
  username: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String({ examples: ['bearer', 'refresh_token'] })),
}, { description: 'RFC 7662 introspection response' });

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];

/** The verified claims, or undefined for anything that does not verify (never throws). */
async function verified(token: string, deps: IntrospectionDeps): Promise<Claims | undefined> {
  try {
    return await deps.verifier.verify(token, Math.floor(deps.now() / 1000));
  } catch {
    return undefined;
  }
}

const INACTIVE = { active: false } as const;

export const introspectionRoutes: FastifyPluginAsyncTypebox<IntrospectionDeps> = async (app, deps) => {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const errors = { 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody };

  app.post('/oauth/check_token', {
    schema: {
      tags, summary: 'Check an access token (reference shape)',
      description: 'Client authentication required. Answers the token\'s claims with `active: true`; 400 `invalid_token` otherwise.',
      body: TokenForm, response: { 200: CheckTokenResponse, ...errors },
      security: [{ clientBasic: [] }, {}],
    },
    preValidation: emptyFormBody,
  }, async (req, reply) => {
    const params = formParams(req.query, req.body);
    await authenticateClient(deps, clientCredentialsOf(req.headers.authorization, params), req.ip);
    if (!params.token) throw new InvalidRequest('Missing token');
    const claims = await verified(params.token, deps);
    // Kept from the reference `[lib]`: the descriptions of spring-security-oauth2's CheckTokenEndpoint.
    if (!claims) throw new CheckTokenInvalid('Token was not recognised');
    if (typeof claims.ati === 'string') throw new CheckTokenInvalid('Encoded token is a refresh token');
    return reply.headers(noStore).send({ ...claims, scope: strings(claims.scope), active: true });
  });

  app.post('/oauth/introspect', {
    schema: {
      tags, summary: 'Token introspection (RFC 7662)',
      description: 'Client authentication required. `{"active": false}` for tokens that are invalid, expired, used, revoked or another client\'s refresh token.',
      body: TokenForm, response: { 200: IntrospectionResponse, ...errors },
      security: [{ clientBasic: [] }, {}],
    },
    preValidation: emptyFormBody,
  }, async (req, reply) => {
    const params = formParams(req.query, req.body);
    const client = await authenticateClient(deps, clientCredentialsOf(req.headers.authorization, params), req.ip);
    if (!params.token) throw new InvalidRequest('Missing token');
    reply.headers(noStore);
    const claims = await verified(params.token, deps);
    if (!claims) return INACTIVE;
    const isRefresh = typeof claims.ati === 'string';
    if (isRefresh) {
      if (claims.client_id !== client.clientId || typeof claims.jti !== 'string') return INACTIVE;
      const row = await findRefreshToken(deps.db, claims.jti);
      if (!row || row.usedAt || row.revokedAt) return INACTIVE;
    }
    const { scope, ati: _ati, ...rest } = claims;
    return {
      ...rest,
      active: true,
      scope: strings(scope).join(' '),
      ...(typeof claims.user_name === 'string' ? { username: claims.user_name } : {}),
      token_type: isRefresh ? 'refresh_token' : 'bearer',
    };
  });
};
