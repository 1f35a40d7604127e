/**
 * SQL of user accounts as authentication needs them: the token endpoint, the bearer and session
 * authentication of the API, and the sign-in pages look users up here.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { executedRows, type Executor } from '../../platform/database.js';
import { users, type UserRow } from '../schema.js';


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
  /** The account's language (`lang_key`); null when the query did not select it. */
  langKey: string | null;
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
  const langKey = typeof row.lang_key === 'string' ? row.lang_key : null;
  return { id: Number(row.id), login: row.login as string, activated: row.activated as boolean, langKey, roles: json<UserRole[]>(row.roles), sources: json<string[]>(row.sources) };
}

/**
 * A user with its roles (and, when asked, its subject's sources) in one round trip: every
 * authenticated API request and every refresh needs them, and each query costs a socket write
 * and read. Undefined for an unknown login.
 */
export async function findUserWithRoles(db: Executor, login: string, options: { sources?: boolean } = {}): Promise<UserWithRoles | undefined> {
  const sources = options.sources ? userSourcesJson : sql`'[]'::json`;
  const [row] = executedRows(await db.execute(sql`
    select u.id, u.login, u.activated, u.lang_key, ${userRolesJson} as roles, ${sources} as sources
    from management.users u where u.login = ${login}`));
  return userWithRolesOf(row);
}
