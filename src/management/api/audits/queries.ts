/** Reading audit events (audit-log.ts writes them) for `/management/audits`. */
import { and, asc, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import type { Page } from '../../http/paging.js';
import { auditEvents, type AuditEventRow } from '../../schema.js';


/** Sortable properties: the reference entity's names and the DTO's. */
export const AUDIT_SORTS = ['id', 'auditEventDate', 'timestamp', 'principal', 'auditEventType', 'type'] as const;
export type AuditSort = (typeof AUDIT_SORTS)[number];

const sortColumns = {
  id: auditEvents.id, auditEventDate: auditEvents.eventDate, timestamp: auditEvents.eventDate,
  principal: auditEvents.principal, auditEventType: auditEvents.eventType, type: auditEvents.eventType,
} as const;

/** Which events: `from <= event_date < until`, kind, actor, target (each optional, all must hold). */
export interface AuditFilter {
  from?: Date | undefined;
  until?: Date | undefined;
  type?: string | undefined;
  principal?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
}

function whereOf(filter: AuditFilter): SQL | undefined {
  const conditions: SQL[] = [];
  // With a target, its index finds the target's few events and the dates only filter those. Compared
  // as the bare column, the dates matched the date index too, and the prepared statement's generic
  // plan (which cannot see how wide the range is) combined both indexes: a bitmap of every event in
  // the range, ~300 ms a page over 1,000,000 events (bench/ui-audit-page.mjs). An expression of the
  // column keeps the date index out of such a plan.
  const since = (at: Date) => (filter.targetId ? sql`${auditEvents.eventDate} + interval '0 s' >= ${at.toISOString()}::timestamptz` : gte(auditEvents.eventDate, at));
  const before = (at: Date) => (filter.targetId ? sql`${auditEvents.eventDate} + interval '0 s' < ${at.toISOString()}::timestamptz` : lt(auditEvents.eventDate, at));
  if (filter.from) conditions.push(since(filter.from));
  if (filter.until) conditions.push(before(filter.until));
  if (filter.type) conditions.push(eq(auditEvents.eventType, filter.type));
  if (filter.principal) conditions.push(eq(auditEvents.principal, filter.principal));
  if (filter.targetType) conditions.push(eq(auditEvents.targetType, filter.targetType));
  if (filter.targetId) conditions.push(eq(auditEvents.targetId, filter.targetId));
  return and(...conditions);
}

/**
 * Keyset page: the newest `limit` filtered events with an id below `beforeId` (all when absent),
 * newest first. Served by the primary key, or by `audit_events_target_idx` for a target.
 */
export async function searchAuditEvents(db: Executor, filter: AuditFilter, beforeId: number | undefined, limit: number): Promise<AuditEventRow[]> {
  const where = and(whereOf(filter), beforeId !== undefined ? lt(auditEvents.id, beforeId) : undefined);
  return db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.id)).limit(limit);
}

/** Filtered events, one page (offset) and the total. */
export async function listAuditEvents(db: Executor, filter: AuditFilter, page: Page<AuditSort>): Promise<{ rows: AuditEventRow[]; total: number }> {
  const where = whereOf(filter);
  const order = [...page.sort.map((s) => (s.direction === 'asc' ? asc : desc)(sortColumns[s.property])), asc(auditEvents.id)];
  const [rows, [total]] = await Promise.all([
    db.select().from(auditEvents).where(where).orderBy(...order).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(auditEvents).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function findAuditEvent(db: Executor, id: number): Promise<AuditEventRow | undefined> {
  const [row] = await db.select().from(auditEvents).where(eq(auditEvents.id, id)).limit(1);
  return row;
}
