/**
 * Request schemas of `/api/sources` and `/api/projects/{projectName}/sources` (managementportal.md
 * §2.3, §2.6). The body is the reference's `SourceDTO`; unknown members are dropped, as the
 * reference's Jackson ignores them. Its `@NotNull` fields are checked by the service, so a missing
 * one is the reference's `NotNull` field error (or, for `assigned` on create, `error.sourceAssignedRequired`).
 */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { PageQuery } from '../../http/paging.js';
import { ENTITY_ID } from '../source-types/schemas.js';

const entityId = (description: string) => Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 255, description });
const id = () => Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })));

export const SourceInput = Type.Object({
  id: id(),
  sourceId: Type.Optional(nullable(Type.String({ format: 'uuid', description: 'Generated on create; may be changed on update' }))),
  sourceName: Type.Optional(nullable(entityId('Unique name of the source'))),
  expectedSourceName: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  assigned: Type.Optional(nullable(Type.Boolean())),
  sourceType: Type.Optional(nullable(Type.Object({
    id: id(),
    producer: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
    model: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
    catalogVersion: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  }, { description: 'The source type, by id or by producer, model and catalogVersion' }))),
  subjectLogin: Type.Optional(nullable(Type.String({ maxLength: 255, description: 'On update: the subject to assign the source to' }))),
  project: Type.Optional(nullable(Type.Object({
    id: id(),
    projectName: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  }, { description: 'The project, by id or by name' }))),
  attributes: Type.Optional(nullable(Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 4096 }), { maxProperties: 200 }))),
}, { additionalProperties: false, description: 'SourceDTO' });
export type SourceInputT = Static<typeof SourceInput>;

export const SourceNameParams = Type.Object({ sourceName: entityId('Source name') });
export const ProjectNameParams = Type.Object({ projectName: entityId('Project name') });

export const ProjectSourcesQuery = Type.Object({
  ...PageQuery.properties,
  assigned: Type.Optional(Type.Boolean({ description: 'Only (un)assigned sources, unpaged' })),
  minimized: Type.Optional(Type.Boolean({ default: false, description: 'MinimalSourceDetailsDTO instead of SourceDTO' })),
});
