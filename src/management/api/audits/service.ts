/**
 * Use cases of `/management/audits` (the reference's `AuditEventService`) and of the admin UI's
 * audit page. Sign-ins and grants are written in batches after the request that caused them
 * (audit-log.ts); reading first writes what is queued, so a caller sees its own sign-in.
 *
 * Reference bug fixed: a date range ended at `toDate` 23:59:00, losing the day's last minute; here
 * it ends before the next day. Dates are UTC days (the reference used the server's zone).
 */
import type { Database } from '../../../platform/database.js';
import { NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { findAuditEvent, listAuditEvents, searchAuditEvents, type AuditFilter, type AuditSort } from './queries.js';
import type { AuditEventDtoT, AuditFilterQueryT } from './schemas.js';
import type { AuditEventRow, AuditFieldChange } from '../../schema.js';

const DAY_MS = 86_400_000;
/** The most events one CSV export holds (newest first); a narrower filter gets the rest. */
export const CSV_EXPORT_LIMIT = 100_000;

const auditEventDto = (row: AuditEventRow): AuditEventDtoT =>
  ({ timestamp: row.eventDate.toISOString(), principal: row.principal, type: row.eventType, data: row.data });

/** An event with everything the audit trail records (the admin UI's page and its CSV). */
export interface AuditTrailEvent {
  id: number;
  timestamp: string;
  principal: string;
  type: string;
  address: string | null;
  targetType: string | null;
  target: string | null;
  data: Record<string, string>;
  changes: Record<string, AuditFieldChange> | null;
}

const trailEvent = (row: AuditEventRow): AuditTrailEvent => ({
  id: row.id, timestamp: row.eventDate.toISOString(), principal: row.principal, type: row.eventType,
  address: row.actorAddress, targetType: row.targetType, target: row.targetId, data: row.data, changes: row.changes,
});

/** The days `fromDate` to `toDate` (both included, UTC) plus the other filters. */
export type AuditQuery = { fromDate?: string | undefined; toDate?: string | undefined } & AuditFilterQueryT;

function filterOf(query: AuditQuery): AuditFilter {
  return {
    from: query.fromDate ? new Date(`${query.fromDate}T00:00:00Z`) : undefined,
    until: query.toDate ? new Date(new Date(`${query.toDate}T00:00:00Z`).getTime() + DAY_MS) : undefined,
    type: query.type || undefined,
    principal: query.principal || undefined,
    targetType: query.targetType || undefined,
    targetId: query.target || undefined,
  };
}

const csvCell = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  // Quoted always; a leading formula character is neutralised so a spreadsheet never runs it.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
};

export const CSV_HEADER = ['id', 'timestamp', 'principal', 'type', 'address', 'targetType', 'target', 'data', 'changes'] as const;

export interface AuditService {
  /** Events of the days `fromDate` to `toDate` (both included, either optional), filtered. */
  list(query: AuditQuery, page: Page<AuditSort>): Promise<{ events: AuditEventDtoT[]; total: number }>;
  /** @throws NotFound `error.entityNotFound` */
  get(id: number): Promise<AuditEventDtoT>;
  /**
   * Keyset page, newest first: `size` events with an id below `before`, and the `before` of the
   * next page (null on the last).
   */
  search(query: AuditQuery, before: number | undefined, size: number): Promise<{ events: AuditTrailEvent[]; next: number | null }>;
  /** The filtered events as CSV (RFC 4180, header first, newest first, at most `CSV_EXPORT_LIMIT`). */
  csv(query: AuditQuery): Promise<string>;
}

export function createAuditService(deps: { db: Database; audit: AuditLog }): AuditService {
  const { db, audit } = deps;
  return {
    async list(query, page) {
      await audit.flush();
      const { rows, total } = await listAuditEvents(db, filterOf(query), page);
      return { events: rows.map(auditEventDto), total };
    },
    async get(id) {
      await audit.flush();
      const row = await findAuditEvent(db, id);
      if (!row) throw new NotFound('Audit event not found with id', 'audit', 'error.entityNotFound', { id: String(id) });
      return auditEventDto(row);
    },
    async search(query, before, size) {
      await audit.flush();
      const rows = await searchAuditEvents(db, filterOf(query), before, size + 1);
      const page = rows.slice(0, size);
      return { events: page.map(trailEvent), next: rows.length > size ? page[page.length - 1]!.id : null };
    },
    async csv(query) {
      await audit.flush();
      const rows = await searchAuditEvents(db, filterOf(query), undefined, CSV_EXPORT_LIMIT);
      const lines = [CSV_HEADER.join(',')];
      for (const row of rows) {
        const e = trailEvent(row);
        lines.push([e.id, e.timestamp, e.principal, e.type, e.address, e.targetType, e.target, e.data, e.changes].map(csvCell).join(','));
      }
      return `${lines.join('\r\n')}\r\n`;
    },
  };
}
