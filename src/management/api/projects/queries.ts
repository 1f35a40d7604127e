/** SQL of `/api/projects` (and of the organization, group and public routes that list projects). */
import { and, asc, count, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import type { Page } from '../../http/paging.js';
import { nonNull } from '../../http/json.js';
import { isoInstant } from '../../http/instants.js';
import type { RoleRow } from '../roles/dto.js';
import { roleColumns } from '../roles/queries.js';
import type { SourceTypeDtoT } from '../source-types/dto.js';
import {
  groups, organizations, projects, projectSourceTypes, roles, roleUsers, sources, sourceTypes, subjects, type ProjectRow, type NewProject,
  type OrganizationRow,
} from '../../schema.js';
import { HUMAN_READABLE_NAME, organizationDto, reducedSourceTypeDto, type ProjectDtoOptions, type ProjectDtoT } from './dto.js';


/** A project with the name of its organization (null for a legacy project without one). */
export interface ProjectWithOrganization {
  project: ProjectRow;
  organizationName: string | null;
}

/**
 * Which projects a list shows: all, or those named or in the named organizations (the caller's
 * referents). Empty lists show nothing.
 */
export type Visibility = { all: true } | { all: false; organizations: readonly string[]; projects: readonly string[] };

export const visibleProjects = (v: Visibility): SQL | undefined =>
  v.all ? undefined : or(inArray(projects.projectName, [...v.projects]), inArray(organizations.name, [...v.organizations]));

export const PROJECT_SORT = ['id', 'projectName', 'description', 'location', 'projectStatus', 'startDate', 'endDate'] as const;
export type ProjectSort = (typeof PROJECT_SORT)[number];
const sortColumns = {
  id: projects.id, projectName: projects.projectName, description: projects.description, location: projects.location,
  projectStatus: projects.projectStatus, startDate: projects.startDate, endDate: projects.endDate,
} as const;

const withOrganization = (db: Executor) =>
  db.select({ project: projects, organizationName: organizations.name }).from(projects)
    .leftJoin(organizations, eq(organizations.id, projects.organizationId));

const organizationOf = (row: { project: ProjectRow; organizationName: string | null }): ProjectWithOrganization =>
  ({ project: row.project, organizationName: row.organizationName ?? row.project.organizationName });

export async function findProjectByName(db: Executor, name: string): Promise<ProjectWithOrganization | undefined> {
  const [row] = await withOrganization(db).where(eq(projects.projectName, name)).limit(1);
  return row && organizationOf(row);
}

export async function findProjectById(db: Executor, id: number): Promise<ProjectWithOrganization | undefined> {
  const [row] = await withOrganization(db).where(eq(projects.id, id)).limit(1);
  return row && organizationOf(row);
}

/** One page of visible projects (id and name) in the asked order (then by id), and how many there are in all. */
export async function pageProjects(db: Executor, visibility: Visibility, page: Page<ProjectSort>): Promise<{ rows: { id: number; projectName: string }[]; total: number }> {
  const where = visibleProjects(visibility);
  const order = [...page.sort.map((s) => (s.direction === 'asc' ? asc : desc)(sortColumns[s.property])), asc(projects.id)];
  const [rows, totals] = await Promise.all([
    db.select({ id: projects.id, projectName: projects.projectName }).from(projects)
      .leftJoin(organizations, eq(organizations.id, projects.organizationId))
      .where(where).orderBy(...order).limit(page.size).offset(page.offset),
    db.select({ total: count() }).from(projects).leftJoin(organizations, eq(organizations.id, projects.organizationId)).where(where),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

/** The visible projects of some organizations (by organization id), ordered by id. */
export async function projectsOfOrganizations(db: Executor, organizationIds: readonly number[], visibility: Visibility) {
  if (organizationIds.length === 0) return [];
  return db.select({ id: projects.id, organizationId: projects.organizationId }).from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(and(inArray(projects.organizationId, [...organizationIds]), visibleProjects(visibility)))
    .orderBy(asc(projects.id));
}

/** Which of `ids` are source types. */
export async function existingSourceTypeIds(db: Executor, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.select({ id: sourceTypes.id }).from(sourceTypes).where(inArray(sourceTypes.id, [...ids]));
  return new Set(rows.map((r) => r.id));
}

export async function insertProject(db: Executor, values: NewProject): Promise<ProjectRow> {
  const [row] = await db.insert(projects).values(values).returning();
  return row!;
}

export async function updateProject(db: Executor, id: number, set: Partial<NewProject>): Promise<void> {
  await db.update(projects).set(set).where(eq(projects.id, id));
}

/** Makes `sourceTypeIds` the project's source types. */
export async function setProjectSourceTypes(db: Executor, projectId: number, sourceTypeIds: readonly number[]): Promise<void> {
  await db.delete(projectSourceTypes).where(eq(projectSourceTypes.projectId, projectId));
  if (sourceTypeIds.length > 0) {
    await db.insert(projectSourceTypes).values([...new Set(sourceTypeIds)].map((sourceTypeId) => ({ projectId, sourceTypeId })));
  }
}

/** How many subjects (active or former participants) and sources still refer to a project. */
export async function projectUsage(db: Executor, projectId: number): Promise<{ subjects: number; sources: number }> {
  const [subjectRows, sourceRows] = await Promise.all([
    db.select({ n: count() }).from(roles)
      .innerJoin(roleUsers, eq(roleUsers.roleId, roles.id))
      .innerJoin(subjects, eq(subjects.userId, roleUsers.userId))
      .where(and(eq(roles.projectId, projectId), inArray(roles.authorityName, ['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT']))),
    db.select({ n: count() }).from(sources).where(eq(sources.projectId, projectId)),
  ]);
  return { subjects: subjectRows[0]?.n ?? 0, sources: sourceRows[0]?.n ?? 0 };
}

/** Deletes a project; its roles, groups and source-type links go with it (foreign keys). */
export async function deleteProject(db: Executor, id: number): Promise<void> {
  await db.delete(projects).where(eq(projects.id, id));
}

/** The roles whose referent is the project, by id. */
export async function rolesOfProject(db: Executor, projectId: number): Promise<RoleRow[]> {
  return db.select(roleColumns).from(roles)
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .where(eq(roles.projectId, projectId))
    .orderBy(asc(roles.id));
}

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
    const organizationName = row.organization?.name ?? row.project.organizationName;
    return [projectDtoOf(row.project, row.organization, organizationName, groupsOf.get(id) ?? [], types.get(id) ?? [], options)];
  });
}

/**
 * One project's DTO from its row and what was read beside it. With `full` off (lists, a page's
 * header): no organization object, source types or token timeout, so `organization` may be null.
 */
export function projectDtoOf(
  project: ProjectRow, organization: OrganizationRow | null | undefined, organizationName: string | null,
  projectGroups: { name: string }[], projectTypes: SourceTypeDtoT[], options: ProjectDtoOptions,
): ProjectDtoT {
  return nonNull({
    id: project.id,
    projectName: project.projectName,
    humanReadableProjectName: project.attributes[HUMAN_READABLE_NAME] ?? null,
    description: project.description,
    organization: options.full && organization ? { ...organizationDto(organization), projects: [] } : null,
    organizationName,
    location: project.location,
    startDate: isoInstant(project.startDate),
    projectStatus: project.projectStatus,
    endDate: isoInstant(project.endDate),
    sourceTypes: options.full && projectTypes.length > 0 ? projectTypes : null,
    attributes: project.attributes,
    groups: projectGroups.length > 0 ? projectGroups : null,
    persistentTokenTimeout: options.full ? options.persistentTokenTimeoutMs ?? null : null,
  });
}

export async function findOrganizationByName(db: Executor, name: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.name, name)).limit(1);
  return row;
}
