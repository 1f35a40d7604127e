/** SQL for sign-in sessions. Plain functions over an executor; no rules here. */
import { and, eq, gt, lt } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { oauthSessions } from '../schema.js';

export type SessionRow = typeof oauthSessions.$inferSelect;

export async function insertSession(db: Executor, row: typeof oauthSessions.$inferInsert): Promise<void> {
  await db.insert(oauthSessions).values(row);
}

export async function findLiveSession(db: Executor, id: string, now: Date): Promise<SessionRow | undefined> {
  const [row] = await db.select().from(oauthSessions).where(and(eq(oauthSessions.id, id), gt(oauthSessions.expiresAt, now))).limit(1);
  return row;
}

export async function updateSession(db: Executor, id: string, set: Partial<Omit<SessionRow, 'id' | 'createdAt'>>): Promise<void> {
  await db.update(oauthSessions).set(set).where(eq(oauthSessions.id, id));
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.delete(oauthSessions).where(eq(oauthSessions.id, id));
}

export async function deleteExpiredSessions(db: Executor, now: Date): Promise<void> {
  await db.delete(oauthSessions).where(lt(oauthSessions.expiresAt, now));
}
