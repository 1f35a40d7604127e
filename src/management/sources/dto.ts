/**
 * `MinimalSourceDetailsDTO` (managementportal.md §2.5), the source shape subjects carry, and the
 * full `SourceDTO` of `/api/sources` (§2.6; nulls written, `project` omitted when absent).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Executor } from '../../platform/database.js';
import { nullable } from '../../platform/schemas.js';
import { sources, sourceTypes } from '../schema.js';
import { loadSourceTypeDtos, SourceTypeDto } from '../source-types/dto.js';

export const MinimalSourceDto = Type.Object({
  id: Type.Integer(),
  sourceTypeId: nullable(Type.Integer()),
  sourceTypeProducer: nullable(Type.String()),
  sourceTypeModel: nullable(Type.String()),
  sourceTypeCatalogVersion: nullable(Type.String()),
  expectedSourceName: nullable(Type.String()),
  sourceId: Type.String({ format: 'uuid' }),
  sourceName: Type.String(),
  assigned: Type.Boolean(),
  attributes: Type.Record(Type.String(), Type.String()),
}, { description: 'A source as a subject lists it' });
export type MinimalSourceDtoT = Static<typeof MinimalSourceDto>;

export type SourceRow = typeof sources.$inferSelect;
type TypeRow = Pick<typeof sourceTypes.$inferSelect, 'id' | 'producer' | 'model' | 'catalogVersion'>;

export const minimalSourceDto = (row: SourceRow, type: TypeRow | null | undefined): MinimalSourceDtoT => ({
  id: row.id,
  sourceTypeId: type?.id ?? null,
  sourceTypeProducer: type?.producer ?? null,
  sourceTypeModel: type?.model ?? null,
  sourceTypeCatalogVersion: type?.catalogVersion ?? null,
  expectedSourceName: row.expectedSourceName,
  sourceId: row.sourceId,
  sourceName: row.sourceName,
  assigned: row.assigned,
  attributes: row.attributes,
});

/** The sources assigned to each of `subjectIds` (not deleted), ordered by id. */
export async function loadSubjectSources(db: Executor, subjectIds: readonly number[]): Promise<Map<number, MinimalSourceDtoT[]>> {
  const result = new Map<number, MinimalSourceDtoT[]>(subjectIds.map((id) => [id, []]));
  if (subjectIds.length === 0) return result;
  const rows = await db.select({ source: sources, type: { id: sourceTypes.id, producer: sourceTypes.producer, model: sourceTypes.model, catalogVersion: sourceTypes.catalogVersion } })
    .from(sources).leftJoin(sourceTypes, eq(sourceTypes.id, sources.sourceTypeId))
    .where(and(inArray(sources.subjectId, [...subjectIds]), eq(sources.deleted, false)))
    .orderBy(asc(sources.id));
  for (const { source, type } of rows) result.get(source.subjectId!)?.push(minimalSourceDto(source, type));
  return result;
}

export const MinimalProjectDto = Type.Object({ id: Type.Integer(), projectName: Type.String() }, { description: 'MinimalProjectDetailsDTO' });

export const SourceDto = Type.Object({
  id: Type.Integer(),
  sourceId: Type.String({ format: 'uuid' }),
  sourceName: Type.String(),
  expectedSourceName: nullable(Type.String()),
  assigned: Type.Boolean(),
  sourceType: nullable(SourceTypeDto),
  subjectLogin: nullable(Type.String()),
  project: Type.Optional(MinimalProjectDto),
  attributes: Type.Record(Type.String(), Type.String()),
}, { description: 'A source (device or app instance)' });
export type SourceDtoT = Static<typeof SourceDto>;

/** A source row with what its DTO needs of its subject and project. */
export interface SourceWithRefs {
  source: SourceRow;
  subjectLogin: string | null;
  project: { id: number; projectName: string } | null;
}

/** `SourceDTO`s of `rows`, in order; `withProject: false` leaves `project` out (project listings). */
export async function loadSourceDtos(db: Executor, rows: readonly SourceWithRefs[], options: { withProject: boolean }): Promise<SourceDtoT[]> {
  const typeIds = rows.flatMap((r) => (r.source.sourceTypeId === null ? [] : [r.source.sourceTypeId]));
  const types = new Map((await loadSourceTypeDtos(db, typeIds)).map((t) => [t.id, t]));
  return rows.map(({ source, subjectLogin, project }) => {
    const dto: SourceDtoT = {
      id: source.id,
      sourceId: source.sourceId,
      sourceName: source.sourceName,
      expectedSourceName: source.expectedSourceName,
      assigned: source.assigned,
      sourceType: source.sourceTypeId === null ? null : types.get(source.sourceTypeId) ?? null,
      subjectLogin,
      attributes: source.attributes,
    };
    if (options.withProject && project) dto.project = { id: project.id, projectName: project.projectName };
    return dto;
  });
}
