/** Schemas of the OAuth endpoints (request bodies, responses, the OAuth error body). */
import { Type, type Static } from 'typebox';

export const OAuthErrorBody = Type.Object({
  error: Type.String({ examples: ['invalid_grant'] }),
  error_description: Type.String({ examples: ['Bad credentials'] }),
  scope: Type.Optional(Type.String()),
}, { description: 'RFC 6749 §5.2 error body' });

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  refresh_token: Type.Optional(Type.String()),
  expires_in: Type.Integer(),
  scope: Type.String({ description: 'Space-separated' }),
  sub: Type.Optional(Type.String()),
  sources: Type.Optional(Type.Array(Type.String())),
  roles: Type.Optional(Type.Array(Type.String())),
  iat: Type.Integer(),
  iss: Type.String(),
  grant_type: Type.String(),
  jti: Type.String(),
});
export type TokenResponseT = Static<typeof TokenResponse>;

/** The public key members of the key sets (radar-auth's `kid`/`alg` plus RFC 7517 members). */
const JwkMembers = {
  kid: Type.String(),
  kty: Type.String({ examples: ['EC', 'RSA'] }),
  alg: Type.String({ examples: ['ES256', 'RS256'] }),
  use: Type.Literal('sig'),
  crv: Type.Optional(Type.String()),
  x: Type.Optional(Type.String()),
  y: Type.Optional(Type.String()),
  n: Type.Optional(Type.String()),
  e: Type.Optional(Type.String()),
};

export const TokenKeySet = Type.Object({
  keys: Type.Array(Type.Object({
    ...JwkMembers,
    value: Type.String({ description: 'PEM (SubjectPublicKeyInfo) as radar-auth reads it: `EC PUBLIC KEY` label for EC keys' }),
  })),
}, { description: 'The reference\'s key set with standard JWK members added' });

const Jwk = Type.Object(JwkMembers);
export type JwkT = Static<typeof Jwk>;

export const JwkSet = Type.Object({ keys: Type.Array(Jwk) }, { description: 'RFC 7517 JWK set' });

export const AuthorizationServerMetadata = Type.Object({
  issuer: Type.String(),
  token_endpoint: Type.String(),
  jwks_uri: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
}, { description: 'RFC 8414 authorization server metadata' });
