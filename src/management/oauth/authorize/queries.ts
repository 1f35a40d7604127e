/**
 * SQL of the authorization-code flow: codes (stored by hash) and remembered consent. codes.ts and
 * approvals.ts hold the rules. Plain functions over an executor.
 */
import { and, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import { affectedRows, type Executor } from '../../../platform/database.js';
import { oauthApprovals, oauthCodes, users, type CodeRow } from '../../schema.js';

export async function insertAuthorizationCode(db: Executor, row: typeof oauthCodes.$inferInsert): Promise<void> {
  await db.insert(oauthCodes).values(row);
}

/** Marks the unused code with this hash used; undefined when there is none (unknown or used). */
export async function markCodeUsed(db: Executor, codeHash: string, now: Date): Promise<CodeRow | undefined> {
  const [row] = await db.update(oauthCodes).set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt))).returning();
  return row;
}

export async function findCodeByHash(db: Executor, codeHash: string): Promise<CodeRow | undefined> {
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  return row;
}

/** Remembers the refresh-token chain a code started, so a replay of the code can revoke it. */
export async function setCodeFamily(db: Executor, codeHash: string, familyId: string): Promise<void> {
  await db.update(oauthCodes).set({ familyId }).where(eq(oauthCodes.codeHash, codeHash));
}

/** Deletes codes expired before `now`; returns how many. */
export async function deleteExpiredCodes(db: Executor, now: Date): Promise<number> {
  return affectedRows(await db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, now)));
}

/** Which of `scopes` `login` has approved for `clientId` in approvals that hold at `now`. */
export async function findApprovedScopes(
  db: Executor, login: string, clientId: string, scopes: readonly string[], now: Date,
): Promise<string[]> {
  const rows = await db.select({ scope: oauthApprovals.scope }).from(oauthApprovals)
    .innerJoin(users, eq(users.id, oauthApprovals.userId))
    .where(and(
      eq(users.login, login), eq(oauthApprovals.clientId, clientId), inArray(oauthApprovals.scope, [...scopes]),
      eq(oauthApprovals.status, 'APPROVED'), gt(oauthApprovals.expiresAt, now),
    ));
  return rows.map((r) => r.scope);
}

/** Stores approvals, replacing earlier answers for the same user, client and scope. */
export async function upsertApprovals(db: Executor, rows: (typeof oauthApprovals.$inferInsert)[]): Promise<void> {
  await db.insert(oauthApprovals)
    .values(rows)
    .onConflictDoUpdate({
      target: [oauthApprovals.userId, oauthApprovals.clientId, oauthApprovals.scope],
      set: { status: sql`excluded.status`, expiresAt: sql`excluded.expires_at`, lastModifiedAt: sql`excluded.last_modified_at` },
    });
}

/** Deletes approvals expired before `now`; returns how many. */
export async function deleteExpiredApprovals(db: Executor, now: Date): Promise<number> {
  return affectedRows(await db.delete(oauthApprovals).where(lt(oauthApprovals.expiresAt, now)));
}

/** The approvals `login` holds at `now` (approved, not expired), by client then scope. */
export async function findApprovalsOfUser(db: Executor, login: string, now: Date): Promise<{ clientId: string; scope: string; expiresAt: Date }[]> {
  return db.select({ clientId: oauthApprovals.clientId, scope: oauthApprovals.scope, expiresAt: oauthApprovals.expiresAt })
    .from(oauthApprovals)
    .innerJoin(users, eq(users.id, oauthApprovals.userId))
    .where(and(eq(users.login, login), eq(oauthApprovals.status, 'APPROVED'), gt(oauthApprovals.expiresAt, now)))
    .orderBy(oauthApprovals.clientId, oauthApprovals.scope);
}

/** Deletes every answer `login` gave `clientId` (approvals and denials); returns how many. */
export async function deleteApprovalsOfClient(db: Executor, login: string, clientId: string): Promise<number> {
  const user = db.select({ id: users.id }).from(users).where(eq(users.login, login));
  return affectedRows(await db.delete(oauthApprovals).where(and(eq(oauthApprovals.clientId, clientId), inArray(oauthApprovals.userId, user))));
}
