/**
 * Use cases of `/api/source-types` (the reference's `SourceTypeResource` and `SourceTypeService`,
 * managementportal.md §2.7). A source type is unique by (producer, model, catalogVersion); its
 * `sourceData` are saved with it. Every change records a `sourceType` revision in its transaction.
 *
 * Deviations from the reference: an update that sends `sourceData` replaces the type's topics
 * (ids kept, others removed, new ones added) and one that leaves it out keeps them; a type still
 * referenced by sources cannot be deleted (403 `error.sourceTypeInUse` with `source-names`), where
 * the reference failed on the foreign key with a 500.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import { fieldError, ValidationFailed, type FieldError } from '../../http/validation.js';
import { recordRevision, type ChangeAuthor } from '../revisions/queries.js';
import { sourceTypeDto, type SourceTypeDtoT } from './dto.js';
import {
  deleteSourceData, deleteSourceType, findSourceTypeById, findSourceTypeByKey, insertSourceData, insertSourceType, loadSourceTypeDtos,
  pageSourceTypeIds, projectNamesUsingType, sourceDataNamesTaken, sourceDataOfType, sourceNamesUsingType, sourceTypeKeyTaken, sourceTypesOf,
  updateSourceData, updateSourceType, type SourceTypeSort,
} from './queries.js';
import type { SourceDataInputT, SourceTypeInputT } from './schemas.js';
import type { SourceTypeRow, SourceDataInsert } from '../../schema.js';

const ENTITY = 'sourceType';
const OBJECT = 'sourceTypeDTO';

export interface SourceTypeKey { producer: string; model: string; catalogVersion: string }

/** The alert parameter and revision key: `producer model version`, as the reference shows it. */
export const displayName = (t: SourceTypeKey): string => `${t.producer} ${t.model} ${t.catalogVersion}`;

export const sourceTypeNotFound = (producer: string, model: string, version: string) =>
  new NotFound('SourceType not found with producer, model, version ', ENTITY, 'error.sourceTypeNotFound', { 'producer-model-version': `${producer}-${model}-${version}` });

const exists = (key: SourceTypeKey) => new Conflict(
  'A SourceType with the specified producer, model and version already exists. This combination needs to be unique.', ENTITY, 'error.sourceTypeExists',
  {
    message: 'A SourceType with the specified producer, model and version already exists. This combination needs to be unique.',
    producer: key.producer, model: key.model, catalogVersion: key.catalogVersion,
  },
);

export const sourceDataNameAvailable = (name: string) =>
  new Conflict('SourceData already available with source-name', 'sourceData', 'error.sourceDataNameAvailable', { sourceDataName: name });

/** 400 `error.validation` listing every `@NotNull` field that is missing. */
export function requireFields(objectName: string, fields: Record<string, unknown>): void {
  const missing: FieldError[] = Object.entries(fields).filter(([, v]) => v === null || v === undefined)
    .map(([field]) => ({ objectName, field, message: 'NotNull: must not be null' }));
  if (missing.length > 0) throw new ValidationFailed(missing);
}

type DataColumns = Omit<SourceDataInsert, 'id' | 'sourceTypeId'> & { sourceDataName: string; sourceDataType: string };

/** The columns of a `SourceDataDTO`; `sourceDataType` defaults to `topic` (one of them is required). */
export function sourceDataColumns(input: SourceDataInputT, objectName: string, prefix = ''): DataColumns {
  if (input.sourceDataName == null) throw fieldError(objectName, `${prefix}sourceDataName`, 'NotNull', 'must not be null');
  const sourceDataType = input.sourceDataType ?? input.topic;
  if (sourceDataType == null) throw fieldError(objectName, `${prefix}sourceDataType`, 'NotNull', 'Source Data must contain a type or a topic');
  return {
    sourceDataType, sourceDataName: input.sourceDataName,
    frequency: input.frequency ?? null, unit: input.unit ?? null, processingState: input.processingState ?? null,
    dataClass: input.dataClass ?? null, keySchema: input.keySchema ?? null, valueSchema: input.valueSchema ?? null,
    topic: input.topic ?? null, provider: input.provider ?? null, enabled: input.enabled ?? true,
  };
}

