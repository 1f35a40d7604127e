/**
 * Start-up work for OAuth clients: the clients file is loaded at every start, each row replacing
 * the client with the same id (clients not in the file are kept), and the frontend client
 * `ManagementPortalapp` is (re)created (managementportal.md §3.1, §6).
 */
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../../../platform/database.js';
import { PERMISSION_SCOPES } from '../../authz/permissions.js';
import { existingLogins } from '../../security/queries.js';
import { FRONTEND_CLIENT_ID } from '../../session/sessions.js';
import { parseClientsFile, type ClientDefinition } from './clients-file.js';
import { hashPassword } from '../../security/passwords.js';
import { findClient, upsertClient } from './queries.js';

/**
 * A client that may use `client_credentials` but has no secret: the token endpoint refuses it
 * that grant (RFC 6749 §4.4), so whoever configured it is told at once.
 */
export const secretlessClientCredentials = (client: { clientSecret: string | null; authorizedGrantTypes: readonly string[] }) =>
  !client.clientSecret && client.authorizedGrantTypes.includes('client_credentials');
export const SECRETLESS_CLIENT_CREDENTIALS = 'client_credentials needs a confidential client: this client has no secret, so the grant is refused; give it a secret';

export async function toRow(client: ClientDefinition) {
  return {
    clientId: client.clientId,
    resourceIds: client.resourceIds,
    clientSecret: client.clientSecret ? await hashPassword(client.clientSecret) : null,
    scope: client.scope,
    authorizedGrantTypes: client.authorizedGrantTypes,
    redirectUris: client.redirectUris,
    authorities: client.authorities,
    accessTokenValidity: client.accessTokenValidity,
    refreshTokenValidity: client.refreshTokenValidity,
    additionalInformation: client.additionalInformation,
    autoApprove: client.autoApprove,
  };
}

/**
 * Loads the clients file. A file that cannot be read stops the start (naming the setting); a
 * row that cannot be parsed is logged with its line number and skipped.
 *
 * A client id that is a user's login would let that user's tokens through it read as the
 * client's own (radar-auth's `sub == client_id` rule). Such a row is logged at ERROR and not
 * created; a client of that id that exists already is still updated (the grants refuse that
 * user's tokens through it), since the row is the operator's and the user is the odd one out.
 * A row giving a secretless client `client_credentials` is loaded and logged at WARN: the token
 * endpoint refuses it that grant until it has a secret.
 * @returns the ids of the clients loaded
 */
export async function loadClientsFile(db: Executor, file: string, log: FastifyBaseLogger): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseClientsFile(text);
  for (const p of parsed.problems) log.error({ file, line: p.line, problem: p.message }, 'oauth clients file: row skipped');
  for (const w of parsed.warnings) log.warn({ file, line: w.line, problem: w.message }, 'oauth clients file: unknown scope');
  const logins = await existingLogins(db, parsed.clients.map(({ client }) => client.clientId));
  const accepted: typeof parsed.clients = [];
  let refused = 0;
  for (const entry of parsed.clients) {
    const { line, client } = entry;
    if (logins.has(client.clientId)) {
      const exists = (await findClient(db, client.clientId)) !== undefined;
      log.error({ file, line, clientId: client.clientId },
        exists ? 'oauth clients file: a user has this client id as login; the client is updated, but that user gets no tokens through it: rename or delete the user'
          : 'oauth clients file: a user has this client id as login; the client is not created: rename the client or delete the user');
      if (!exists) {
        refused++;
        continue;
      }
    }
    if (secretlessClientCredentials(client)) log.warn({ file, line, clientId: client.clientId }, `oauth clients file: ${SECRETLESS_CLIENT_CREDENTIALS}`);
    accepted.push(entry);
  }
  const rows = await Promise.all(accepted.map(({ client }) => toRow(client)));
  for (const row of rows) await upsertClient(db, row);
  log.info({ file, loaded: rows.length, skipped: parsed.problems.length + refused }, 'oauth clients loaded');
  return rows.map((r) => r.clientId);
}

export interface FrontendClientSettings {
  accessTokenValiditySeconds: number;
  refreshTokenValiditySeconds: number;
}

/** The admin UI's public client: every permission scope, auto-approved, protected from the API. */
export async function ensureFrontendClient(db: Executor, settings: FrontendClientSettings): Promise<void> {
  await upsertClient(db, {
    clientId: FRONTEND_CLIENT_ID,
    resourceIds: ['res_ManagementPortal', 'res_appconfig', 'res_upload', 'res_restAuthorizer'],
    // Kept from the reference: the frontend client is public (managementportal.md §3.1).
    clientSecret: null,
    scope: [...PERMISSION_SCOPES],
    authorizedGrantTypes: ['password', 'refresh_token', 'authorization_code'],
    redirectUris: [],
    authorities: [],
    accessTokenValidity: settings.accessTokenValiditySeconds,
    refreshTokenValidity: settings.refreshTokenValiditySeconds,
    additionalInformation: { protected: true },
    autoApprove: [...PERMISSION_SCOPES],
  });
}
