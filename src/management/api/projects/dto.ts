/**
 * `ProjectDTO` and `OrganizationDTO` (both NON_NULL, managementportal.md §2.3–§2.4). The full
 * project carries its organization (with an empty `projects` list, as the reference's mapper
 * writes it) and its source types in the reference's reduced form (no source data, description,
 * assessment type or app provider); the reduced project (inside subjects created or updated, and
 * inside organizations) carries neither. `sourceTypes` and `groups` are omitted when empty.
 */
import { Type, type Static } from 'typebox';
import { nonNull } from '../../http/json.js';
import type { OrganizationRow, SourceTypeRow } from '../../schema.js';
import { SourceTypeDto, type SourceTypeDtoT } from '../source-types/dto.js';

export const HUMAN_READABLE_NAME = 'Human-readable-project-name';
export const PRIVACY_POLICY_URL = 'Privacy-policy-url';

export const OrganizationDto = Type.Object({
  id: Type.Optional(Type.Integer()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  projects: Type.Optional(Type.Array(Type.Unknown())),
}, { description: 'An organization' });
export type OrganizationDtoT = Static<typeof OrganizationDto>;

export const ProjectDto = Type.Object({
  id: Type.Optional(Type.Integer()),
  projectName: Type.Optional(Type.String()),
  humanReadableProjectName: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  organization: Type.Optional(OrganizationDto),
  organizationName: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  startDate: Type.Optional(Type.String({ format: 'date-time' })),
  projectStatus: Type.Optional(Type.String({ description: 'PLANNING, ONGOING or ENDED' })),
  endDate: Type.Optional(Type.String({ format: 'date-time' })),
  sourceTypes: Type.Optional(Type.Array(SourceTypeDto)),
  attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
  groups: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
  persistentTokenTimeout: Type.Optional(Type.Integer({ description: 'Milliseconds a persistent meta-token lives' })),
}, { description: 'A project (study)' });
export type ProjectDtoT = Static<typeof ProjectDto>;


export const organizationDto = (row: OrganizationRow): OrganizationDtoT =>
  ({ id: row.id, name: row.name, description: row.description, location: row.location });

/** The reference's `sourceTypeToSourceTypeDTOReduced`: what a project lists of its source types. */
export const reducedSourceTypeDto = (row: SourceTypeRow): SourceTypeDtoT => nonNull({
  id: row.id, producer: row.producer, model: row.model, catalogVersion: row.catalogVersion,
  sourceTypeScope: row.sourceTypeScope, canRegisterDynamically: row.canRegisterDynamically, name: row.name,
});

export interface ProjectDtoOptions {
  /** With organization and source types (GET of a project); false for the reduced form. */
  full: boolean;
  /** `persistentTokenTimeout` in ms (the meta-token setting), when configured. */
  persistentTokenTimeoutMs?: number;
}
