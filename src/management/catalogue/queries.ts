/**
 * SQL of the catalogue import. The inserts skip rows that hit a unique index, so instances
 * importing at the same time each create a row at most once (the loser of a race waits for the
 * winner's transaction and then inserts nothing).
 */
import type { Executor } from '../../platform/database.js';
import { sourceData, sourceTypes, type SourceDataRow, type SourceTypeRow } from '../schema.js';

/** `tupleKey` of every source type's (producer, model, catalogVersion); the table holds a catalogue's worth of rows. */
export async function sourceTypeKeys(db: Executor): Promise<Set<string>> {
  const rows = await db.select({ p: sourceTypes.producer, m: sourceTypes.model, v: sourceTypes.catalogVersion }).from(sourceTypes);
  return new Set(rows.map((r) => tupleKey(r.p, r.m, r.v)));
}

/** An unambiguous set key (the parts may contain spaces). */
export const tupleKey = (producer: string, model: string, catalogVersion: string): string => JSON.stringify([producer, model, catalogVersion]);

/** Inserts the type unless (producer, model, catalogVersion) exists; undefined when it did. */
export async function insertSourceTypeIfAbsent(db: Executor, row: typeof sourceTypes.$inferInsert): Promise<SourceTypeRow | undefined> {
  const [inserted] = await db.insert(sourceTypes).values(row)
    .onConflictDoNothing({ target: [sourceTypes.producer, sourceTypes.model, sourceTypes.catalogVersion] })
    .returning();
  return inserted;
}

/** Inserts the source data whose names are free; returns those inserted. */
export async function insertSourceDataIfAbsent(db: Executor, rows: readonly (typeof sourceData.$inferInsert)[]): Promise<SourceDataRow[]> {
  if (rows.length === 0) return [];
  return db.insert(sourceData).values([...rows]).onConflictDoNothing({ target: sourceData.sourceDataName }).returning();
}
