/**
 * The switch-over importer's bookkeeping (issue 32), in `pgSchema('import')`: which target row each
 * imported source row became, and a hash of what was written, so a repeated import updates only
 * what changed in the source and deletes what is gone there. Only `src/import` reads or writes
 * these tables; the running service never does (the migration creates them everywhere, empty).
 */
import { index, jsonb, pgSchema, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamptz } from '../platform/db-columns.js';

export const importSchema = pgSchema('import');

/**
 * One row per imported source row: `source` names the reference (`managementportal`,
 * `appserver`), `source_table` and `source_key` the row there (its id, or the key columns joined
 * by `:`), `target_key` the row it became here (its id; differs from `source_key` only for the
 * rows merged into built-in ones and for roles), `content_hash` the SHA-256 of what was written.
 */
export const importedRows = importSchema.table('imported_rows', {
  source: text('source').notNull(),
  sourceTable: text('source_table').notNull(),
  sourceKey: text('source_key').notNull(),
  targetKey: text('target_key').notNull(),
  contentHash: text('content_hash').notNull(),
  importedAt: timestamptz('imported_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ name: 'imported_rows_pkey', columns: [t.source, t.sourceTable, t.sourceKey] }),
  index('imported_rows_target_idx').on(t.source, t.sourceTable, t.targetKey),
]);

/** Every run that wrote (dry runs write nothing): the source databases it read and its report. */
export const importRuns = importSchema.table('runs', {
  id: text('id').primaryKey(),
  startedAt: timestamptz('started_at').notNull().defaultNow(),
  finishedAt: timestamptz('finished_at'),
  sources: jsonb('sources').$type<Record<string, string>>().notNull(),
  report: jsonb('report').$type<Record<string, unknown>>(),
});
