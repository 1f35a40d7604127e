import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { protocolFiles, type ProtocolFileRow } from '../schema.js';

export const listProtocolFileRows = (db: Executor, source: string): Promise<ProtocolFileRow[]> =>
  db.select().from(protocolFiles).where(eq(protocolFiles.source, source));

/** Stores new and changed files; returns the paths whose content this call changed (none when another instance stored them first). */
export async function saveProtocolFiles(db: Executor, rows: ProtocolFileRow[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const saved = await db.insert(protocolFiles).values(rows).onConflictDoUpdate({
    target: [protocolFiles.source, protocolFiles.path],
    set: { sha: sql`excluded.sha`, content: sql`excluded.content`, fetchedAt: sql`excluded.fetched_at` },
    setWhere: sql`${protocolFiles.sha} <> excluded.sha`,
  }).returning({ path: protocolFiles.path });
  return saved.map((r) => r.path);
}

/** Deletes the files of these paths; returns the paths it deleted. */
export async function deleteProtocolFiles(db: Executor, source: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const deleted = await db.delete(protocolFiles).where(and(eq(protocolFiles.source, source), inArray(protocolFiles.path, paths))).returning({ path: protocolFiles.path });
  return deleted.map((r) => r.path);
}
