/** SQL of the user management API (`/api/users`): the built-in accounts' rows, the filtered list, changes. */
import { and, eq, inArray, isNull, sql, asc, count, desc, exists, not, or, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { authorities, organizations, roles, roleUsers, users, projects, subjects, type UserRow } from '../../schema.js';
import { alias } from 'drizzle-orm/pg-core';
import type { Page } from '../../http/paging.js';
import { loadRoleDtos } from '../roles/queries.js';
import { userDto, type UserDtoT } from './schemas.js';

export async function insertAuthorities(db: Executor, names: readonly string[]): Promise<void> {
  await db.insert(authorities).values(names.map((name) => ({ name }))).onConflictDoNothing();
}

/** The global role row of an authority, created when missing. */
export async function globalRoleId(db: Executor, authority: string): Promise<number> {
  const [existing] = await db.select({ id: roles.id }).from(roles)
    .where(and(eq(roles.authorityName, authority), isNull(roles.projectId), isNull(roles.organizationId))).limit(1);
  if (existing) return existing.id;
  const [created] = await db.insert(roles).values({ authorityName: authority }).returning({ id: roles.id });
  return created!.id;
}

export async function insertUser(db: Executor, user: typeof users.$inferInsert): Promise<UserRow> {
  const [row] = await db.insert(users).values(user).returning();
  return row!;
}

export async function setPasswordHash(db: Executor, userId: number, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash, lastModifiedBy: 'system', lastModifiedDate: sql`now()` }).where(eq(users.id, userId));
}

export async function addRole(db: Executor, userId: number, roleId: number): Promise<void> {
  await db.insert(roleUsers).values({ userId, roleId }).onConflictDoNothing();
}

