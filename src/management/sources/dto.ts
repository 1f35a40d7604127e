/** `MinimalSourceDetailsDTO` (managementportal.md §2.5), the source shape subjects carry. */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Executor } from '../../platform/database.js';
import { nullable } from '../../platform/schemas.js';
import { sources, sourceTypes } from '../schema.js';

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
