/**
 * Request schemas of `/api/source-types` and `/api/source-data` (managementportal.md §2.7). The
 * bodies are the reference's `SourceTypeDTO` and `SourceDataDTO`; unknown members are dropped, as
 * the reference's Jackson ignores them. `@NotNull` fields are optional here and checked by the
 * service, so a missing one is the reference's `NotNull` field error rather than a schema error.
 */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { PageQuery } from '../../http/paging.js';

/** `Constants.ENTITY_ID_REGEX` of the reference (producer, model, version, source-data names). */
export const ENTITY_ID = "^[_'.@A-Za-z0-9- ]*$";

const entityId = (description: string) => Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 255, description });
const text = (maxLength = 255) => Type.Optional(nullable(Type.String({ maxLength })));
const id = () => Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })));

export const SourceDataInput = Type.Object({
  id: id(),
  sourceDataType: text(),
  sourceDataName: Type.Optional(nullable(entityId('Unique name of the topic'))),
  frequency: text(), unit: text(), processingState: text(), dataClass: text(),
  keySchema: text(), valueSchema: text(), topic: text(), provider: text(),
  enabled: Type.Optional(nullable(Type.Boolean())),
  sourceType: Type.Optional(nullable(Type.Object({ id: id() }, { description: 'The source type, by id' }))),
}, { additionalProperties: false, description: 'SourceDataDTO; `sourceDataType` defaults to `topic`' });
export type SourceDataInputT = Static<typeof SourceDataInput>;

export const SourceTypeInput = Type.Object({
  id: id(),
  producer: Type.Optional(nullable(entityId('Producer (vendor)'))),
  model: Type.Optional(nullable(entityId('Model'))),
  catalogVersion: Type.Optional(nullable(entityId('Catalogue version'))),
  sourceTypeScope: Type.Optional(nullable(Type.String({ maxLength: 255, description: 'PASSIVE, ACTIVE, MONITOR or CONNECTOR' }))),
  canRegisterDynamically: Type.Optional(nullable(Type.Boolean())),
  name: text(), description: text(), assessmentType: text(500), appProvider: text(500),
  sourceData: Type.Optional(nullable(Type.Array(SourceDataInput, { maxItems: 1000, description: 'On update: replaces the type\'s topics; absent keeps them' }))),
}, { additionalProperties: false, description: 'SourceTypeDTO' });
export type SourceTypeInputT = Static<typeof SourceTypeInput>;

export const ProducerParams = Type.Object({ producer: entityId('Producer') });
export const ProducerModelParams = Type.Object({ producer: entityId('Producer'), model: entityId('Model') });
export const SourceTypeKeyParams = Type.Object({ producer: entityId('Producer'), model: entityId('Model'), version: entityId('Catalogue version') });
export const SourceDataNameParams = Type.Object({ sourceDataName: entityId('Source-data name') });

export const ListQuery = PageQuery;
