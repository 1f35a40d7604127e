/**
 * The OAuth 2.0 endpoints: `/oauth/token`, `/oauth/token_key`, `/.well-known/jwks.json` and RFC
 * 8414 metadata. Registered in their own scope: form bodies and the OAuth error body apply here only.
 */
import formbody from '@fastify/formbody';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { documentClientErrors } from '../../platform/errors.js';
import { PERMISSION_SCOPES } from '../authz/permissions.js';
import { oauthErrorHandler } from './error-handler.js';
import { MethodNotAllowed } from './errors.js';
import { GRANTS, TokenRequest } from './grants/index.js';
import type { KeySet, VerificationKey } from './keystore.js';
import { AuthorizationServerMetadata, JwkSet, OAuthErrorBody, TokenKeySet, TokenResponse, type JwkT } from './schemas.js';
import { tokenEndpoint, type TokenEndpointDeps } from './token-endpoint.js';
import { introspectionRoutes, type IntrospectionDeps } from './introspection.js';
import { TooManyFailedAttempts } from './limiter.js';
import { revocationRoutes } from './revocation.js';
import { emptyFormBody, formParams } from './form-params.js';

const tags = ['management: oauth'];
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

export interface OAuthRoutesOptions {
  token: TokenEndpointDeps;
  /** check_token, introspect and revoke. */
  introspection: IntrospectionDeps;
  keys: KeySet;
  issuer: string;
}

// jose's JWK type leaves `kty` optional; a key exported by node:crypto always has it.
const jwkOf = (key: VerificationKey) => ({ kid: key.kid, alg: key.alg, use: 'sig' as const, ...key.jwk }) as JwkT;

export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (app, { token, introspection, keys, issuer }) => {
  await app.register(formbody);
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof TooManyFailedAttempts) reply.header('retry-after', String(error.retryAfterSeconds));
    return oauthErrorHandler(error, request, reply);
  });
  app.addHook('onRoute', documentClientErrors({ badRequest: OAuthErrorBody, uriTooLong: OAuthErrorBody, unsupportedMediaType: OAuthErrorBody }));

  const errors = { 400: OAuthErrorBody, 401: OAuthErrorBody, 415: OAuthErrorBody, 429: OAuthErrorBody };

  app.post('/oauth/token', {
    schema: {
      tags, summary: 'Token endpoint (password, client_credentials, refresh_token, authorization_code)',
      description: 'Client authentication by HTTP Basic, or by `client_id`/`client_secret` in the form or query string. Public clients use an empty secret.',
      body: TokenRequest, response: { 200: TokenResponse, ...errors },
      security: [{ clientBasic: [] }, {}],
    },
    // All parameters may come in the query string instead (real clients send them there).
    preValidation: emptyFormBody,
  }, async (req, reply) => {
    const body = await tokenEndpoint(token, req.headers.authorization, formParams(req.query, req.body), req.ip);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(body);
  });

  app.get('/oauth/token', { schema: { hide: true } }, async () => {
    throw new MethodNotAllowed("Request method 'GET' not supported");
  });

  await app.register(introspectionRoutes, introspection);
  await app.register(revocationRoutes, introspection);

  const tokenKeys = { keys: keys.verification.map((key) => ({ ...jwkOf(key), value: key.pem })) };
  app.get('/oauth/token_key', {
    schema: { tags, summary: 'Public keys that verify the tokens (radar-auth format plus JWK members)', response: { 200: TokenKeySet } },
  }, async () => tokenKeys);

  const jwks = { keys: keys.verification.map(jwkOf) };
  app.get('/.well-known/jwks.json', {
    schema: { tags, summary: 'JWK set (RFC 7517)', response: { 200: JwkSet } },
  }, async () => jwks);

  const prefix = app.prefix;
  app.get('/.well-known/oauth-authorization-server', {
    schema: {
      tags, summary: 'Authorization server metadata (RFC 8414)',
      response: { 200: Type.Object({ ...AuthorizationServerMetadata.properties, authorization_endpoint: Type.String(), code_challenge_methods_supported: Type.Array(Type.String()), introspection_endpoint: Type.String(), introspection_endpoint_auth_methods_supported: Type.Array(Type.String()), revocation_endpoint: Type.String(), revocation_endpoint_auth_methods_supported: Type.Array(Type.String()) }) },
    },
  }, async (req) => {
    const base = `${req.protocol}://${req.host}${prefix}`;
    return {
      issuer,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: [...GRANTS.keys()],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      introspection_endpoint: `${base}/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      revocation_endpoint: `${base}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
      scopes_supported: [...PERMISSION_SCOPES],
    };
  });
};
