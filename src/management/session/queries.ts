/** SQL for sign-in sessions and the stored session secret. Plain functions over an executor; no rules here. */
import { and, eq, gt, lt, lte, ne } from 'drizzle-orm';
import { affectedRows, type Executor } from '../../platform/database.js';
import { oauthSessions, serverSecrets, users, type SessionRow } from '../schema.js';


export async function insertSession(db: Executor, row: typeof oauthSessions.$inferInsert): Promise<void> {
  await db.insert(oauthSessions).values(row);
}

/**
 * A session that has not expired, with whether its signed-in user (if any) still exists and is
 * activated (`userActive`: null for a session nobody signed in to).
 */
export async function findLiveSession(db: Executor, id: string, now: Date): Promise<(SessionRow & { userActive: boolean | null }) | undefined> {
  const [row] = await db.select({ session: oauthSessions, activated: users.activated }).from(oauthSessions)
    .leftJoin(users, eq(users.login, oauthSessions.userLogin))
    .where(and(eq(oauthSessions.id, id), gt(oauthSessions.expiresAt, now))).limit(1);
  return row && { ...row.session, userActive: row.session.userLogin === null ? null : row.activated === true };
}

export async function updateSession(db: Executor, id: string, set: Partial<Omit<SessionRow, 'id' | 'createdAt'>>): Promise<void> {
  await db.update(oauthSessions).set(set).where(eq(oauthSessions.id, id));
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.delete(oauthSessions).where(eq(oauthSessions.id, id));
}

/** Ends every sign-in session of a user (deactivated or deleted), but the one stored as `exceptId` when given. */
export async function deleteSessionsOfUser(db: Executor, login: string, exceptId?: string): Promise<void> {
  await db.delete(oauthSessions).where(and(eq(oauthSessions.userLogin, login), exceptId === undefined ? undefined : ne(oauthSessions.id, exceptId)));
}

/** Deletes the session `id` if it expired (at or before `now`); returns the deleted row. */
export async function deleteExpiredSession(db: Executor, id: string, now: Date): Promise<SessionRow | undefined> {
  const [row] = await db.delete(oauthSessions).where(and(eq(oauthSessions.id, id), lte(oauthSessions.expiresAt, now))).returning();
  return row;
}

/** Deletes sessions expired before `now`; returns how many. */
export async function deleteExpiredSessions(db: Executor, now: Date): Promise<number> {
  return affectedRows(await db.delete(oauthSessions).where(lt(oauthSessions.expiresAt, now)));
}

/** Stores a server secret unless one of that name exists (the first writer's value stays). */
export async function insertServerSecretIfAbsent(db: Executor, name: string, value: string): Promise<void> {
  await db.insert(serverSecrets).values({ name, value }).onConflictDoNothing();
}

export async function findServerSecret(db: Executor, name: string): Promise<string | undefined> {
  const [row] = await db.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, name)).limit(1);
  return row?.value;
}

/** Stores a server secret, replacing one of that name. */
export async function upsertServerSecret(db: Executor, name: string, value: string): Promise<void> {
  await db.insert(serverSecrets).values({ name, value }).onConflictDoUpdate({ target: serverSecrets.name, set: { value } });
}
