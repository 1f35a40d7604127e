/**
 * Audit events (the reference's `jhi_persistent_audit_event`). `record` never blocks the caller:
 * events are queued and written in batches right after the current turn of the event loop, so a
 * burst of token requests costs one INSERT per batch. A failed write is logged with its SQLSTATE
 * and the events are dropped (auditing must not fail a token request). `close` writes what is
 * queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/database.js';
import { sqlState } from '../../platform/database.js';
import { auditEvents } from '../schema.js';
import { bulkInsert } from '../../platform/bulk-insert.js';

export interface AuditEvent {
  principal: string;
  type: 'GRANT_ACCESS_TOKEN' | 'AUTHENTICATION_SUCCESS' | 'AUTHENTICATION_FAILURE' | 'PAIR_CLIENT_REQUEST' | 'SUBJECT_DISCONTINUE';
  data: Record<string, string>;
  date?: Date;
}

export interface AuditLog {
  record(event: AuditEvent): void;
  /** Resolves when everything recorded so far is written (or has failed and been logged). */
  flush(): Promise<void>;
}

const MAX_BATCH = 500;

export function createAuditLog(deps: { db: Database; log: FastifyBaseLogger }): AuditLog {
  let queue: (typeof auditEvents.$inferInsert)[] = [];
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();

  function write(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    writing = writing.then(async () => {
      for (let i = 0; i < batch.length; i += MAX_BATCH) {
        const chunk = batch.slice(i, i + MAX_BATCH);
        try {
          // One JSON parameter per batch: Drizzle's values() builds a bound parameter per value.
          await bulkInsert(deps.db, auditEvents, ['principal', 'eventType', 'data', 'eventDate'], chunk, { returning: ['id'] });
        } catch (err) {
          deps.log.error({ sqlState: sqlState(err), events: chunk.length }, 'audit events not written');
        }
      }
    });
  }

  return {
    record(event) {
      queue.push({ principal: event.principal, eventType: event.type, data: event.data, eventDate: event.date ?? new Date() });
      if (!scheduled) {
        scheduled = true;
        setImmediate(write);
      }
    },
    async flush() {
      if (scheduled) write();
      await writing;
    },
  };
}
