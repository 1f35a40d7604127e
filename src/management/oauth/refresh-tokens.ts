/**
 * Refresh-token state: every refresh token is recorded when issued and valid once.
 *
 * `rotate` consumes a token, records its successor and loads the user's claims in one statement
 * (an UPDATE feeding an INSERT beside a SELECT: one round trip, where a transaction took five). The consuming UPDATE only matches an
 * unused, unrevoked row, so of many concurrent requests with one token exactly one wins
 * (PostgreSQL row locks; PGlite runs statements one at a time). A later request with a used token
 * is reuse: the whole family (every token of the chain, hence everything descended from it) is
 * revoked. Because the successor is inserted by the consuming statement, a revocation that
 * follows sees it.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { executedRows, type Database, type Executor } from '../../platform/database.js';
import { refreshTokens } from '../schema.js';
import { userRolesJson, userSourcesJson, userWithRolesOf, type UserWithRoles } from '../security/queries.js';

export type RefreshTokenInsert = typeof refreshTokens.$inferInsert;

export async function recordRefreshToken(db: Executor, row: RefreshTokenInsert): Promise<void> {
  await db.insert(refreshTokens).values(row);
}

export type RotateResult = {
  /**
   * `rotated`: consumed, successor recorded; `grace`: a repeat within the grace period, successor
   * recorded; `user_refused`: the token's user is unknown or not activated, nothing changed.
   */
  outcome: 'rotated' | 'grace' | 'user_refused' | 'unknown' | 'revoked' | 'reused';
  /** The token's user with roles and sources (when the token has one and it exists). */
  user?: UserWithRoles;
};

/**
 * Consumes `jti` and records `successor` (whose `familyId` and `parentJti` are set here), and
 * loads the successor's user (`successor.userLogin`) with roles and sources for its claims: all
 * in one statement. A token whose user is unknown or not activated is not consumed.
 * A repeat of the same token within `graceSeconds` of its first use is accepted (`grace`);
 * a successor is recorded then too.
 */
export async function rotate(
  db: Database, jti: string, successor: Omit<RefreshTokenInsert, 'familyId' | 'parentJti'>, now: Date, graceSeconds: number,
): Promise<RotateResult> {
  const login = successor.userLogin ?? null;
  // The common case in one round trip. The user's sub-selects see the data as it was before
  // the statement, which is what the claims need.
  const [row] = executedRows(await db.execute(sql`
    with u as (select id, login, activated from management.users where login = ${login}::text),
    consumed as (
      update ${refreshTokens} set used_at = ${now.toISOString()}::timestamptz
      where jti = ${jti}::text and used_at is null and revoked_at is null
        and (${login}::text is null or exists (select 1 from u where u.activated))
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
  const user = userWithRolesOf(row);
  if (Number(row?.rotated) > 0) return { outcome: 'rotated', user };
  if (login !== null && !user?.activated) return { outcome: 'user_refused', user };

  // Not consumable: unknown, revoked, a repeat within the grace period, or reuse.
  const result = await db.transaction(async (tx) => {
    const [found] = await tx.select().from(refreshTokens).where(eq(refreshTokens.jti, jti)).limit(1);
    if (!found) return { outcome: 'unknown' as const };
    if (found.revokedAt) return { outcome: 'revoked' as const };
    if (graceSeconds > 0 && found.usedAt && now.getTime() - found.usedAt.getTime() <= graceSeconds * 1000) {
      await tx.insert(refreshTokens).values({ ...successor, familyId: found.familyId, parentJti: jti });
      return { outcome: 'grace' as const };
    }
    return { outcome: 'reused' as const, familyId: found.familyId };
  });
  if (result.outcome === 'reused') {
    // Outside the reading transaction, so the revocation commits even though the request fails.
    await revokeFamily(db, result.familyId, now);
    return { outcome: 'reused', user };
  }
  return { outcome: result.outcome, user };
}

export async function revokeFamily(db: Executor, familyId: string, now: Date): Promise<number> {
  const rows = await db.update(refreshTokens).set({ revokedAt: now })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
    .returning({ jti: refreshTokens.jti });
  return rows.length;
}

export async function findRefreshToken(db: Executor, jti: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.jti, jti)).limit(1);
  return row;
}
