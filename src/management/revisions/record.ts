/**
 * Recording entity history (the reference's Envers audit, managementportal.md §7): every create,
 * update and delete of a project, subject, source, source type, user or role writes one revision
 * (author, time) with the entity's DTO after the change — before it, for a delete — in the same
 * transaction as the change. Read by the revision endpoints (revisions/routes.ts).
 */
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { revisionChanges, revisions, type RevisionType } from '../schema.js';

/** Entity type names as the reference's `/api/revisions` groups them. */
export type RevisionEntity = 'project' | 'subject' | 'source' | 'sourceType' | 'user' | 'role' | 'organization' | 'group';

export interface EntityChange {
  entityType: RevisionEntity;
  entityId: number;
  /** Natural key for look-ups by path (subject login, project name, source name, user login…). */
  entityKey?: string | null;
  revisionType: RevisionType;
  /** The entity's DTO (JSON-safe). */
  entity: Record<string, unknown>;
}

/** Writes one revision with its changes; returns the revision id. Call inside the change's transaction. */
export async function recordRevision(db: Executor, author: string, changes: readonly EntityChange[], at?: Date): Promise<number> {
  const [revision] = await db.insert(revisions).values({ author, ...(at ? { timestamp: at } : {}) }).returning({ id: revisions.id });
  if (changes.length > 0) {
    await db.insert(revisionChanges).values(changes.map((c) => ({
      revisionId: revision!.id,
      entityType: c.entityType,
      entityId: c.entityId,
      entityKey: c.entityKey ?? null,
      revisionType: c.revisionType,
      // JSON round trip: Dates become ISO strings as the API writes them.
      entity: JSON.parse(JSON.stringify(c.entity)) as Record<string, unknown>,
    })));
  }
  return revision!.id;
}

/** The latest recorded change of an entity by key (e.g. a deleted subject's last DTO), if any. */
export async function latestChangeByKey(db: Executor, entityType: RevisionEntity, entityKey: string) {
  const [row] = await db.select().from(revisionChanges)
    .where(and(eq(revisionChanges.entityType, entityType), eq(revisionChanges.entityKey, entityKey)))
    .orderBy(desc(revisionChanges.revisionId)).limit(1);
  return row;
}
