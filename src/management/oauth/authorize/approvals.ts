/**
 * Remembered consent (the reference's approval store): a user who approved every scope a client
 * asks for is not shown the consent page again until the approvals expire.
 */
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { oauthApprovals, users } from '../../schema.js';

/** How long an answer is remembered: a month, as spring-security-oauth2's approval handler. */
export const APPROVAL_VALIDITY_MS = 30 * 24 * 3600 * 1000;

/** Whether `login` has approved every one of `scopes` for `clientId` and the approvals still hold. */
export async function allApproved(db: Executor, login: string, clientId: string, scopes: readonly string[], now: Date): Promise<boolean> {
  if (scopes.length === 0) return false;
  const rows = await db.select({ scope: oauthApprovals.scope }).from(oauthApprovals)
    .innerJoin(users, eq(users.id, oauthApprovals.userId))
    .where(and(
      eq(users.login, login), eq(oauthApprovals.clientId, clientId), inArray(oauthApprovals.scope, [...scopes]),
      eq(oauthApprovals.status, 'APPROVED'), gt(oauthApprovals.expiresAt, now),
    ));
  return new Set(rows.map((r) => r.scope)).size === new Set(scopes).size;
}

/** Records the user's answer for each scope (replacing earlier ones). */
export async function rememberDecision(
  db: Executor, login: string, clientId: string, scopes: readonly string[], approved: boolean, now: Date,
): Promise<void> {
  if (scopes.length === 0) return;
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.login, login)).limit(1);
  if (!user) return;
  const status = approved ? 'APPROVED' as const : 'DENIED' as const;
  const expiresAt = new Date(now.getTime() + APPROVAL_VALIDITY_MS);
  await db.insert(oauthApprovals)
    .values([...new Set(scopes)].map((scope) => ({ userId: user.id, clientId, scope, status, expiresAt, lastModifiedAt: now })))
    .onConflictDoUpdate({
      target: [oauthApprovals.userId, oauthApprovals.clientId, oauthApprovals.scope],
      set: { status: sql`excluded.status`, expiresAt: sql`excluded.expires_at`, lastModifiedAt: sql`excluded.last_modified_at` },
    });
}
