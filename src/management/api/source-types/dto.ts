/**
 * `SourceTypeDTO` (NON_NULL, `sourceData` NON_EMPTY) and `SourceDataDTO` (nulls written), as
 * managementportal.md §2.7 shows them.
 */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { nonNull } from '../../http/json.js';
import type { SourceDataRow, SourceTypeRow } from '../../schema.js';

const str = () => nullable(Type.String());

export const SourceTypeRef = Type.Object({
  id: Type.Integer(), model: Type.String(), producer: Type.String(), catalogVersion: Type.String(),
});

export const SourceDataDto = Type.Object({
  id: Type.Integer(),
  sourceDataType: Type.String(),
  sourceDataName: Type.String(),
  frequency: str(), unit: str(), processingState: str(), dataClass: str(), keySchema: str(), valueSchema: str(),
  topic: str(), provider: str(),
  enabled: Type.Boolean(),
  sourceType: Type.Optional(nullable(SourceTypeRef)),
}, { description: 'A topic of a source type' });
export type SourceDataDtoT = Static<typeof SourceDataDto>;

export const SourceTypeDto = Type.Object({
  id: Type.Integer(),
  producer: Type.String(),
  model: Type.String(),
  catalogVersion: Type.String(),
  sourceTypeScope: Type.String({ description: 'PASSIVE, ACTIVE, MONITOR or CONNECTOR' }),
  canRegisterDynamically: Type.Boolean(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  assessmentType: Type.Optional(Type.String()),
  appProvider: Type.Optional(Type.String()),
  sourceData: Type.Optional(Type.Array(SourceDataDto)),
}, { description: 'A kind of device or app' });
export type SourceTypeDtoT = Static<typeof SourceTypeDto>;


export function sourceDataDto(row: SourceDataRow, type?: SourceTypeRow): SourceDataDtoT {
  const dto: SourceDataDtoT = {
    id: row.id, sourceDataType: row.sourceDataType, sourceDataName: row.sourceDataName,
    frequency: row.frequency, unit: row.unit, processingState: row.processingState, dataClass: row.dataClass,
    keySchema: row.keySchema, valueSchema: row.valueSchema, topic: row.topic, provider: row.provider, enabled: row.enabled,
  };
  if (type) dto.sourceType = { id: type.id, model: type.model, producer: type.producer, catalogVersion: type.catalogVersion };
  return dto;
}

export function sourceTypeDto(row: SourceTypeRow, data: readonly SourceDataRow[]): SourceTypeDtoT {
  return nonNull({
    id: row.id, producer: row.producer, model: row.model, catalogVersion: row.catalogVersion,
    sourceTypeScope: row.sourceTypeScope, canRegisterDynamically: row.canRegisterDynamically,
    name: row.name, description: row.description, assessmentType: row.assessmentType, appProvider: row.appProvider,
    sourceData: data.length > 0 ? data.map((d) => sourceDataDto(d)) : null,
  });
}
