/**
 * Request schemas of `/api/projects` (managementportal.md §2.3) and the ones the organization,
 * group and public routes share. Bodies are `ProjectDTO`s as clients send them: every field
 * optional at the schema level, so the service can answer a missing one with the reference's
 * bean-validation field error (`"NotNull: must not be null"`); unknown fields (`groups`,
 * `persistentTokenTimeout`, an organization's `projects`, a source type's `sourceData`) are
 * stripped, as the reference ignored them.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { EntityId } from '../../http/ids.js';
import { PageQuery } from '../../http/paging.js';

/** The reference's `Constants.ENTITY_ID_REGEX` (logins, project, organization and group names). */
export const ENTITY_ID_PATTERN = "^[_'.@A-Za-z0-9- ]*$";
export const ENTITY_ID = new RegExp(ENTITY_ID_PATTERN);

const optional = <T extends TSchema>(schema: T) => Type.Optional(nullable(schema));
const text = (maxLength: number, description?: string) => optional(Type.String({ maxLength, ...(description ? { description } : {}) }));

export const ProjectNameParams = Type.Object({
  projectName: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 }),
});

export const ProjectListQuery = Type.Object({
  ...PageQuery.properties,
  minimized: Type.Optional(Type.Boolean({ description: 'Only `id` and `projectName` of each project' })),
});
export type ProjectListQueryT = Static<typeof ProjectListQuery>;

/** An `OrganizationDTO` as sent on create and update, and inside a project. */
export const OrganizationInput = Type.Object({
  id: optional(EntityId()),
  name: text(255, 'Unique; `^[_\'.@A-Za-z0-9- ]*$`'),
  description: text(10_000),
  location: text(255),
}, { additionalProperties: false, description: 'OrganizationDTO as sent on create and update' });
export type OrganizationInputT = Static<typeof OrganizationInput>;

/** A project's source type: only its id counts (a whole `SourceTypeDTO` may be sent). */
const SourceTypeRefInput = Type.Object({ id: optional(EntityId()) }, { additionalProperties: false });

export const ProjectInput = Type.Object({
  id: optional(EntityId()),
  projectName: text(255, 'Unique and immutable; `^[_\'.@A-Za-z0-9- ]*$`'),
  humanReadableProjectName: text(255, 'Stored as the attribute `Human-readable-project-name`'),
  description: text(10_000),
  organization: optional(OrganizationInput),
  organizationName: text(255, 'The organization when `organization` is absent'),
  location: text(255),
  startDate: optional(Type.String({ format: 'date-time' })),
  projectStatus: Type.Optional(Type.Unsafe<string | number | null>({
    type: ['string', 'integer', 'null'], description: 'PLANNING, ONGOING or ENDED (or the ordinal 0, 1, 2)',
  })),
  endDate: optional(Type.String({ format: 'date-time' })),
  sourceTypes: optional(Type.Array(SourceTypeRefInput, { maxItems: 1000, description: 'Linked by `id`' })),
  attributes: optional(Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 10_000 }), {
    maxProperties: 200, description: '`Privacy-policy-url`, `Human-readable-project-name`, `External-project-url`, …',
  })),
}, { additionalProperties: false, description: 'ProjectDTO as sent on create and update' });
export type ProjectInputT = Static<typeof ProjectInput>;

