/**
 * Use cases of `/api/source-data` (the reference's `SourceDataResource` and `SourceDataService`,
 * managementportal.md §2.7). Source-data names are unique; `sourceDataType` defaults to `topic`.
 * Source data are part of their source type's history: a change records a `sourceType` revision
 * of each type it touches (before and after a move), in the same transaction.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { BadRequest, NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import { recordRevision, type ChangeAuthor } from '../revisions/queries.js';
import { loadSourceTypeDtos } from '../source-types/queries.js';
import { sourceDataDto, type SourceDataDtoT } from '../source-types/dto.js';
import {
  deleteSourceData, findSourceDataById, findSourceDataByName, findSourceTypeById, insertSourceData, pageSourceData,
  updateSourceData, type SourceDataSort,
} from '../source-types/queries.js';
import type { SourceDataInputT } from '../source-types/schemas.js';
import { displayName, requireFreeSourceDataNames, sourceDataColumns } from '../source-types/service.js';
import type { SourceTypeRow } from '../../schema.js';

const ENTITY = 'sourceData';
const OBJECT = 'sourceDataDTO';

const notFound = (params: Record<string, string>) => new NotFound('SourceData not found', ENTITY, 'error.entityNotFound', params);

export interface SourceDataService {
  list(page: Page<SourceDataSort>): Promise<{ items: SourceDataDtoT[]; total: number }>;
  /** @throws NotFound `error.entityNotFound` */
  get(name: string): Promise<SourceDataDtoT>;
  /** @throws BadRequest `error.idexists`; Conflict `error.sourceDataNameAvailable`; NotFound `error.sourceTypeNotFound` */
  create(input: SourceDataInputT, author: ChangeAuthor): Promise<SourceDataDtoT>;
  /** Replaces every field of source data `input.id`. @throws NotFound; Conflict as `create` */
  update(input: SourceDataInputT & { id: number }, author: ChangeAuthor): Promise<SourceDataDtoT>;
  /** @throws NotFound `error.entityNotFound` */
  remove(name: string, author: ChangeAuthor): Promise<void>;
}

export function createSourceDataService(deps: { db: Database; now: () => number }): SourceDataService {
  const { db, now } = deps;

  async function typeOf(tx: Executor, input: SourceDataInputT): Promise<SourceTypeRow | null> {
    const id = input.sourceType?.id;
    if (id == null) return null;
    const type = await findSourceTypeById(tx, id);
    if (!type) throw new NotFound('SourceType not found with id', 'sourceType', 'error.sourceTypeNotFound', { id: String(id) });
    return type;
  }

  /** One `sourceType` MOD revision per type whose source data changed (its DTO after the change). */
  async function recordTypes(tx: Executor, author: ChangeAuthor, typeIds: readonly (number | null)[]): Promise<void> {
    const ids = [...new Set(typeIds.filter((id): id is number => id !== null))];
    if (ids.length === 0) return;
    const dtos = await loadSourceTypeDtos(tx, ids);
    await recordRevision(tx, author, dtos.map((dto) => ({ entityType: 'sourceType' as const, entityId: dto.id, entityKey: displayName(dto), revisionType: 'MOD' as const, entity: dto })), new Date(now()));
  }

  return {
    async list(page) {
      const { rows, total } = await pageSourceData(db, page);
      return { items: rows.map(({ data, type }) => sourceDataDto(data, type ?? undefined)), total };
    },

    async get(name) {
      const row = await findSourceDataByName(db, name);
      if (!row) throw notFound({ sourceDataName: name });
      const type = row.sourceTypeId === null ? undefined : await findSourceTypeById(db, row.sourceTypeId);
      return sourceDataDto(row, type);
    },

    async create(input, author) {
      const columns = sourceDataColumns(input, OBJECT);
      if (input.id != null) throw new BadRequest('A new sourceData cannot already have an ID', ENTITY, 'error.idexists');
      const at = new Date(now());
      return db.transaction(async (tx) => {
        await requireFreeSourceDataNames(tx, [columns.sourceDataName]);
        const type = await typeOf(tx, input);
        const [row] = await insertSourceData(tx, [{ ...columns, sourceTypeId: type?.id ?? null, createdBy: author.name, createdDate: at, lastModifiedBy: author.name, lastModifiedDate: at }]);
        await recordTypes(tx, author, [row!.sourceTypeId]);
        return sourceDataDto(row!, type ?? undefined);
      });
    },

    async update(input, author) {
      const columns = sourceDataColumns(input, OBJECT);
      const at = new Date(now());
      return db.transaction(async (tx) => {
        const existing = await findSourceDataById(tx, input.id);
        if (!existing) throw notFound({ id: String(input.id) });
        await requireFreeSourceDataNames(tx, [columns.sourceDataName], [existing.id]);
        const type = await typeOf(tx, input);
        const row = await updateSourceData(tx, existing.id, { ...columns, sourceTypeId: type?.id ?? null, lastModifiedBy: author.name, lastModifiedDate: at });
        await recordTypes(tx, author, [existing.sourceTypeId, row!.sourceTypeId]);
        return sourceDataDto(row!, type ?? undefined);
      });
    },

    async remove(name, author) {
      await db.transaction(async (tx) => {
        const row = await findSourceDataByName(tx, name);
        if (!row) throw notFound({ sourceDataName: name });
        await deleteSourceData(tx, [row.id]);
        await recordTypes(tx, author, [row.sourceTypeId]);
      });
    },
  };
}
