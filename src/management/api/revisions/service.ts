/**
 * Use cases of `/api/revisions` (the reference's `RevisionService.getRevisions/getRevision`): each
 * revision with its changes grouped by kind (`ADD`, `MOD`, `DEL`, always all three) and by entity
 * type, named as the reference names them (its DTO class, lower-cased: `sourcetype`).
 */
import type { Database } from '../../../platform/database.js';
import { NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import { changesOfRevisions, findRevision, listRevisions, type RevisionSort } from './queries.js';
import type { RevisionInfoDtoT } from './schemas.js';
import type { RevisionRow } from '../../schema.js';

type Change = Awaited<ReturnType<typeof changesOfRevisions>>[number];

function revisionInfo(row: RevisionRow, changes: readonly Change[]): RevisionInfoDtoT {
  const grouped: RevisionInfoDtoT['changes'] = { ADD: {}, MOD: {}, DEL: {} };
  for (const change of changes) {
    const byEntity = grouped[change.revisionType];
    (byEntity[change.entityType.toLowerCase()] ??= []).push(change.entity);
  }
  return { id: row.id, timestamp: row.timestamp.toISOString(), author: row.author, changes: grouped };
}

export interface RevisionService {
  list(page: Page<RevisionSort>): Promise<{ revisions: RevisionInfoDtoT[]; total: number }>;
  /** @throws NotFound `error.revisionsNotFound` */
  get(id: number): Promise<RevisionInfoDtoT>;
}

export function createRevisionService(deps: { db: Database }): RevisionService {
  const { db } = deps;
  return {
    async list(page) {
      const { rows, total } = await listRevisions(db, page);
      const byRevision = new Map<number, Change[]>(rows.map((r) => [r.id, []]));
      for (const change of await changesOfRevisions(db, rows.map((r) => r.id))) byRevision.get(change.revisionId)?.push(change);
      return { revisions: rows.map((row) => revisionInfo(row, byRevision.get(row.id)!)), total };
    },
    async get(id) {
      const row = await findRevision(db, id);
      if (!row) throw new NotFound('Revision not found with revision id', 'revision', 'error.revisionsNotFound', { 'revision-id': String(id) });
      return revisionInfo(row, await changesOfRevisions(db, [id]));
    },
  };
}
