/**
 * Schemas of `/api/subjects` (managementportal.md §2.5, §16): the `SubjectDTO` as answered and as
 * sent, the `SubjectCriteria` query of the lists, source registration and revisions. Bodies give
 * every field as optional so the service answers a missing one with the reference's error;
 * unknown fields (`roles`, `createdBy`, a project's `sourceTypes`, …) are stripped, as the
 * reference ignored them.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { EntityId } from '../../http/ids.js';
import { PageQuery } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { ProjectDto } from '../projects/dto.js';
import { RoleDto } from '../roles/dto.js';
import { MinimalSourceDto } from '../sources/dto.js';

export { ErrorVm, RadarErrorVm };

/** The reference's `Constants.ENTITY_ID_REGEX` (logins, project and source names). */
export const ENTITY_ID_PATTERN = "^[_'.@A-Za-z0-9- ]*$";

export const SUBJECT_STATUSES = ['DEACTIVATED', 'ACTIVATED', 'DISCONTINUED', 'INVALID'] as const;
export type SubjectStatus = (typeof SUBJECT_STATUSES)[number];

const optional = <T extends TSchema>(schema: T) => Type.Optional(nullable(schema));
const text = (maxLength: number, description?: string) => optional(Type.String({ maxLength, ...(description ? { description } : {}) }));
const attributes = (description: string) => Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 10_000 }), { maxProperties: 200, description });

export const LoginParams = Type.Object({
  login: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 }),
});
export const RevisionParams = Type.Object({
  ...LoginParams.properties,
  revisionNb: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
});
export const SourceNameParams = Type.Object({
  ...LoginParams.properties,
  sourceName: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 }),
});
export const ProjectNameParams = Type.Object({
  projectName: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 }),
});

export const SubjectDto = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  externalLink: nullable(Type.String()),
  externalId: nullable(Type.String()),
  status: Type.String({ description: SUBJECT_STATUSES.join(', ') }),
  createdBy: Type.Optional(Type.String()),
  createdDate: Type.Optional(Type.String({ format: 'date-time' })),
  lastModifiedBy: Type.Optional(Type.String()),
  lastModifiedDate: Type.Optional(Type.String({ format: 'date-time' })),
  project: Type.Optional(ProjectDto),
  group: nullable(Type.String({ description: 'Group name' })),
  dateOfBirth: nullable(Type.String({ format: 'date' })),
  enrollmentDate: nullable(Type.String({ format: 'date-time' })),
  personName: nullable(Type.String()),
  roles: Type.Array(RoleDto),
  sources: Type.Array(MinimalSourceDto),
  attributes: Type.Record(Type.String(), Type.String(), { description: '`Human-readable-identifier`, …' }),
}, { description: 'A participant (SubjectDTO)' });
export type SubjectDtoT = Static<typeof SubjectDto>;

/** A project reference in a subject: `projectName` decides (`id` is required too, as in the reference). */
const ProjectRefInput = Type.Object({
  id: optional(EntityId()),
  projectName: text(255),
}, { additionalProperties: false });

/** A source given with a subject: found by `sourceId`. */
const SourceRefInput = Type.Object({
  id: optional(EntityId()),
  sourceId: optional(Type.String({ format: 'uuid' })),
  sourceName: text(255),
}, { additionalProperties: false });

export const SubjectInput = Type.Object({
  id: optional(EntityId()),
  login: optional(Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 50, description: 'Create: a random UUID when absent' })),
  externalLink: text(255),
  externalId: text(255, 'Unique within the project'),
  status: Type.Optional(Type.Unsafe<string | number | null>({
    type: ['string', 'integer', 'null'], description: `${SUBJECT_STATUSES.join(', ')} (or the ordinal 0–3)`,
  })),
  project: optional(ProjectRefInput),
  group: text(50, 'Group name within the project'),
  dateOfBirth: optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD' })),
  enrollmentDate: optional(Type.String({ maxLength: 100, description: 'ISO-8601 instant; create: now when absent' })),
  personName: text(255),
  sources: optional(Type.Array(SourceRefInput, { maxItems: 1000, description: 'Sources to assign, by `sourceId`' })),
  attributes: optional(attributes('`Human-readable-identifier`, …')),
}, { additionalProperties: false, description: 'SubjectDTO as sent on create, update and discontinue' });
export type SubjectInputT = Static<typeof SubjectInput>;

