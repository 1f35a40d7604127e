/** SQL for sources and the projects, subjects and types they refer to. Plain functions; no rules here. */
import { and, asc, count, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import type { Page } from '../../http/paging.js';
import {
  organizations, projects, projectSourceTypes, revisionChanges, roles, roleUsers, sources, sourceTypes, subjects, users, type SourceInsert,
  type SourceRow,
} from '../../schema.js';
import { loadSourceTypeDtos, orderByOf } from '../source-types/queries.js';
import { minimalSourceDto, type MinimalSourceDtoT, type SourceDtoT } from './dto.js';


export const SOURCE_SORT = {
  id: sources.id, sourceId: sources.sourceId, sourceName: sources.sourceName,
  expectedSourceName: sources.expectedSourceName, assigned: sources.assigned,
} as const;
export type SourceSort = keyof typeof SOURCE_SORT;

/** A source with its subject's login, its project (and organization) and its type's key. */
export interface SourceRef extends SourceWithRefs {
  organizationName: string | null;
  type: { id: number; producer: string; model: string; catalogVersion: string } | null;
}

const refColumns = {
  source: sources,
  subjectLogin: users.login,
  project: { id: projects.id, projectName: projects.projectName },
  organizationName: organizations.name,
  type: { id: sourceTypes.id, producer: sourceTypes.producer, model: sourceTypes.model, catalogVersion: sourceTypes.catalogVersion },
};

function selectRefs(db: Executor) {
  return db.select(refColumns).from(sources)
    .leftJoin(subjects, eq(subjects.id, sources.subjectId))
    .leftJoin(users, eq(users.id, subjects.userId))
    .leftJoin(projects, eq(projects.id, sources.projectId))
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .leftJoin(sourceTypes, eq(sourceTypes.id, sources.sourceTypeId));
}

/** A source that is not deleted, by name or id; `forUpdate` locks its row until the transaction ends. */
export async function findSource(db: Executor, by: { name: string } | { id: number }, forUpdate = false): Promise<SourceRef | undefined> {
  const where = and(eq(sources.deleted, false), 'name' in by ? eq(sources.sourceName, by.name) : eq(sources.id, by.id));
  // Locked on its own: drizzle writes `FOR UPDATE OF` with the schema-qualified name, which PostgreSQL rejects.
  if (forUpdate && (await db.select({ id: sources.id }).from(sources).where(where).for('update')).length === 0) return undefined;
  const [row] = await selectRefs(db).where(where).limit(1);
  return row;
}

/** Who may see which projects' sources: everything, or projects by name and by organization. */
export interface ProjectFilter {
  global: boolean;
  projects: readonly string[];
  organizations: readonly string[];
}

function visible(filter: ProjectFilter): SQL | undefined {
  if (filter.global) return undefined;
  const clauses = [
    filter.projects.length > 0 ? inArray(projects.projectName, [...filter.projects]) : undefined,
    filter.organizations.length > 0 ? inArray(organizations.name, [...filter.organizations]) : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return clauses.length > 0 ? or(...clauses) : sql`false`;
}

async function pageOfRefs(db: Executor, where: SQL | undefined, page: Page<SourceSort>): Promise<{ rows: SourceRef[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    selectRefs(db).where(where).orderBy(...orderByOf(page, SOURCE_SORT, sources.id)).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(sources)
      .leftJoin(projects, eq(projects.id, sources.projectId))
      .leftJoin(organizations, eq(organizations.id, projects.organizationId))
      .where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** One page of the sources (not deleted) in the projects `filter` lets through. */
export function pageSources(db: Executor, filter: ProjectFilter, page: Page<SourceSort>) {
  return pageOfRefs(db, and(eq(sources.deleted, false), visible(filter)), page);
}

/** One page of a project's sources (not deleted). */
export function pageProjectSources(db: Executor, projectId: number, page: Page<SourceSort>) {
  return pageOfRefs(db, and(eq(sources.deleted, false), eq(sources.projectId, projectId)), page);
}

/** All of a project's sources (not deleted) that are, or are not, assigned. */
export async function projectSourcesByAssigned(db: Executor, projectId: number, assigned: boolean): Promise<SourceRef[]> {
  return selectRefs(db)
    .where(and(eq(sources.deleted, false), eq(sources.projectId, projectId), eq(sources.assigned, assigned)))
    .orderBy(sources.id);
}

export interface ProjectRef { id: number; projectName: string; organizationName: string | null }

export async function findProject(db: Executor, by: { id: number } | { projectName: string }): Promise<ProjectRef | undefined> {
  const [row] = await db.select({ id: projects.id, projectName: projects.projectName, organizationName: organizations.name })
    .from(projects).leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .where('id' in by ? eq(projects.id, by.id) : eq(projects.projectName, by.projectName)).limit(1);
  return row;
}

export interface SubjectRef { id: number; login: string; project: ProjectRef | null }

/** A subject by login, with its active project (its user's ROLE_PARTICIPANT role). */
export async function findSubjectByLogin(db: Executor, login: string): Promise<SubjectRef | undefined> {
  const [row] = await db.select({
    id: subjects.id, login: users.login,
    projectId: projects.id, projectName: projects.projectName, organizationName: organizations.name,
  }).from(subjects)
    .innerJoin(users, eq(users.id, subjects.userId))
    .leftJoin(roleUsers, eq(roleUsers.userId, users.id))
    .leftJoin(roles, and(eq(roles.id, roleUsers.roleId), eq(roles.authorityName, 'ROLE_PARTICIPANT')))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(eq(users.login, login))
    .orderBy(sql`${projects.id} nulls last`).limit(1);
  if (!row) return undefined;
  const project = row.projectId !== null && row.projectName !== null
    ? { id: row.projectId, projectName: row.projectName, organizationName: row.organizationName } : null;
  return { id: row.id, login: row.login, project };
}

export async function sourceTypeInProject(db: Executor, projectId: number, sourceTypeId: number): Promise<boolean> {
  const [row] = await db.select({ id: projectSourceTypes.sourceTypeId }).from(projectSourceTypes)
    .where(and(eq(projectSourceTypes.projectId, projectId), eq(projectSourceTypes.sourceTypeId, sourceTypeId))).limit(1);
  return row !== undefined;
}

/** Whether a source other than `exceptId` (deleted ones too: names stay unique) has this name. */
export async function sourceNameTaken(db: Executor, name: string, exceptId?: number): Promise<boolean> {
  const [row] = await db.select({ id: sources.id }).from(sources)
    .where(and(eq(sources.sourceName, name), exceptId === undefined ? undefined : ne(sources.id, exceptId))).limit(1);
  return row !== undefined;
}

/** Whether any recorded revision shows the source assigned (the reference's Envers history check). */
export async function everAssigned(db: Executor, sourceId: number): Promise<boolean> {
  const [row] = await db.select({ id: revisionChanges.id }).from(revisionChanges)
    .where(and(
      eq(revisionChanges.entityType, 'source'), eq(revisionChanges.entityId, sourceId),
      sql`${revisionChanges.entity} @> '{"assigned": true}'::jsonb`,
    )).limit(1);
  return row !== undefined;
}

export async function insertSource(db: Executor, row: SourceInsert): Promise<SourceRow> {
  const [inserted] = await db.insert(sources).values(row).returning();
  return inserted!;
}

export async function updateSource(db: Executor, id: number, set: Partial<SourceInsert>): Promise<void> {
  await db.update(sources).set(set).where(eq(sources.id, id));
}

export async function deleteSource(db: Executor, id: number): Promise<void> {
  await db.delete(sources).where(eq(sources.id, id));
}

/** The sources assigned to each of `subjectIds` (not deleted), ordered by id. */
export async function loadSubjectSources(db: Executor, subjectIds: readonly number[]): Promise<Map<number, MinimalSourceDtoT[]>> {
  const result = new Map<number, MinimalSourceDtoT[]>(subjectIds.map((id) => [id, []]));
  if (subjectIds.length === 0) return result;
  const rows = await db.select({ source: sources, type: { id: sourceTypes.id, producer: sourceTypes.producer, model: sourceTypes.model, catalogVersion: sourceTypes.catalogVersion } })
    .from(sources).leftJoin(sourceTypes, eq(sourceTypes.id, sources.sourceTypeId))
    .where(and(inArray(sources.subjectId, [...subjectIds]), eq(sources.deleted, false)))
    .orderBy(asc(sources.id));
  for (const { source, type } of rows) result.get(source.subjectId!)?.push(minimalSourceDto(source, type));
  return result;
}

/** `SourceDTO`s of `rows`, in order; `withProject: false` leaves `project` out (project listings). */
export async function loadSourceDtos(db: Executor, rows: readonly SourceWithRefs[], options: { withProject: boolean }): Promise<SourceDtoT[]> {
  const typeIds = rows.flatMap((r) => (r.source.sourceTypeId === null ? [] : [r.source.sourceTypeId]));
  const types = new Map((await loadSourceTypeDtos(db, typeIds)).map((t) => [t.id, t]));
  return rows.map(({ source, subjectLogin, project }) => {
    const dto: SourceDtoT = {
      id: source.id,
      sourceId: source.sourceId,
      sourceName: source.sourceName,
      expectedSourceName: source.expectedSourceName,
      assigned: source.assigned,
      sourceType: source.sourceTypeId === null ? null : types.get(source.sourceTypeId) ?? null,
      subjectLogin,
      attributes: source.attributes,
    };
    if (options.withProject && project) dto.project = { id: project.id, projectName: project.projectName };
    return dto;
  });
}

/** A source row with what its DTO needs of its subject and project. */
export interface SourceWithRefs {
  source: SourceRow;
  subjectLogin: string | null;
  project: { id: number; projectName: string } | null;
}
