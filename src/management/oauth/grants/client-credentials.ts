/**
 * `grant_type=client_credentials`: a token for the client itself, never with a refresh token `[lib]`.
 *
 * Reference deviation: only a confidential client (one with a secret) may use it (RFC 6749 §4.4);
 * a public client anybody can name would otherwise get the client's authorities. The reference's
 * own clients file gave `radar_appserver_client` this grant with no secret.
 */
import { UnauthorizedClient } from '../errors.js';
import { audit, clientScope, parseScope, SCOPE_PARAMETER } from './shared.js';
import type { Grant } from './types.js';

export const grantType = 'client_credentials';
export const parameters = { scope: SCOPE_PARAMETER };

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  if (!client.clientSecret) throw new UnauthorizedClient('The client_credentials grant needs a confidential client: give this client a secret');
  const scope = clientScope(client, parseScope(params.scope));
  const issued = await deps.issuer.issue({ client, grantType, scope, withRefreshToken: false });
  audit(deps, issued, client.clientId);
  return issued.body;
};
