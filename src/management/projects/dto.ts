/**
 * `ProjectDTO` and `OrganizationDTO` (both NON_NULL, managementportal.md §2.3–§2.4). The full
 * project carries its organization (with an empty `projects` list, as the reference's mapper
 * writes it) and its source types in the reference's reduced form (no source data, description,
 * assessment type or app provider); the reduced project (inside subjects created or updated, and
 * inside organizations) carries neither. `sourceTypes` and `groups` are omitted when empty.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Executor } from '../../platform/database.js';
import { nonNull } from '../http/json.js';
import { isoInstant } from '../http/instants.js';
import { groups, organizations, projects, projectSourceTypes, sourceTypes } from '../schema.js';
import { SourceTypeDto, type SourceTypeDtoT, type SourceTypeRow } from '../source-types/dto.js';

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

export type OrganizationRow = typeof organizations.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;

export const organizationDto = (row: OrganizationRow): OrganizationDtoT =>
  ({ id: row.id, name: row.name, description: row.description, location: row.location });

/** The reference's `sourceTypeToSourceTypeDTOReduced`: what a project lists of its source types. */
export const reducedSourceTypeDto = (row: SourceTypeRow): SourceTypeDtoT => nonNull({
  id: row.id, producer: row.producer, model: row.model, catalogVersion: row.catalogVersion,
  sourceTypeScope: row.sourceTypeScope, canRegisterDynamically: row.canRegisterDynamically, name: row.name,
});

/** Reduced source types of many projects at once: project id → source types (by id). */
export async function loadProjectSourceTypes(db: Executor, projectIds: readonly number[]): Promise<Map<number, SourceTypeDtoT[]>> {
  const result = new Map<number, SourceTypeDtoT[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return result;
  const rows = await db.select({ projectId: projectSourceTypes.projectId, type: sourceTypes }).from(projectSourceTypes)
    .innerJoin(sourceTypes, eq(sourceTypes.id, projectSourceTypes.sourceTypeId))
    .where(inArray(projectSourceTypes.projectId, [...new Set(projectIds)]))
    .orderBy(asc(sourceTypes.id));
  for (const row of rows) result.get(row.projectId)?.push(reducedSourceTypeDto(row.type));
  return result;
}

export interface ProjectDtoOptions {
  /** With organization and source types (GET of a project); false for the reduced form. */
  full: boolean;
  /** `persistentTokenTimeout` in ms (the meta-token setting), when configured. */
  persistentTokenTimeoutMs?: number;
}

/** Project DTOs for `ids`, in that order (unknown ids skipped). */
export async function loadProjectDtos(db: Executor, ids: readonly number[], options: ProjectDtoOptions): Promise<ProjectDtoT[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const [rows, groupRows, types] = await Promise.all([
    db.select({ project: projects, organization: organizations }).from(projects)
      .leftJoin(organizations, eq(organizations.id, projects.organizationId))
      .where(inArray(projects.id, unique)),
    db.select({ projectId: groups.projectId, name: groups.name }).from(groups)
      .where(inArray(groups.projectId, unique)).orderBy(asc(groups.id)),
    options.full ? loadProjectSourceTypes(db, unique) : Promise.resolve(new Map<number, SourceTypeDtoT[]>()),
  ]);
  const byId = new Map(rows.map((r) => [r.project.id, r]));
  const groupsOf = new Map<number, { name: string }[]>();
  for (const g of groupRows) {
    const list = groupsOf.get(g.projectId);
    if (list) list.push({ name: g.name });
    else groupsOf.set(g.projectId, [{ name: g.name }]);
  }
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { project, organization } = row;
    const projectGroups = groupsOf.get(id) ?? [];
    const projectTypes = types.get(id) ?? [];
    return [nonNull({
      id: project.id,
      projectName: project.projectName,
      humanReadableProjectName: project.attributes[HUMAN_READABLE_NAME] ?? null,
      description: project.description,
      organization: options.full && organization ? { ...organizationDto(organization), projects: [] } : null,
      organizationName: organization?.name ?? project.organizationName,
      location: project.location,
      startDate: isoInstant(project.startDate),
      projectStatus: project.projectStatus,
      endDate: isoInstant(project.endDate),
      sourceTypes: options.full && projectTypes.length > 0 ? projectTypes : null,
      attributes: project.attributes,
      groups: projectGroups.length > 0 ? projectGroups : null,
      persistentTokenTimeout: options.full ? options.persistentTokenTimeoutMs ?? null : null,
    })];
  });
}
