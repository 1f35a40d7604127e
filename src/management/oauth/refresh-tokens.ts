/**
 * Refresh-token rules: every refresh token is recorded when issued and valid once (the SQL is in
 * queries.ts).
 *
 * `rotate` consumes a token, records its successor and loads the user's claims in one statement
 * (an UPDATE feeding an INSERT beside a SELECT: one round trip, where a transaction took five). The consuming UPDATE only matches an
 * unused, unrevoked row, so of many concurrent requests with one token exactly one wins
 * (PostgreSQL row locks; PGlite runs statements one at a time). A later request with a used token
 * is reuse: the whole family (every token of the chain, hence everything descended from it) is
 * revoked. Because the successor is inserted by the consuming statement, a revocation that
 * follows sees it; one that runs at the same time may miss it (on PostgreSQL it is not in the
 * revoking statement's snapshot), so a token whose parent is revoked is refused as revoked too.
 *
 * After a switch-over (issue 32 item 4), a refresh token the reference ManagementPortal signed with
 * the same key is unknown here: `legacy` lets `rotate` record it on its first presentation (as a
 * family of its own) and then consume it as any other, so it works once and a second use is reuse.
 * The reference never revoked refresh tokens, so accepting its unexpired ones once widens nothing;
 * those signed before the user's credentials were ended here are refused.
 */
import type { Database } from '../../platform/database.js';
import type { RefreshTokenInsert } from '../schema.js';
import type { UserWithRoles } from '../security/queries.js';
import { findRefreshToken, recordLegacyRefreshToken, recordRefreshToken, revokeFamily, rotateRefreshToken } from './queries.js';

/** A presented refresh token that may be one the reference issued: its claims' times and owner. */
export interface LegacyRefreshToken {
  clientId: string;
  userLogin: string | null;
  issuedAt: Date;
  expiresAt: Date;
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
 * a successor is recorded then too. An unknown `jti` given with `legacy` is recorded (when its
 * user may still use it) and then rotated as a known one.
 */
export async function rotate(
  db: Database, jti: string, successor: Omit<RefreshTokenInsert, 'familyId' | 'parentJti'>, now: Date, graceSeconds: number,
  legacy?: LegacyRefreshToken,
): Promise<RotateResult> {
  const login = successor.userLogin ?? null;
  // The common case in one round trip.
  const { rotated, user } = await rotateRefreshToken(db, jti, successor, now);
  if (rotated) return { outcome: 'rotated', user };
  if (login !== null && !user?.activated) {
    // A revoked token says so whatever its user's state: a deactivation revokes the user's chains,
    // and they stay revoked (invalid_grant) after the user is activated again.
    if ((await findRefreshToken(db, jti))?.revokedAt) return { outcome: 'revoked', user };
    return { outcome: 'user_refused', user };
  }

  // Not consumable: unknown, revoked, a repeat within the grace period, or reuse.
  const result = await db.transaction(async (tx) => {
    const found = await findRefreshToken(tx, jti);
    if (!found) return { outcome: 'unknown' as const };
    if (found.revokedAt) return { outcome: 'revoked' as const };
    // Recorded by a rotation that raced a revocation of its chain (revokeRefreshTokensOfUser,
    // revokeFamily): the revoking statement missed it, but its parent is revoked. The rest of the
    // chain is revoked below.
    if (found.parentJti !== null && (await findRefreshToken(tx, found.parentJti))?.revokedAt) {
      return { outcome: 'chain_revoked' as const, familyId: found.familyId };
    }
    if (graceSeconds > 0 && found.usedAt && now.getTime() - found.usedAt.getTime() <= graceSeconds * 1000) {
      await recordRefreshToken(tx, { ...successor, familyId: found.familyId, parentJti: jti });
      return { outcome: 'grace' as const };
    }
    return { outcome: 'reused' as const, familyId: found.familyId };
  });
  if (result.outcome === 'reused' || result.outcome === 'chain_revoked') {
    // Outside the reading transaction, so the revocation commits even though the request fails.
    await revokeFamily(db, result.familyId, now);
    return { outcome: result.outcome === 'reused' ? 'reused' : 'revoked', user };
  }
  if (result.outcome === 'unknown' && legacy) {
    // Recorded by this request or a concurrent one; either way the consuming UPDATE decides which
    // request uses it, and a later one is reuse. Not recorded (its user may not use it): unknown.
    await recordLegacyRefreshToken(db, { jti, ...legacy });
    return rotate(db, jti, successor, now, graceSeconds);
  }
  return { outcome: result.outcome, user };
}
