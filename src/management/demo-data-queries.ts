/**
 * SQL of the dev-profile demo data (demo-data.ts decides what is missing). Every insert skips
 * rows that exist by then (ON CONFLICT DO NOTHING). Plain functions over an executor.
 */
import { and, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '../platform/database.js';
import {
  groups, organizations, projects, projectSourceTypes, roles, roleUsers, sourceData, sources, sourceTypes, subjects, users,
  type NewProject, type SourceDataInsert, type SourceInsert, type SourceTypeInsert,
} from './schema.js';

export async function findOrganizationIdByName(db: Executor, name: string): Promise<number | undefined> {
  const [row] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, name));
  return row?.id;
}

export async function findProjectsByName(db: Executor, names: readonly string[]): Promise<{ id: number; name: string }[]> {
  return db.select({ id: projects.id, name: projects.projectName }).from(projects).where(inArray(projects.projectName, [...names]));
}

export async function insertProjects(db: Executor, rows: NewProject[]): Promise<void> {
  await db.insert(projects).values(rows).onConflictDoNothing();
}

/** The roles of the projects `projectIds` and of the organization `organizationId`. */
export async function findRolesOf(db: Executor, projectIds: readonly number[], organizationId: number) {
  return db.select({ id: roles.id, authority: roles.authorityName, projectId: roles.projectId, organizationId: roles.organizationId })
    .from(roles)
    .where(or(inArray(roles.projectId, [...projectIds]), eq(roles.organizationId, organizationId)));
}

export async function insertRoles(db: Executor, rows: (typeof roles.$inferInsert)[]): Promise<void> {
  await db.insert(roles).values(rows).onConflictDoNothing();
}

export async function findGroupsOfProject(db: Executor, projectId: number): Promise<{ id: number; name: string }[]> {
  return db.select({ id: groups.id, name: groups.name }).from(groups).where(eq(groups.projectId, projectId));
}

export async function insertGroups(db: Executor, rows: (typeof groups.$inferInsert)[]): Promise<void> {
  await db.insert(groups).values(rows).onConflictDoNothing();
}

/** Inserts users; returns the id and login of those inserted (not of those that existed). */
export async function insertUsers(db: Executor, rows: (typeof users.$inferInsert)[]): Promise<{ id: number; login: string }[]> {
  return db.insert(users).values(rows).onConflictDoNothing().returning({ id: users.id, login: users.login });
}

export async function insertRoleMemberships(db: Executor, rows: (typeof roleUsers.$inferInsert)[]): Promise<void> {
  await db.insert(roleUsers).values(rows).onConflictDoNothing();
}

export async function insertSubjects(db: Executor, rows: (typeof subjects.$inferInsert)[]): Promise<void> {
  await db.insert(subjects).values(rows).onConflictDoNothing();
}

type SourceTypeKey = { producer: string; model: string; catalogVersion: string };

/** The source types with one of these producer/model/version triples. */
export async function findSourceTypes(db: Executor, keys: readonly SourceTypeKey[]): Promise<(SourceTypeKey & { id: number })[]> {
  return db.select({ id: sourceTypes.id, producer: sourceTypes.producer, model: sourceTypes.model, catalogVersion: sourceTypes.catalogVersion })
    .from(sourceTypes)
    .where(or(...keys.map((t) => and(eq(sourceTypes.producer, t.producer), eq(sourceTypes.model, t.model), eq(sourceTypes.catalogVersion, t.catalogVersion)))));
}

export async function insertSourceTypes(db: Executor, rows: SourceTypeInsert[]): Promise<void> {
  await db.insert(sourceTypes).values(rows).onConflictDoNothing();
}

export async function linkSourceTypes(db: Executor, projectId: number, sourceTypeIds: readonly number[]): Promise<void> {
  await db.insert(projectSourceTypes).values(sourceTypeIds.map((sourceTypeId) => ({ projectId, sourceTypeId }))).onConflictDoNothing();
}

/** Which of `names` name existing source data. */
export async function findSourceDataNames(db: Executor, names: readonly string[]): Promise<string[]> {
  const rows = await db.select({ name: sourceData.sourceDataName }).from(sourceData).where(inArray(sourceData.sourceDataName, [...names]));
  return rows.map((r) => r.name);
}

export async function insertSourceData(db: Executor, rows: SourceDataInsert[]): Promise<void> {
  await db.insert(sourceData).values(rows).onConflictDoNothing();
}

/** Whether a source with this name or this source id exists. */
export async function sourceExists(db: Executor, sourceName: string, sourceId: string): Promise<boolean> {
  const [existing] = await db.select({ id: sources.id }).from(sources)
    .where(or(eq(sources.sourceName, sourceName), eq(sources.sourceId, sourceId))).limit(1);
  return existing !== undefined;
}

/** The id of the subject whose user has this login. */
export async function findSubjectIdByLogin(db: Executor, login: string): Promise<number | undefined> {
  const [owner] = await db.select({ id: subjects.id }).from(subjects).innerJoin(users, eq(users.id, subjects.userId))
    .where(eq(users.login, login)).limit(1);
  return owner?.id;
}

export async function insertSource(db: Executor, row: SourceInsert): Promise<void> {
  await db.insert(sources).values(row).onConflictDoNothing();
}