function typeColumns(input: SourceTypeInputT) {
  requireFields(OBJECT, { producer: input.producer, model: input.model, catalogVersion: input.catalogVersion, sourceTypeScope: input.sourceTypeScope });
  return {
    producer: input.producer!, model: input.model!, catalogVersion: input.catalogVersion!, sourceTypeScope: input.sourceTypeScope!,
    canRegisterDynamically: input.canRegisterDynamically ?? false,
    name: input.name ?? null, description: input.description ?? null,
    assessmentType: input.assessmentType ?? null, appProvider: input.appProvider ?? null,
  };
}

/** 409 when a name repeats within `names` or belongs to source data outside `exceptIds`. */
export async function requireFreeSourceDataNames(db: Executor, names: readonly string[], exceptIds: readonly number[] = []): Promise<void> {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw sourceDataNameAvailable(name);
    seen.add(name);
  }
  const [taken] = await sourceDataNamesTaken(db, names, exceptIds);
  if (taken !== undefined) throw sourceDataNameAvailable(taken);
}

/** `SourceTypeDTO` as the producer look-ups return it (the reference's reduced form). */
const reducedDto = (row: SourceTypeRow): SourceTypeDtoT => {
  const { description: _d, assessmentType: _a, appProvider: _p, ...dto } = sourceTypeDto(row, []);
  return dto;
};

export interface SourceTypeService {
  list(page: Page<SourceTypeSort>): Promise<{ items: SourceTypeDtoT[]; total: number }>;
  /** Reduced DTOs (no source data, description, assessment type or app provider) of a producer (and model). */
  listOf(producer: string, model?: string): Promise<SourceTypeDtoT[]>;
  /** @throws NotFound `error.sourceTypeNotFound` */
  get(producer: string, model: string, version: string): Promise<SourceTypeDtoT>;
  /** Creates the type with its source data. @throws BadRequest `error.idexists`; Conflict `error.sourceTypeExists` / `error.sourceDataNameAvailable` */
  create(input: SourceTypeInputT, author: ChangeAuthor): Promise<SourceTypeDtoT>;
  /** Updates the type `input.id`. @throws NotFound; Conflict as `create`; 400 for a source-data id of another type */
  update(input: SourceTypeInputT & { id: number }, author: ChangeAuthor): Promise<SourceTypeDtoT>;
  /** Deletes the type and its source data; returns what was deleted. @throws NotFound; Forbidden `error.sourceTypeInUse` */
  remove(producer: string, model: string, version: string, author: ChangeAuthor): Promise<SourceTypeDtoT>;
}

