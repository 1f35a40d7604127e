/**
 * SQL of refresh-token state (refresh-tokens.ts holds the rules: grace period, reuse). Plain
 * functions over an executor.
 */
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { affectedRows, executedRows, type Executor } from '../../platform/database.js';
import { refreshTokens, users, type RefreshTokenInsert } from '../schema.js';
import { userRolesJson, userSourcesJson, userWithRolesOf, type UserWithRoles } from '../security/queries.js';

export async function recordRefreshToken(db: Executor, row: RefreshTokenInsert): Promise<void> {
  await db.insert(refreshTokens).values(row);
}

export async function findRefreshToken(db: Executor, jti: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.jti, jti)).limit(1);
  return row;
}

/** Revokes every token of a family not revoked yet; returns how many. */
export async function revokeFamily(db: Executor, familyId: string, now: Date): Promise<number> {
  const rows = await db.update(refreshTokens).set({ revokedAt: now })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
    .returning({ jti: refreshTokens.jti });
  return rows.length;
}

/**
 * Revokes every refresh-token chain of a user (of one client when `clientId` is given): every
 * token of theirs not revoked yet, used or not, so no chain can be continued. Returns how many.
 * The one way a user's chains are ended (password change or reset, deactivation, a role taken
 * away, a remembered consent revoked); revoked rows stay revoked whatever happens to the user later.
 */
export async function revokeRefreshTokensOfUser(db: Executor, login: string, now: Date, clientId?: string): Promise<number> {
  const rows = await db.update(refreshTokens).set({ revokedAt: now })
    .where(and(
      eq(refreshTokens.userLogin, login), isNull(refreshTokens.revokedAt),
      clientId === undefined ? undefined : eq(refreshTokens.clientId, clientId),
    ))
    .returning({ jti: refreshTokens.jti });
  return rows.length;
}

/** Stamps the user's `credentials_ended_at`: reference-issued refresh tokens signed before `now` are refused. */
export async function endLegacyCredentialsOfUser(db: Executor, login: string, now: Date): Promise<void> {
  await db.update(users).set({ credentialsEndedAt: now }).where(eq(users.login, login));
}

/**
 * Records a refresh token the reference ManagementPortal issued (its first presentation here) as
 * an unused token of a family of its own, unless its `jti` is known already; returns whether it
 * was recorded. Only while its user (when it has one) exists, is activated and has not had its
 * credentials ended since `issuedAt`.
 */
export async function recordLegacyRefreshToken(
  db: Executor, row: { jti: string; clientId: string; userLogin: string | null; issuedAt: Date; expiresAt: Date },
): Promise<boolean> {
  const result = await db.execute(sql`
    insert into ${refreshTokens} (jti, family_id, parent_jti, client_id, user_login, issued_at, expires_at)
    select ${row.jti}::text, ${row.jti}::text, null, ${row.clientId}::text, ${row.userLogin}::text,
      ${row.issuedAt.toISOString()}::timestamptz, ${row.expiresAt.toISOString()}::timestamptz
    where ${row.userLogin}::text is null or exists (
      select 1 from ${users} u where u.login = ${row.userLogin}::text and u.activated
        and (u.credentials_ended_at is null or u.credentials_ended_at <= ${row.issuedAt.toISOString()}::timestamptz))
    on conflict (jti) do nothing`);
  return affectedRows(result) > 0;
}

/**
 * Consumes `jti` and records `successor` in its family with `jti` as parent, and loads the
 * successor's user (`successor.userLogin`) with roles and sources: one statement (an UPDATE
 * feeding an INSERT beside a SELECT: one round trip, where a transaction took five). The UPDATE
 * only matches an unused, unrevoked row whose parent (if any) is not revoked, and only while the
 * user (when there is one) exists and is activated. `rotated` says whether it matched.
 */
export async function rotateRefreshToken(
  db: Executor, jti: string, successor: Omit<RefreshTokenInsert, 'familyId' | 'parentJti'>, now: Date,
): Promise<{ rotated: boolean; user: UserWithRoles | undefined }> {
  const login = successor.userLogin ?? null;
  // The user's sub-selects see the data as it was before the statement, which is what the
  // claims need.
  const [row] = executedRows(await db.execute(sql`
    with u as (select id, login, activated from management.users where login = ${login}::text),
    consumed as (
      update ${refreshTokens} set used_at = ${now.toISOString()}::timestamptz
      where jti = ${jti}::text and used_at is null and revoked_at is null
        and (${login}::text is null or exists (select 1 from u where u.activated))
        -- A successor recorded while its chain was being revoked escaped the revoking UPDATE (not
        -- in its snapshot); its revoked parent gives it away.
        and not exists (select 1 from ${refreshTokens} p where p.jti = refresh_tokens.parent_jti and p.revoked_at is not null)
      returning family_id
    ),
    inserted as (
      insert into ${refreshTokens} (jti, family_id, parent_jti, client_id, user_login, expires_at)
      -- Typed parameters: a SELECT list does not take its types from the INSERT's columns.
      select ${successor.jti}::text, family_id, ${jti}::text, ${successor.clientId}::text, ${login}::text,
        ${successor.expiresAt.toISOString()}::timestamptz from consumed
      returning family_id
    )
    select (select count(*) from inserted)::int as rotated, u.id, u.login, u.activated,
      ${userRolesJson} as roles, ${userSourcesJson} as sources
    from (select 1) as one left join u on true`));
  return { rotated: Number(row?.rotated) > 0, user: userWithRolesOf(row) };
}

/** Deletes the records of expired refresh tokens (their JWTs are refused anyway); returns how many. */
export async function deleteExpiredRefreshTokens(db: Executor, now: Date): Promise<number> {
  return affectedRows(await db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)));
}
