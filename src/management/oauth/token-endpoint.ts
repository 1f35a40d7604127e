/**
 * `POST /oauth/token` as a list of named steps (after node-oidc-provider `lib/actions/token.js`):
 * authenticate the client, select the grant, check the client may use it, dispatch. Each grant
 * checks its own scope. Nothing here sees the HTTP request: the route passes the Authorization
 * header and the merged parameters.
 */
import type { ClientStore, OAuthClient } from '../oauth-clients/client-store.js';
import { InvalidClient, InvalidGrant, InvalidRequest, UnsupportedGrantType } from './errors.js';
import { GRANTS, type Grant, type GrantDeps, type TokenParams } from './grants/index.js';
import type { TokenResponse } from './token-issuer.js';

export interface ClientCredentials { clientId: string; secret: string }

/**
 * Client credentials from HTTP Basic, else from the `client_id`/`client_secret` parameters (form
 * or query string, as real clients send them). A public client sends an empty secret.
 */
export function clientCredentialsOf(authorization: string | undefined, params: TokenParams): ClientCredentials | undefined {
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new InvalidClient('Bad client credentials');
    return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  if (params.client_id) return { clientId: params.client_id, secret: params.client_secret ?? '' };
  return undefined;
}

async function authenticateClient(clients: ClientStore, credentials: ClientCredentials | undefined): Promise<OAuthClient> {
  if (!credentials) throw new InvalidClient('Client authentication is required');
  const client = await clients.authenticate(credentials.clientId, credentials.secret);
  if (!client) throw new InvalidClient('Bad client credentials');
  return client;
}

function selectGrant(grantType: string | undefined): Grant {
  if (!grantType) throw new InvalidRequest('Missing grant type');
  // Kept from the reference `[lib]`: implicit is refused as invalid_grant.
  if (grantType === 'implicit') throw new InvalidGrant('Implicit grant type not supported from token endpoint');
  const grant = GRANTS.get(grantType);
  if (!grant) throw new UnsupportedGrantType('Unsupported grant type');
  return grant;
}

/** Issue deviation: a client without any grant type may use none (the reference allowed all). */
function checkGrantAllowed(client: OAuthClient, grant: Grant): void {
  if (!client.authorizedGrantTypes.includes(grant.grantType)) throw new InvalidClient('Unauthorized grant type');
}

export interface TokenEndpointDeps extends GrantDeps {
  clients: ClientStore;
}


export async function tokenEndpoint(
  deps: TokenEndpointDeps, authorization: string | undefined, params: TokenParams,
): Promise<TokenResponse> {
  const client = await authenticateClient(deps.clients, clientCredentialsOf(authorization, params));
  const grant = selectGrant(params.grant_type);
  checkGrantAllowed(client, grant);
  return grant.handle({ client, params }, deps);
}