export function createSourceTypeService(deps: { db: Database; now: () => number }): SourceTypeService {
  const { db, now } = deps;

  async function dtoOf(tx: Executor, id: number): Promise<SourceTypeDtoT> {
    return (await loadSourceTypeDtos(tx, [id]))[0]!;
  }
  const revision = (tx: Executor, author: ChangeAuthor, dto: SourceTypeDtoT, revisionType: 'ADD' | 'MOD' | 'DEL') =>
    recordRevision(tx, author, [{ entityType: 'sourceType', entityId: dto.id, entityKey: displayName(dto), revisionType, entity: dto }], new Date(now()));

  return {
    async list(page) {
      const { ids, total } = await pageSourceTypeIds(db, page);
      return { items: await loadSourceTypeDtos(db, ids), total };
    },

    async listOf(producer, model) {
      return (await sourceTypesOf(db, producer, model)).map(reducedDto);
    },

    async get(producer, model, version) {
      const row = await findSourceTypeByKey(db, producer, model, version);
      if (!row) throw sourceTypeNotFound(producer, model, version);
      return dtoOf(db, row.id);
    },

    async create(input, author) {
      const columns = typeColumns(input);
      const data = (input.sourceData ?? []).map((d, i) => sourceDataColumns(d, OBJECT, `sourceData[${i}].`));
      if (input.id != null) throw new BadRequest('A new sourceType cannot already have an ID', ENTITY, 'error.idexists');
      const at = new Date(now());
      return db.transaction(async (tx) => {
        if (await findSourceTypeByKey(tx, columns.producer, columns.model, columns.catalogVersion)) throw exists(columns);
        await requireFreeSourceDataNames(tx, data.map((d) => d.sourceDataName));
        const row = await insertSourceType(tx, { ...columns, createdBy: author.name, createdDate: at, lastModifiedBy: author.name, lastModifiedDate: at });
        await insertSourceData(tx, data.map((d) => ({ ...d, sourceTypeId: row.id, createdBy: author.name, createdDate: at, lastModifiedBy: author.name, lastModifiedDate: at })));
        const dto = await dtoOf(tx, row.id);
        await revision(tx, author, dto, 'ADD');
        return dto;
      });
    },

    async update(input, author) {
      const columns = typeColumns(input);
      const data = input.sourceData?.map((d, i) => ({ id: d.id ?? null, index: i, columns: sourceDataColumns(d, OBJECT, `sourceData[${i}].`) }));
      const at = new Date(now());
      return db.transaction(async (tx) => {
        if (!await findSourceTypeById(tx, input.id)) {
          throw new NotFound('SourceType not found with id', ENTITY, 'error.sourceTypeNotFound', { id: String(input.id) });
        }
        if (await sourceTypeKeyTaken(tx, columns, input.id)) throw exists(columns);
        await updateSourceType(tx, input.id, { ...columns, lastModifiedBy: author.name, lastModifiedDate: at });
        if (data) {
          const current = await sourceDataOfType(tx, input.id);
          const currentIds = new Set(current.map((d) => d.id));
          const foreign = data.find((d) => d.id !== null && !currentIds.has(d.id));
          if (foreign) throw fieldError(OBJECT, `sourceData[${foreign.index}].id`, 'Invalid', 'is not a source data of this source type');
          await requireFreeSourceDataNames(tx, data.map((d) => d.columns.sourceDataName), [...currentIds]);
          const kept = new Set(data.flatMap((d) => (d.id === null ? [] : [d.id])));
          await deleteSourceData(tx, current.filter((d) => !kept.has(d.id)).map((d) => d.id));
          for (const d of data) {
            if (d.id !== null) await updateSourceData(tx, d.id, { ...d.columns, lastModifiedBy: author.name, lastModifiedDate: at });
          }
          await insertSourceData(tx, data.filter((d) => d.id === null)
            .map((d) => ({ ...d.columns, sourceTypeId: input.id, createdBy: author.name, createdDate: at, lastModifiedBy: author.name, lastModifiedDate: at })));
        }
        const dto = await dtoOf(tx, input.id);
        await revision(tx, author, dto, 'MOD');
        return dto;
      });
    },

    async remove(producer, model, version, author) {
      return db.transaction(async (tx) => {
        // FOR UPDATE: a project or source linking the type meanwhile waits for this transaction.
        const row = await findSourceTypeByKey(tx, producer, model, version, true);
        if (!row) throw sourceTypeNotFound(producer, model, version);
        const projectNames = await projectNamesUsingType(tx, row.id);
        if (projectNames.length > 0) {
          throw new Forbidden('Cannot delete a source-type that is being used by project(s)', ENTITY, 'error.sourceTypeInUse', { 'project-names': projectNames.join('-') });
        }
        const sourceNames = await sourceNamesUsingType(tx, row.id);
        if (sourceNames.length > 0) {
          throw new Forbidden('Cannot delete a source-type that is being used by source(s)', ENTITY, 'error.sourceTypeInUse', { 'source-names': sourceNames.join('-') });
        }
        const dto = await dtoOf(tx, row.id);
        await deleteSourceType(tx, row.id);
        await revision(tx, author, dto, 'DEL');
        return dto;
      });
    },
  };
}
