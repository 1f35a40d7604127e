/**
 * Use cases of `/api/oauth-clients` (the reference's `OAuthClientService`, managementportal.md
 * §2.10). Secrets are bcrypt-hashed and never returned; `additionalInformation` values are kept
 * as strings, as the reference's DTO does; a client whose `protected` is `"true"` cannot be
 * changed or deleted through the API. Every change invalidates the client store's cache, so the
 * token endpoint of this instance sees it at once (other instances within the cache's 5 s).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../platform/database.js';
import { Conflict, ErrorVmException, Forbidden, NotFound } from '../../errors.js';
import { findUserByLogin } from '../../security/queries.js';
import type { ClientStore } from '../../oauth/clients/client-store.js';
import { hashPassword } from '../../security/passwords.js';
import { SECRETLESS_CLIENT_CREDENTIALS, secretlessClientCredentials } from '../../oauth/clients/startup.js';
import { recordInTx, type AuditEvent } from '../../audit/audit-log.js';
import { entityChangeEvent, type ChangeAuthor } from '../../audit/changes.js';
import { deleteClient, findClient, insertClient, listClients, updateClient } from '../../oauth/clients/queries.js';
import type { ClientDetailsDtoT, ClientDetailsInputT } from './schemas.js';
import type { OAuthClientRow } from '../../schema.js';

const ENTITY = 'oauthClient';

const stringValue = (v: unknown): string => (typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
const stringMap = (info: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(info).map(([k, v]) => [k, stringValue(v)]));

export function toClientDetailsDto(row: OAuthClientRow): ClientDetailsDtoT {
  const all = row.autoApprove.includes('true');
  return {
    clientId: row.clientId,
    clientSecret: null,
    scope: row.scope,
    resourceIds: row.resourceIds,
    authorizedGrantTypes: row.authorizedGrantTypes,
    autoApproveScopes: row.scope.filter((s) => all || row.autoApprove.includes(s)),
    accessTokenValiditySeconds: row.accessTokenValidity,
    refreshTokenValiditySeconds: row.refreshTokenValidity,
    authorities: row.authorities,
    registeredRedirectUri: row.redirectUris,
    additionalInformation: stringMap(row.additionalInformation),
  };
}

const isProtected = (row: OAuthClientRow) => stringValue(row.additionalInformation.protected ?? '').toLowerCase() === 'true';

const notFound = (clientId: string) => new NotFound('Client not found for client-id', ENTITY, 'error.oAuthClientIdNotFound', { clientId });

/** The columns an input sets, apart from the id and the secret. */
function columnsOf(input: ClientDetailsInputT) {
  return {
    scope: input.scope ?? [],
    resourceIds: input.resourceIds ?? [],
    authorizedGrantTypes: input.authorizedGrantTypes ?? [],
    autoApprove: input.autoApproveScopes ?? [],
    accessTokenValidity: input.accessTokenValiditySeconds ?? null,
    refreshTokenValidity: input.refreshTokenValiditySeconds ?? null,
    authorities: input.authorities ?? [],
    redirectUris: input.registeredRedirectUri ?? [],
    additionalInformation: stringMap(input.additionalInformation ?? {}),
  };
}

export interface OAuthClientService {
  list(): Promise<ClientDetailsDtoT[]>;
  /** @throws NotFound `error.oAuthClientIdNotFound` */
  get(clientId: string): Promise<ClientDetailsDtoT>;
  /**
   * @throws Conflict `error.clientIdExists` when the id is taken (atomic: one of two racing creates wins);
   *   ErrorVmException 400 `error.clientIdIsLogin` when the id is a user's login (its user tokens would read as the client's own)
   */
  create(input: ClientDetailsInputT, author?: ChangeAuthor): Promise<ClientDetailsDtoT>;
  /**
   * Replaces every field but the secret; a non-null `clientSecret` sets a new one (empty: public).
   * @throws NotFound; Forbidden `error.oAuthClientProtected` for a protected client
   */
  update(input: ClientDetailsInputT, author?: ChangeAuthor): Promise<ClientDetailsDtoT>;
  /** @throws NotFound; Forbidden `error.oAuthClientProtected` for a protected client */
  remove(clientId: string, author?: ChangeAuthor): Promise<void>;
}