/** The organization named `name`, created when missing. */
export async function ensureOrganization(db: Executor, org: { name: string; description: string; location: string }): Promise<void> {
  await db.insert(organizations).values(org).onConflictDoNothing();
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

/** The subject record of a user (participants have one), if any. */
export async function findSubjectOfUser(db: Executor, userId: number): Promise<{ removed: boolean } | undefined> {
  const [row] = await db.select({ removed: subjects.removed }).from(subjects).where(eq(subjects.userId, userId)).limit(1);
  return row;
}

export async function updateUserRow(db: Executor, id: number, set: Partial<typeof users.$inferInsert>): Promise<UserRow> {
  const [row] = await db.update(users).set(set).where(eq(users.id, id)).returning();
  return row!;
}

export async function deleteUserById(db: Executor, id: number): Promise<void> {
  await db.delete(users).where(eq(users.id, id));
}

/** DTOs of `rows` (in that order) with their roles, loaded in one query. */
export async function loadUserDtos(db: Executor, rows: readonly UserRow[], provenance = true): Promise<UserDtoT[]> {
  const roleDtos = await loadRoleDtos(db, rows.map((r) => r.id));
  return rows.map((row) => userDto(row, roleDtos.get(row.id) ?? [], provenance));
}

/** The reference's `UserFilter` criteria, already normalised (blank and `"null"` values dropped). */
export interface UserCriteria {
  login?: string;
  email?: string;
  /** Part of the first and last name, joined by a space. */
  name?: string;
  projectName?: string;
  organization?: string;
  /** Authorities allowed by the authority filter: non-personal ones, narrowed by `authority`. */
  authorities: readonly { name: string; scope: 'GLOBAL' | 'ORGANIZATION' | 'PROJECT' }[];
  /** No authority filter given: users without any role match too (unless a project or organization is asked). */
  allowNoRole: boolean;
  includeUpperLevels: boolean;
}

/** Whom the caller may see: everyone, or users with a role in these projects/organizations, and itself. */
export type UserVisibility = { global: true } | { global: false; self: string | undefined; projects: readonly string[]; organizations: readonly string[] };

export const USER_SORTS = ['id', 'login', 'email', 'langKey', 'activated', 'firstName', 'lastName', 'createdBy', 'createdDate', 'lastModifiedBy', 'lastModifiedDate'] as const;
export type UserSort = (typeof USER_SORTS)[number];

const projectOrganizations = alias(organizations, 'project_organizations');
const orgProjects = alias(projects, 'org_projects');

/** `lower(column) LIKE %value%` with the value's wildcards taken literally. */
const containsLower = (column: Column | SQL, value: string) =>
  sql`lower(${column}) like ${`%${value.trim().toLowerCase().replace(/[\\%_]/g, '\\$&')}%`}`;

/** EXISTS a role of the current `users` row satisfying `condition`. */
const hasRole = (db: Executor, condition: SQL | undefined) => exists(
  db.select({ one: sql`1` }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .leftJoin(projectOrganizations, eq(projectOrganizations.id, projects.organizationId))
    .where(and(eq(roleUsers.userId, users.id), condition)),
);

const FALSE = sql`false`;
const anyOf = (conditions: (SQL | undefined)[]) => {
  const present = conditions.filter((c): c is SQL => c !== undefined);
  return present.length === 0 ? FALSE : or(...present)!;
};

function criteriaCondition(db: Executor, c: UserCriteria): SQL {
  const names = (scope?: string) => c.authorities.filter((a) => scope === undefined || a.scope === scope).map((a) => a.name);
  const authorityIn = (scope?: string) => {
    const list = names(scope);
    return list.length > 0 ? inArray(roles.authorityName, list) : undefined;
  };
  if (c.authorities.length === 0) return FALSE;
  const conditions: (SQL | undefined)[] = [];
  let roleCondition: SQL;
  if (c.projectName !== undefined) {
    const project = authorityIn('PROJECT');
    const organization = authorityIn('ORGANIZATION');
    roleCondition = anyOf([
      project && and(project, containsLower(projects.projectName, c.projectName)),
      c.includeUpperLevels && organization ? and(organization, exists(db.select({ one: sql`1` }).from(orgProjects)
        .where(and(eq(orgProjects.organizationId, roles.organizationId), containsLower(orgProjects.projectName, c.projectName))))) : undefined,
      c.includeUpperLevels ? authorityIn('GLOBAL') : undefined,
    ]);
  } else if (c.organization !== undefined) {
    const organization = authorityIn('ORGANIZATION');
    roleCondition = anyOf([
      organization && and(organization, containsLower(organizations.name, c.organization)),
      c.includeUpperLevels ? authorityIn('GLOBAL') : undefined,
    ]);
  } else {
    roleCondition = authorityIn()!;
  }
  const noRole = c.allowNoRole && c.projectName === undefined && c.organization === undefined;
  conditions.push(anyOf([hasRole(db, roleCondition), noRole ? not(exists(db.select({ one: sql`1` }).from(roleUsers).where(eq(roleUsers.userId, users.id)))) : undefined]));
  if (c.login !== undefined) conditions.push(containsLower(users.login, c.login));
  if (c.email !== undefined) conditions.push(containsLower(users.email, c.email));
  // The name as the pages show it: first and last name, either or both ("Ada", "Lovelace", "ada love").
  if (c.name !== undefined) conditions.push(containsLower(sql`concat_ws(' ', ${users.firstName}, ${users.lastName})`, c.name));
  return and(...conditions)!;
}

function visibilityCondition(db: Executor, v: UserVisibility): SQL | undefined {
  if (v.global) return undefined;
  const reach: SQL[] = [];
  if (v.projects.length > 0) reach.push(inArray(projects.projectName, [...v.projects]));
  if (v.organizations.length > 0) {
    reach.push(inArray(projectOrganizations.name, [...v.organizations]), inArray(organizations.name, [...v.organizations]));
  }
  return anyOf([
    v.self !== undefined ? eq(users.login, v.self) : undefined,
    reach.length > 0 ? hasRole(db, or(...reach)) : undefined,
  ]);
}

const sortColumns = {
  id: users.id, login: users.login, email: users.email, langKey: users.langKey, activated: users.activated,
  firstName: users.firstName, lastName: users.lastName, createdBy: users.createdBy, createdDate: users.createdDate,
  lastModifiedBy: users.lastModifiedBy, lastModifiedDate: users.lastModifiedDate,
} as const;

/** One page of the users matching `criteria` that `visibility` lets the caller see, and their total. */
export async function searchUsers(db: Executor, criteria: UserCriteria, visibility: UserVisibility, page: Page<UserSort>): Promise<{ rows: UserRow[]; total: number }> {
  const where = and(criteriaCondition(db, criteria), visibilityCondition(db, visibility));
  const order = [...page.sort.map((s) => (s.direction === 'asc' ? asc : desc)(sortColumns[s.property])), asc(users.id)];
  const [rows, [total]] = await Promise.all([
    db.select().from(users).where(where).orderBy(...order).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(users).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
