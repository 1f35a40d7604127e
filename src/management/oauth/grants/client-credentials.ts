/** `grant_type=client_credentials`: a token for the client itself, never with a refresh token `[lib]`. */
import { audit, clientScope, parseScope } from './shared.js';
import type { Grant } from './types.js';

export const grantType = 'client_credentials';
export const parameters = ['scope'] as const;

export const handle: Grant['handle'] = async ({ client, params }, deps) => {
  const scope = clientScope(client, parseScope(params.scope));
  const issued = await deps.issuer.issue({ client, grantType, scope, withRefreshToken: false });
  audit(deps, issued, client.clientId);
  return issued.body;
};
