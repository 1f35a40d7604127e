/**
 * `POST /oauth/revoke` (RFC 7009) for refresh tokens. Revoking a refresh token revokes its chain
 * (queries.ts `revokeFamily`): the token, every token descended from it, and its already
 * used ancestors. As RFC 7009 §2.2 asks, a token that is unknown, invalid, expired or already
 * revoked is answered 200 too. Access tokens are self-contained JWTs that cannot be revoked: 400
 * `unsupported_token_type` (§2.2.1). Another client's refresh token is refused with
 * `invalid_request`, as node-oidc-provider does, and left alone.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateClient, clientCredentialsOf } from './client-authentication.js';
import { InvalidRequest, OAuthError } from './errors.js';
import type { IntrospectionDeps } from './introspection.js';
import { findRefreshToken, revokeFamily } from './queries.js';
import { OAuthErrorBody } from './schemas.js';
import type { Claims } from './token-signing.js';
import { emptyFormBody, formParams } from './form-params.js';

export class UnsupportedTokenType extends OAuthError { readonly error = 'unsupported_token_type'; }

export type RevocationDeps = IntrospectionDeps;

const RevocationForm = Type.Object({
  token: Type.Optional(Type.String({ description: 'The refresh token' })),
  token_type_hint: Type.Optional(Type.String({ description: '`refresh_token` (optional)' })),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
}, { description: 'application/x-www-form-urlencoded' });

/**
 * Revokes the chain of `token` when it is a refresh token of `clientId`.
 * Idempotent; returns whether anything was revoked.
 * @throws UnsupportedTokenType for an access token; InvalidRequest for another client's refresh token
 */
export async function revokeRefreshToken(deps: RevocationDeps, clientId: string, token: string): Promise<boolean> {
  let claims: Claims;
  try {
    claims = await deps.verifier.verify(token, Math.floor(deps.now() / 1000));
  } catch {
    return false;
  }
  if (typeof claims.ati !== 'string' || typeof claims.jti !== 'string') {
    throw new UnsupportedTokenType('Only refresh tokens can be revoked');
  }
  if (claims.client_id !== clientId) throw new InvalidRequest('client is not authorized to revoke the presented token');
  const row = await findRefreshToken(deps.db, claims.jti);
  if (!row) return false;
  return (await revokeFamily(deps.db, row.familyId, new Date(deps.now()))) > 0;
}

export const revocationRoutes: FastifyPluginAsyncTypebox<RevocationDeps> = async (app, deps) => {
  app.post('/oauth/revoke', {
    schema: {
      tags: ['management: oauth'], summary: 'Revoke a refresh token and its chain (RFC 7009)',
      description: 'Client authentication required. 200 with an empty body, also for unknown or invalid tokens.',
      body: RevocationForm,
      security: [{ clientBasic: [] }, {}],
      response: { 200: Type.Null({ description: 'Empty body' }), 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
    },
    preValidation: emptyFormBody,
  }, async (req, reply) => {
    const params = formParams(req.query, req.body);
    const client = await authenticateClient(deps, clientCredentialsOf(req.headers.authorization, params), req.ip);
    if (!params.token) throw new InvalidRequest('Missing token');
    await revokeRefreshToken(deps, client.clientId, params.token);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(undefined as never);
  });
};
