/**
 * Client authentication shared by `/oauth/token`, `/oauth/check_token`, `/oauth/introspect` and
 * `/oauth/revoke`: credentials from HTTP Basic or the `client_id`/`client_secret` parameters,
 * checked through the client store, with failed attempts counted by the limiter per (client id,
 * client IP) and per client IP over all names.
 */
import type { ClientStore, OAuthClient } from './clients/client-store.js';
import { InvalidClient } from './errors.js';
import type { FailedAttemptLimiter } from './limiter.js';

export interface ClientCredentials { clientId: string; secret: string }

/**
 * Client credentials from HTTP Basic, else from the `client_id`/`client_secret` parameters (form
 * or query string, as real clients send them). A public client sends an empty secret.
 */
export function clientCredentialsOf(
  authorization: string | undefined, params: Readonly<Record<string, string | undefined>>,
): ClientCredentials | undefined {
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new InvalidClient('Bad client credentials');
    return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  if (params.client_id) return { clientId: params.client_id, secret: params.client_secret ?? '' };
  return undefined;
}

export interface ClientAuthDeps {
  clients: ClientStore;
  /** Absent: nothing is limited (unit tests of single steps). */
  limiter?: FailedAttemptLimiter;
}

/** The authenticated client; `InvalidClient` (401) or `TooManyFailedAttempts` (429) otherwise. */
export async function authenticateClient(
  deps: ClientAuthDeps, credentials: ClientCredentials | undefined, ip: string,
): Promise<OAuthClient> {
  if (!credentials) throw new InvalidClient('Client authentication is required');
  deps.limiter?.check(credentials.clientId, ip);
  const client = await deps.clients.authenticate(credentials.clientId, credentials.secret);
  if (!client) {
    deps.limiter?.recordFailure(credentials.clientId, ip);
    throw new InvalidClient('Bad client credentials');
  }
  return client;
}
