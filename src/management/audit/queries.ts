/** SQL of the audit log's writes (api/audits/queries.ts reads the events). */
import { lt } from 'drizzle-orm';
import { bulkInsertStatement, rowJson } from '../../platform/bulk-insert.js';
import { affectedRows, type Executor } from '../../platform/database.js';
import { auditEvents, type AuditFieldChange } from '../schema.js';

const COLUMNS = ['principal', 'eventType', 'data', 'eventDate', 'actorAddress', 'targetType', 'targetId', 'changes'] as const;
/** Built once: the batches of a busy token endpoint reuse it. */
const insertEvents = bulkInsertStatement(auditEvents, COLUMNS, { returning: ['id'] });

/** One event as `insertAuditEvents` takes it (values in `COLUMNS` order), serialized when recorded (see audit-log.ts). */
export const auditEventJson = (
  principal: string, eventType: string, data: Record<string, string>, eventDate: Date,
  actorAddress: string | null = null, targetType: string | null = null, targetId: string | null = null,
  changes: Record<string, AuditFieldChange> | null = null,
): string => rowJson([principal, eventType, data, eventDate, actorAddress, targetType, targetId, changes]);

/** Inserts events serialized by `auditEventJson` in one statement. */
export async function insertAuditEvents(db: Executor, events: readonly string[]): Promise<void> {
  if (events.length === 0) return;
  await db.execute(insertEvents(`[${events.join(',')}]`));
}

/** Deletes the events older than `before`; returns how many. */
export async function deleteAuditEventsBefore(db: Executor, before: Date): Promise<number> {
  return affectedRows(await db.delete(auditEvents).where(lt(auditEvents.eventDate, before)));
}
