/**
 * `ProjectDTO` and `OrganizationDTO` (both NON_NULL, managementportal.md §2.3–§2.4). The full
 * project carries its organization and source types; the reduced one (inside subjects created or
 * updated) carries neither. `sourceTypes` and `groups` are omitted when empty.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Executor } from '../../platform/database.js';
import { nonNull } from '../http/json.js';
import { isoInstant } from '../http/instants.js';
import { groups, organizations, projects, projectSourceTypes } from '../schema.js';
import { loadSourceTypeDtos, SourceTypeDto } from '../source-types/dto.js';

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
  const [rows, groupRows, typeLinks] = await Promise.all([
    db.select({ project: projects, organization: organizations }).from(projects)
      .leftJoin(organizations, eq(organizations.id, projects.organizationId))
      .where(inArray(projects.id, unique)),
    db.select({ projectId: groups.projectId, name: groups.name }).from(groups)
      .where(inArray(groups.projectId, unique)).orderBy(asc(groups.id)),
    options.full
      ? db.select().from(projectSourceTypes).where(inArray(projectSourceTypes.projectId, unique)).orderBy(asc(projectSourceTypes.sourceTypeId))
      : Promise.resolve([]),
  ]);
  const types = new Map((await loadSourceTypeDtos(db, typeLinks.map((l) => l.sourceTypeId))).map((t) => [t.id, t]));
  const byId = new Map(rows.map((r) => [r.project.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { project, organization } = row;
    const projectGroups = groupRows.filter((g) => g.projectId === id).map((g) => ({ name: g.name }));
    const projectTypes = typeLinks.filter((l) => l.projectId === id).flatMap((l) => types.get(l.sourceTypeId) ?? []);
    return [nonNull({
      id: project.id,
      projectName: project.projectName,
      humanReadableProjectName: project.attributes[HUMAN_READABLE_NAME] ?? null,
      description: project.description,
      organization: options.full && organization ? organizationDto(organization) : null,
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
