/** Reading audit events (audit-log.ts writes them) for `/management/audits`. */
import { and, asc, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
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

/** Events with `from <= event_date < until` (either bound optional), one page and the total. */
export async function listAuditEvents(db: Executor, range: { from?: Date; until?: Date }, page: Page<AuditSort>): Promise<{ rows: AuditEventRow[]; total: number }> {
  const conditions: SQL[] = [];
  if (range.from) conditions.push(gte(auditEvents.eventDate, range.from));
  if (range.until) conditions.push(lt(auditEvents.eventDate, range.until));
  const where = and(...conditions);
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
