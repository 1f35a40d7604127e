// oidc-provider (9.13.3) for the client_credentials benchmark: the same grant with ES256 JWT access
// tokens (resource indicators, `accessTokenFormat: 'jwt'`), confidential client radar_restapi with
// Basic auth, in-memory adapter, as feasibility.md §6 sets it up. Started by
// bench/oauth-client-credentials.mjs; prints its port.
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const SCOPES = 'SUBJECT.READ PROJECT.READ SOURCE.READ SOURCETYPE.READ';
const port = Number(process.argv[2]);

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: 'radar_restapi', client_secret: 'secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256', scope: SCOPES,
  }],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'ES256', use: 'sig' }] },
  scopes: SCOPES.split(' '),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:radar:res_ManagementPortal',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: SCOPES, audience: 'res_ManagementPortal', accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
    },
  },
});
createServer(provider.callback()).listen(port, '127.0.0.1', () => console.log(port));
