/**
 * Refresh-token state: every refresh token is recorded when issued and valid once.
 *
 * `rotate` consumes a token and records its successor in one statement (an UPDATE feeding an
 * INSERT: one round trip, where a transaction took four). The consuming UPDATE only matches an
 * unused, unrevoked row, so of many concurrent requests with one token exactly one wins
 * (PostgreSQL row locks; PGlite runs statements one at a time). A later request with a used token
 * is reuse: the whole family (every token of the chain, hence everything descended from it) is
 * revoked. Because the successor is inserted by the consuming statement, a revocation that
 * follows sees it.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { executedRows } from '../../platform/bulk-insert.js';
import type { Database, Executor } from '../../platform/database.js';
import { refreshTokens } from '../schema.js';

export type RefreshTokenInsert = typeof refreshTokens.$inferInsert;

export async function recordRefreshToken(db: Executor, row: RefreshTokenInsert): Promise<void> {
  await db.insert(refreshTokens).values(row);
}

export type RotateResult =
  | { outcome: 'rotated' | 'grace' }
  | { outcome: 'unknown' | 'revoked' | 'reused' };

/**
 * Consumes `jti` and records `successor` (whose `familyId` and `parentJti` are set here).
 * A repeat of the same token within `graceSeconds` of its first use is accepted (`grace`);
 * a successor is recorded then too.
 */
export async function rotate(
  db: Database, jti: string, successor: Omit<RefreshTokenInsert, 'familyId' | 'parentJti'>, now: Date, graceSeconds: number,
): Promise<RotateResult> {
  // The common case in one statement: consume the token and record its successor.
  const consumed = executedRows(await db.execute(sql`
    with consumed as (
      update ${refreshTokens} set used_at = ${now.toISOString()}::timestamptz
      where jti = ${jti}::text and used_at is null and revoked_at is null
      returning family_id
    )
    insert into ${refreshTokens} (jti, family_id, parent_jti, client_id, user_login, expires_at)
    -- Typed parameters: a SELECT list does not take its types from the INSERT's columns.
    select ${successor.jti}::text, family_id, ${jti}::text, ${successor.clientId}::text, ${successor.userLogin ?? null}::text,
      ${successor.expiresAt.toISOString()}::timestamptz from consumed
    returning family_id`));
  if (consumed.length > 0) return { outcome: 'rotated' };

  // Not consumable: unknown, revoked, a repeat within the grace period, or reuse.
  const result = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(refreshTokens).where(eq(refreshTokens.jti, jti)).limit(1);
    if (!row) return { outcome: 'unknown' as const };
    if (row.revokedAt) return { outcome: 'revoked' as const };
    if (graceSeconds > 0 && row.usedAt && now.getTime() - row.usedAt.getTime() <= graceSeconds * 1000) {
      await tx.insert(refreshTokens).values({ ...successor, familyId: row.familyId, parentJti: jti });
      return { outcome: 'grace' as const };
    }
    return { outcome: 'reused' as const, familyId: row.familyId };
  });
  if (result.outcome === 'reused') {
    // Outside the reading transaction, so the revocation commits even though the request fails.
    await revokeFamily(db, result.familyId, now);
    return { outcome: 'reused' };
  }
  return result;
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
