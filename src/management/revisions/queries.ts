/** Reading entity history (revisions/record.ts writes it) for `/api/revisions`. */
import { asc, count, desc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import type { Page } from '../http/paging.js';
import { revisionChanges, revisions } from '../schema.js';

export type RevisionRow = typeof revisions.$inferSelect;

/** Sortable properties; `auditor` is the reference's name for the author (the UI sorts by it). */
export const REVISION_SORTS = ['id', 'timestamp', 'author', 'auditor'] as const;
export type RevisionSort = (typeof REVISION_SORTS)[number];

const sortColumns = { id: revisions.id, timestamp: revisions.timestamp, author: revisions.author, auditor: revisions.author } as const;

export async function listRevisions(db: Executor, page: Page<RevisionSort>): Promise<{ rows: RevisionRow[]; total: number }> {
  const order = [...page.sort.map((s) => (s.direction === 'asc' ? asc : desc)(sortColumns[s.property])), asc(revisions.id)];
  const [rows, [total]] = await Promise.all([
    db.select().from(revisions).orderBy(...order).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(revisions),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function findRevision(db: Executor, id: number): Promise<RevisionRow | undefined> {
  const [row] = await db.select().from(revisions).where(eq(revisions.id, id)).limit(1);
  return row;
}

/** The changes of many revisions at once, in the order they were recorded. */
export async function changesOfRevisions(db: Executor, revisionIds: readonly number[]) {
  if (revisionIds.length === 0) return [];
  return db.select({
    revisionId: revisionChanges.revisionId,
    entityType: revisionChanges.entityType,
    revisionType: revisionChanges.revisionType,
    entity: revisionChanges.entity,
  }).from(revisionChanges).where(inArray(revisionChanges.revisionId, [...revisionIds])).orderBy(asc(revisionChanges.id));
}
