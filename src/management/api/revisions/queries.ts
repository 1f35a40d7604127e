/**
 * SQL of entity history (the reference's Envers audit, managementportal.md §7). Every create,
 * update and delete of a project, subject, source, source type, user or role writes one revision
 * (author, time) with the entity's DTO after the change — before it, for a delete — in the same
 * transaction as the change (`recordRevision`); `/api/revisions` reads them.
 */
import { asc, count, desc, eq, inArray, and } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import type { Page } from '../../http/paging.js';
import { revisionChanges, revisions, type RevisionType, type RevisionRow } from '../../schema.js';
import { recordInTx, type AuditEvent } from '../../audit/audit-log.js';
import { entityChangeEvent, type ChangeAuthor } from '../../audit/changes.js';


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

export type { ChangeAuthor };

/** The entity's DTO as its latest revision recorded it (before the one being written). */
async function previousEntity(db: Executor, entityType: string, entityId: number): Promise<Record<string, unknown> | undefined> {
  const [row] = await db.select({ entity: revisionChanges.entity }).from(revisionChanges)
    .where(and(eq(revisionChanges.entityType, entityType), eq(revisionChanges.entityId, entityId)))
    .orderBy(desc(revisionChanges.revisionId)).limit(1);
  return row?.entity;
}

/**
 * Writes one revision with its changes, and an audit event per change (`ENTITY_CREATED`,
 * `_UPDATED`, `_DELETED`, with the fields changed since the entity's previous revision, secrets
 * left out); returns the revision id. Call inside the change's transaction: all of it commits or
 * rolls back with the change.
 */
export async function recordRevision(db: Executor, author: string | ChangeAuthor, changes: readonly EntityChange[], at?: Date): Promise<number> {
  const who: ChangeAuthor = typeof author === 'string' ? { name: author } : author;
  const when = at ?? new Date();
  const events: AuditEvent[] = [];
  for (const c of changes) {
    const entity = JSON.parse(JSON.stringify(c.entity)) as Record<string, unknown>;
    const before = c.revisionType === 'ADD' ? undefined : await previousEntity(db, c.entityType, c.entityId);
    const target = c.entityKey ?? String(c.entityId);
    events.push(c.revisionType === 'DEL'
      ? entityChangeEvent(who, c.entityType, target, entity, undefined, { entityId: String(c.entityId) }, when)
      : entityChangeEvent(who, c.entityType, target, c.revisionType === 'ADD' ? undefined : before ?? {}, entity, { entityId: String(c.entityId) }, when));
  }
  const [revision] = await db.insert(revisions).values({ author: who.name, ...(at ? { timestamp: at } : {}) }).returning({ id: revisions.id });
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
    await recordInTx(db, events, when);
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
