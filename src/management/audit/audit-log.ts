/**
 * Audit events (the reference's `jhi_persistent_audit_event`, issue 31 item 8). Two writers:
 *
 * - `AuditLog.record` never blocks the caller: events are queued and written in batches at most
 *   `AUDIT_FLUSH_MS` later, so a burst of token requests or sign-ins costs one INSERT per batch. A
 *   failed write is logged with its SQLSTATE and the events are dropped (auditing must not fail a
 *   token request). `flush` writes what is queued; the domain plugin flushes on close, so a clean
 *   shutdown loses nothing.
 * - `recordInTx` writes in the caller's transaction: a change's events commit with the change and
 *   vanish with it when it rolls back.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../../platform/database.js';
import { sqlState } from '../../platform/database.js';
import type { AuditFieldChange } from '../schema.js';
import { auditEventJson, insertAuditEvents } from './queries.js';

/**
 * The kinds of event, named as the reference names its own (`AUTHENTICATION_SUCCESS`…). Add a
 * kind here (and to the README's list); the table stores it as text.
 */
export const AUDIT_EVENT_TYPES = [
  // Sign-ins: the admin UI's, the OAuth sign-in page's and password grants.
  'AUTHENTICATION_SUCCESS', 'AUTHENTICATION_FAILURE', 'AUTHENTICATION_LOCKED', 'LOGOUT', 'SESSION_EXPIRED',
  // Tokens and pairing.
  'GRANT_ACCESS_TOKEN', 'PAIR_CLIENT_REQUEST', 'META_TOKEN_CREATED', 'META_TOKEN_READ',
  // Changes (data: entityType; target: the entity; changes: the fields).
  'ENTITY_CREATED', 'ENTITY_UPDATED', 'ENTITY_DELETED', 'SUBJECT_DISCONTINUE',
  // Credentials and messages.
  'SECRET_GENERATED', 'PASSWORD_CHANGED', 'PASSWORD_RESET', 'ACTIVATION_MAIL_SENT', 'TEST_NOTIFICATION_SENT',
  // Operations: a log level changed at run time (management endpoints, actuator).
  'LOGGER_LEVEL_CHANGED',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** What an event is about: an entity type (`subject`, `user`, `oauthClient`…) and its id, login or name. */
export interface AuditTarget { type: string; id: string }

export interface AuditEvent {
  /** The actor: a user's login, or a client id. */
  principal: string;
  type: AuditEventType;
  /** String values only (the reference's `AuditEvent.data`); never a secret. */
  data: Record<string, string>;
  date?: Date;
  /** The actor's address (`request.ip`: the socket's, or X-Forwarded-For's behind a trusted proxy). */
  address?: string | undefined;
  target?: AuditTarget | undefined;
  /** For a change: the fields changed (see changes.ts `diffFields`, which leaves secrets out). */
  changes?: Record<string, AuditFieldChange> | undefined;
}

export interface AuditLog {
  /** Queues the event (batched writer): for sign-ins and grants, which must not wait for the database. */
  record(event: AuditEvent): void;
  /** Resolves when everything recorded so far is written (or has failed and been logged). */
  flush(): Promise<void>;
}

const MAX_BATCH = 500;
/**
 * How long an event may wait for others to share its INSERT. Token requests arrive in bursts of a
 * few per event-loop turn; one INSERT per turn cost a busy token endpoint a fifth of its
 * throughput, one per 100 ms costs almost nothing.
 */
export const AUDIT_FLUSH_MS = 100;

const eventJson = (event: AuditEvent, at: Date): string => auditEventJson(
  event.principal, event.type, event.data, event.date ?? at, event.address ?? null,
  event.target?.type ?? null, event.target?.id ?? null, event.changes ?? null,
);

/**
 * Writes `events` in the transaction `tx` (one INSERT): they commit with the change they record,
 * and roll back with it.
 */
export async function recordInTx(tx: Executor, events: AuditEvent | readonly AuditEvent[], at: Date = new Date()): Promise<void> {
  const list = Array.isArray(events) ? events as readonly AuditEvent[] : [events as AuditEvent];
  await insertAuditEvents(tx, list.map((e) => eventJson(e, at)));
}

export function createAuditLog(deps: { db: Database; log: FastifyBaseLogger; now?: () => number }): AuditLog {
  const now = deps.now ?? Date.now;
  /** Each event serialized as it is recorded: one small string per event waits, not an object graph. */
  let queue: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  function write(): void {
    clearTimeout(timer);
    timer = undefined;
    const batch = queue;
    queue = [];
    writing = writing.then(async () => {
      for (let i = 0; i < batch.length; i += MAX_BATCH) {
        const chunk = batch.slice(i, i + MAX_BATCH);
        try {
          await insertAuditEvents(deps.db, chunk);
        } catch (err) {
          deps.log.error({ sqlState: sqlState(err), events: chunk.length }, 'audit events not written');
        }
      }
    });
  }

  return {
    record(event) {
      queue.push(eventJson(event, new Date(now())));
      if (queue.length >= MAX_BATCH) write();
      else timer ??= setTimeout(write, AUDIT_FLUSH_MS);
    },
    async flush() {
      if (queue.length > 0) write();
      await writing;
    },
  };
}
