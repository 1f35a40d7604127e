/**
 * Use cases of `/management/audits` (the reference's `AuditEventService`). Events are written in
 * batches after the request that caused them (audit-log.ts); reading first writes what is queued,
 * so a caller sees its own sign-in.
 *
 * Reference bug fixed: a date range ended at `toDate` 23:59:00, losing the day's last minute; here
 * it ends before the next day. Dates are UTC days (the reference used the server's zone).
 */
import type { Database } from '../../../platform/database.js';
import { NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { findAuditEvent, listAuditEvents, type AuditSort } from './queries.js';
import type { AuditEventDtoT } from './schemas.js';
import type { AuditEventRow } from '../../schema.js';

const DAY_MS = 86_400_000;

const auditEventDto = (row: AuditEventRow): AuditEventDtoT =>
  ({ timestamp: row.eventDate.toISOString(), principal: row.principal, type: row.eventType, data: row.data });

export interface AuditService {
  /** Events of the days `fromDate` to `toDate` (both included, either optional). */
  list(range: { fromDate?: string; toDate?: string }, page: Page<AuditSort>): Promise<{ events: AuditEventDtoT[]; total: number }>;
  /** @throws NotFound `error.entityNotFound` */
  get(id: number): Promise<AuditEventDtoT>;
}

export function createAuditService(deps: { db: Database; audit: AuditLog }): AuditService {
  const { db, audit } = deps;
  return {
    async list(range, page) {
      await audit.flush();
      const from = range.fromDate !== undefined ? new Date(`${range.fromDate}T00:00:00Z`) : undefined;
      const until = range.toDate !== undefined ? new Date(new Date(`${range.toDate}T00:00:00Z`).getTime() + DAY_MS) : undefined;
      const { rows, total } = await listAuditEvents(db, { from, until }, page);
      return { events: rows.map(auditEventDto), total };
    },
    async get(id) {
      await audit.flush();
      const row = await findAuditEvent(db, id);
      if (!row) throw new NotFound('Audit event not found with id', 'audit', 'error.entityNotFound', { id: String(id) });
      return auditEventDto(row);
    },
  };
}
