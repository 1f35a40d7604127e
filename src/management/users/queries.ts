/** SQL for user accounts as the token endpoint needs them. */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { executedRows } from '../../platform/bulk-insert.js';
import type { Executor } from '../../platform/database.js';
import { authorities, organizations, roles, roleUsers, users } from '../schema.js';

export type UserRow = typeof users.$inferSelect;

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.login, login)).limit(1);
  return row;
}

/** Which of `logins` are the logins of existing users (the clients file's check for client ids). */
export async function existingLogins(db: Executor, logins: readonly string[]): Promise<Set<string>> {
  if (logins.length === 0) return new Set();
  const rows = await db.select({ login: users.login }).from(users).where(inArray(users.login, [...logins]));
  return new Set(rows.map((r) => r.login));
}

export interface UserRole {
  authority: string;
  /** The referent of a project role. */
  projectName: string | null;
  /** The referent of an organization role. */
  organizationName: string | null;
  /** The organization of a project role's project (the permission oracle's organization checks). */
  projectOrganization: string | null;
}

export interface UserWithRoles {
  id: number;
  login: string;
  activated: boolean;
  roles: UserRole[];
  /** Source UUIDs of the user's subject, when asked for. */
  sources: string[];
}

/** The roles of the user aliased `u`, as a JSON array of `UserRole`. */
export const userRolesJson = sql`coalesce((select json_agg(json_build_object(
    'authority', r.authority_name, 'projectName', p.project_name, 'organizationName', o.name, 'projectOrganization', po.name) order by r.id)
  from management.role_users ru join management.roles r on r.id = ru.role_id
  left join management.projects p on p.id = r.project_id
  left join management.organizations o on o.id = r.organization_id
  left join management.organizations po on po.id = p.organization_id
  where ru.user_id = u.id), '[]'::json)`;

/** The source UUIDs of the subject of the user aliased `u`, as a JSON array. */
export const userSourcesJson = sql`coalesce((select json_agg(s.source_id order by s.id)
  from management.sources s join management.subjects sj on sj.id = s.subject_id
  where sj.user_id = u.id and not s.deleted), '[]'::json)`;

/** A row of `u.id, u.login, u.activated, roles, sources` as `UserWithRoles`; undefined when `id` is null (no user). */
export function userWithRolesOf(row: Record<string, unknown> | undefined): UserWithRoles | undefined {
  if (!row || row.id === null || row.id === undefined) return undefined;
  // postgres.js parses json columns; PGlite may hand them over as text.
  const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  return { id: Number(row.id), login: row.login as string, activated: row.activated as boolean, roles: json<UserRole[]>(row.roles), sources: json<string[]>(row.sources) };
}

/**
 * A user with its roles (and, when asked, its subject's sources) in one round trip: every
 * authenticated API request and every refresh needs them, and each query costs a socket write
 * and read. Undefined for an unknown login.
 */
export async function findUserWithRoles(db: Executor, login: string, options: { sources?: boolean } = {}): Promise<UserWithRoles | undefined> {
  const sources = options.sources ? userSourcesJson : sql`'[]'::json`;
  const [row] = executedRows(await db.execute(sql`
    select u.id, u.login, u.activated, ${userRolesJson} as roles, ${sources} as sources
    from management.users u where u.login = ${login}`));
  return userWithRolesOf(row);
}

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