const bound = (description?: string) => Type.Optional(Type.String({ maxLength: 100, ...(description ? { description } : {}) }));

export const SubjectListQuery = Type.Object({
  authority: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10, description: 'ROLE_PARTICIPANT (default) and/or ROLE_INACTIVE_PARTICIPANT' })),
  projectName: Type.Optional(Type.String({ maxLength: 255 })),
  externalId: Type.Optional(Type.String({ maxLength: 255, description: 'Substring, case-insensitive (exact with `projectName`)' })),
  login: Type.Optional(Type.String({ maxLength: 255, description: 'Substring, case-insensitive' })),
  personName: Type.Optional(Type.String({ maxLength: 255, description: 'Substring, case-insensitive' })),
  humanReadableIdentifier: Type.Optional(Type.String({ maxLength: 255, description: 'Substring of the attribute `Human-readable-identifier`' })),
  groupId: Type.Optional(EntityId()),
  'dateOfBirth.is': bound('YYYY-MM-DD'),
  'dateOfBirth.from': bound(),
  'dateOfBirth.to': bound(),
  'enrollmentDate.is': bound('ISO-8601 date-time, with an offset and/or a `[zone]`'),
  'enrollmentDate.from': bound(),
  'enrollmentDate.to': bound(),
  page: PageQuery.properties.page,
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Page size (default 20)' })),
  sort: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10, description: '`id|externalId|login[,asc|desc]`, repeatable' })),
  'last.id': Type.Optional(EntityId({ description: 'Cursor: id of the previous page\'s last subject' })),
  'last.login': Type.Optional(Type.String({ maxLength: 255 })),
  'last.externalId': Type.Optional(Type.String({ maxLength: 255 })),
});
export type SubjectListQueryT = Static<typeof SubjectListQuery>;

export const SourceRegistrationInput = Type.Object({
  id: optional(EntityId()),
  sourceTypeId: optional(EntityId()),
  sourceTypeProducer: text(255),
  sourceTypeModel: text(255),
  sourceTypeCatalogVersion: text(255),
  expectedSourceName: text(255),
  sourceId: optional(Type.String({ format: 'uuid', description: 'An existing source of this subject to update' })),
  sourceName: optional(Type.String({ pattern: ENTITY_ID_PATTERN, maxLength: 200 })),
  assigned: optional(Type.Boolean()),
  attributes: optional(attributes('Merged into the source\'s attributes')),
}, { additionalProperties: false, description: 'MinimalSourceDetailsDTO: a source type (id, or producer + model + version) to register, or an existing source (sourceId)' });
export type SourceRegistrationInputT = Static<typeof SourceRegistrationInput>;

export const SourceAttributesInput = attributes('Attributes merged into the source\'s');

export const SubjectSourcesQuery = Type.Object({
  withInactiveSources: Type.Optional(Type.Boolean({ description: 'Every source the subject ever had (from its revisions)' })),
});

/**
 * A `SubjectDTO` as a revision recorded it, sent as stored: a schema that required today's fields
 * would fail on history written before a DTO grew.
 */
export const StoredSubjectDto = Type.Unknown({ description: 'SubjectDTO as it was at that revision' });

export const RevisionDto = Type.Object({
  id: Type.Integer(),
  timestamp: Type.String({ format: 'date-time' }),
  author: Type.String(),
  entity: StoredSubjectDto,
  revisionType: Type.String({ description: 'ADD, MOD or DEL' }),
}, { description: 'A revision of a subject (RevisionDTO)' });
export type RevisionDtoT = Static<typeof RevisionDto>;

