/** SQL for roles: one row per (authority, project | organization | global), shared by its users. */
import { and, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../platform/database.js';
import { organizations, projects, roles, roleUsers } from '../../schema.js';
import { roleDto, type RoleDtoT, type RoleRow } from './dto.js';

/** The columns of a `RoleRow` (join `projects` and `organizations` on the role's referent). */
export const roleColumns = {
  id: roles.id,
  authorityName: roles.authorityName,
  organizationId: roles.organizationId,
  organizationName: organizations.name,
  projectId: roles.projectId,
  projectName: projects.projectName,
};

/** A role with its referent's names and, for a project role, the project's organization. */
export interface RoleRef extends RoleRow {
  projectOrganization: string | null;
}

const projectOrganizations = alias(organizations, 'project_organizations');

const roleRefColumns = { ...roleColumns, projectOrganization: projectOrganizations.name };

function selectRoleRefs(db: Executor) {
  return db.select(roleRefColumns).from(roles)
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .leftJoin(projectOrganizations, eq(projectOrganizations.id, projects.organizationId));
}

export async function findRoleRef(db: Executor, id: number): Promise<RoleRef | undefined> {
  const [row] = await selectRoleRefs(db).where(eq(roles.id, id)).limit(1);
  return row;
}

/** The role of `authority` on a project, an organization or (neither given) globally. */
export async function findRoleRefByKey(db: Executor, authority: string, referent: { projectId: number | null; organizationId: number | null }): Promise<RoleRef | undefined> {
  const [row] = await selectRoleRefs(db).where(and(
    eq(roles.authorityName, authority),
    referent.projectId === null ? isNull(roles.projectId) : eq(roles.projectId, referent.projectId),
    referent.organizationId === null ? isNull(roles.organizationId) : eq(roles.organizationId, referent.organizationId),
  )).limit(1);
  return row;
}

export async function findRoleRefByProjectAndAuthority(db: Executor, projectName: string, authority: string): Promise<RoleRef | undefined> {
  const [row] = await selectRoleRefs(db).where(and(eq(projects.projectName, projectName), eq(roles.authorityName, authority))).limit(1);
  return row;
}

export async function rolesByAuthority(db: Executor, authority: string): Promise<RoleRef[]> {
  return selectRoleRefs(db).where(eq(roles.authorityName, authority)).orderBy(roles.id);
}

/**
 * Roles visible through `referents`: all of them when global, else the roles of the given
 * projects, of the projects in the given organizations, and of those organizations themselves.
 */
export async function listRoleRefs(db: Executor, referents: { global: boolean; projects: readonly string[]; organizations: readonly string[] }): Promise<RoleRef[]> {
  const query = selectRoleRefs(db);
  if (referents.global) return query.orderBy(roles.id);
  const conditions: SQL[] = [];
  if (referents.projects.length > 0) conditions.push(inArray(projects.projectName, [...referents.projects]));
  if (referents.organizations.length > 0) {
    conditions.push(inArray(projectOrganizations.name, [...referents.organizations]), inArray(organizations.name, [...referents.organizations]));
  }
  if (conditions.length === 0) return [];
  return query.where(or(...conditions)).orderBy(roles.id);
}

/** The roles of many users at once, as (user id, role) pairs ordered by role id. */
export async function roleRefsOfUsers(db: Executor, userIds: readonly number[]): Promise<(RoleRef & { userId: number })[]> {
  if (userIds.length === 0) return [];
  return db.select({ userId: roleUsers.userId, ...roleRefColumns }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .leftJoin(projectOrganizations, eq(projectOrganizations.id, projects.organizationId))
    .where(inArray(roleUsers.userId, [...userIds]))
    .orderBy(roles.id);
}

/** Inserts a role; undefined when one with the same (authority, referent) exists. */
export async function insertRole(db: Executor, role: { authorityName: string; projectId: number | null; organizationId: number | null }): Promise<number | undefined> {
  const [row] = await db.insert(roles).values(role).onConflictDoNothing().returning({ id: roles.id });
  return row?.id;
}

export async function updateRole(db: Executor, id: number, role: { authorityName: string; projectId: number | null; organizationId: number | null }): Promise<void> {
  await db.update(roles).set(role).where(eq(roles.id, id));
}

/** A project by id or name, with its organization's name. */
export async function findProjectRef(db: Executor, by: { id: number } | { name: string }) {
  const [row] = await db.select({ id: projects.id, projectName: projects.projectName, organizationName: organizations.name })
    .from(projects)
    .leftJoin(organizations, eq(organizations.id, projects.organizationId))
    .where('id' in by ? eq(projects.id, by.id) : eq(projects.projectName, by.name))
    .limit(1);
  return row;
}

export async function findOrganizationRef(db: Executor, by: { id: number } | { name: string }) {
  const [row] = await db.select({ id: organizations.id, name: organizations.name }).from(organizations)
    .where('id' in by ? eq(organizations.id, by.id) : eq(organizations.name, by.name))
    .limit(1);
  return row;
}

/** Makes `roleIds` the user's roles: removes the others, adds the missing ones. */
export async function replaceUserRoles(db: Executor, userId: number, roleIds: readonly number[]): Promise<void> {
  await db.delete(roleUsers).where(eq(roleUsers.userId, userId));
  if (roleIds.length > 0) {
    await db.insert(roleUsers).values([...new Set(roleIds)].map((roleId) => ({ userId, roleId }))).onConflictDoNothing();
  }
}

/** Roles of many users at once: user id → role DTOs (ordered by role id). */
export async function loadRoleDtos(db: Executor, userIds: readonly number[]): Promise<Map<number, RoleDtoT[]>> {
  const result = new Map<number, RoleDtoT[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return result;
  const rows = await db.select({ userId: roleUsers.userId, ...roleColumns }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .where(inArray(roleUsers.userId, [...userIds]))
    .orderBy(roles.id);
  for (const row of rows) result.get(row.userId)?.push(roleDto(row));
  return result;
}
