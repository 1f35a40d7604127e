/**
 * Audit events (the reference's `jhi_persistent_audit_event`). `record` never blocks the caller:
 * events are queued and written in batches at most `AUDIT_FLUSH_MS` later, so a burst of token
 * requests costs one INSERT per batch. A failed write is logged with its SQLSTATE
 * and the events are dropped (auditing must not fail a token request). `close` writes what is
 * queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/database.js';
import { sqlState } from '../../platform/database.js';
import { auditEventJson, insertAuditEvents } from './queries.js';

export interface AuditEvent {
  principal: string;
  type: 'GRANT_ACCESS_TOKEN' | 'AUTHENTICATION_SUCCESS' | 'AUTHENTICATION_FAILURE' | 'PAIR_CLIENT_REQUEST' | 'SUBJECT_DISCONTINUE' | 'LOGGER_LEVEL_CHANGED';
  data: Record<string, string>;
  date?: Date;
}

export interface AuditLog {
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

export function createAuditLog(deps: { db: Database; log: FastifyBaseLogger }): AuditLog {
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
      queue.push(auditEventJson(event.principal, event.type, event.data, event.date ?? new Date()));
      if (queue.length >= MAX_BATCH) write();
      else timer ??= setTimeout(write, AUDIT_FLUSH_MS);
    },
    async flush() {
      if (queue.length > 0) write();
      await writing;
    },
  };
}
