/** SQL of the audit log's writes (api/audits/queries.ts reads the events). */
import { bulkInsertStatement, rowJson } from '../../platform/bulk-insert.js';
import type { Executor } from '../../platform/database.js';
import { auditEvents } from '../schema.js';

/** Built once: the batches of a busy token endpoint reuse it. */
const insertEvents = bulkInsertStatement(auditEvents, ['principal', 'eventType', 'data', 'eventDate'], { returning: ['id'] });

/** One event as `insertAuditEvents` takes it, serialized when recorded (see audit-log.ts). */
export const auditEventJson = (principal: string, eventType: string, data: Record<string, string>, eventDate: Date): string =>
  rowJson([principal, eventType, data, eventDate]);

/** Inserts events serialized by `auditEventJson` in one statement. */
export async function insertAuditEvents(db: Executor, events: readonly string[]): Promise<void> {
  await db.execute(insertEvents(`[${events.join(',')}]`));
}
