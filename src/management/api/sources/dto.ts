/**
 * `MinimalSourceDetailsDTO` (managementportal.md §2.5), the source shape subjects carry, and the
 * full `SourceDTO` of `/api/sources` (§2.6; nulls written, `project` omitted when absent).
 */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import type { SourceRow, sourceTypes } from '../../schema.js';
import { SourceTypeDto } from '../source-types/dto.js';

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