/**
 * The audit events of a client's change: `ENTITY_*` (target `oauthClient`, its fields as the API
 * shows them: never the secret) and `SECRET_GENERATED` when a new secret was set.
 */
function auditEvents(author: ChangeAuthor, before: OAuthClientRow | undefined, after: OAuthClientRow | undefined, newSecret: boolean): AuditEvent[] {
  const clientId = (after ?? before)!.clientId;
  const dto = (row: OAuthClientRow | undefined) => row && { ...toClientDetailsDto(row) } as Record<string, unknown>;
  const events = [entityChangeEvent(author, 'oauthClient', clientId, dto(before), dto(after))];
  if (newSecret) events.push({ principal: author.name, type: 'SECRET_GENERATED', address: author.address, target: { type: 'oauthClient', id: clientId }, data: { clientId } });
  return events;
}

export function createOAuthClientService(deps: { db: Database; clients: ClientStore; log?: FastifyBaseLogger }): OAuthClientService {
  const { db, clients } = deps;
  const warnIfSecretless = (row: OAuthClientRow) => {
    if (secretlessClientCredentials(row)) deps.log?.warn({ clientId: row.clientId }, SECRETLESS_CLIENT_CREDENTIALS);
  };

  async function existing(clientId: string): Promise<OAuthClientRow> {
    const row = await findClient(db, clientId);
    if (!row) throw notFound(clientId);
    return row;
  }
  const refuseProtected = (row: OAuthClientRow) => {
    if (isProtected(row)) {
      throw new Forbidden(`Cannot change the protected client ${row.clientId}`, ENTITY, 'error.oAuthClientProtected', { clientId: row.clientId });
    }
  };

  return {
    async list() {
      return (await listClients(db)).map(toClientDetailsDto);
    },
    async get(clientId) {
      return toClientDetailsDto(await existing(clientId));
    },
    async create(input, author) {
      if (await findUserByLogin(db, input.clientId)) {
        // ErrorVM, the body the route declares for 400.
        throw new ErrorVmException(400, 'error.clientIdIsLogin', `A user has the login ${input.clientId}; a client may not share it`);
      }
      const secret = input.clientSecret ? await hashPassword(input.clientSecret) : null;
      const row = { clientId: input.clientId, clientSecret: secret, ...columnsOf(input) };
      const created = await db.transaction(async (tx) => {
        if (!await insertClient(tx, row)) {
          throw new Conflict('OAuth client already exists with this id', ENTITY, 'error.clientIdExists', { client_id: input.clientId });
        }
        const inserted = (await findClient(tx, input.clientId))!;
        if (author) await recordInTx(tx, auditEvents(author, undefined, inserted, secret !== null));
        return inserted;
      });
      clients.invalidate(input.clientId); // a cached "unknown client" answer
      warnIfSecretless(created);
      return toClientDetailsDto(created);
    },
    async update(input, author) {
      const before = await existing(input.clientId);
      refuseProtected(before);
      const set: Parameters<typeof updateClient>[2] = columnsOf(input);
      // Reference bug fixed: the reference re-hashed the stored hash when no new secret was sent.
      if (input.clientSecret !== undefined && input.clientSecret !== null) {
        set.clientSecret = input.clientSecret === '' ? null : await hashPassword(input.clientSecret);
      }
      const row = await db.transaction(async (tx) => {
        const updated = await updateClient(tx, input.clientId, set);
        if (updated && author) await recordInTx(tx, auditEvents(author, before, updated, typeof set.clientSecret === 'string'));
        return updated;
      });
      clients.invalidate(input.clientId);
      if (!row) throw notFound(input.clientId);
      warnIfSecretless(row);
      return toClientDetailsDto(row);
    },
    async remove(clientId, author) {
      const before = await existing(clientId);
      refuseProtected(before);
      const deleted = await db.transaction(async (tx) => {
        const gone = await deleteClient(tx, clientId);
        if (gone && author) await recordInTx(tx, auditEvents(author, before, undefined, false));
        return gone;
      });
      clients.invalidate(clientId);
      if (!deleted) throw notFound(clientId);
    },
  };
}
