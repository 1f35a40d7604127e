/**
 * How the scheduler records a claimed batch's outcomes. Every update is guarded by the claim's
 * lease: a message that was updated, rescheduled or deleted while its batch was in flight (which
 * clears or drops the lease) keeps its new state, and a lease taken over after a crash is not
 * written by the process that lost it.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { messages, users } from '../schema.js';

/** Moves claimed messages to EXECUTED or ERRORED; returns the ids that still carried the lease. */
export async function finishMessages(db: Executor, ids: number[], state: 'EXECUTED' | 'ERRORED', lease: Date, opts: { sent: boolean; now: Date }): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.update(messages)
    .set({
      state,
      leaseUntil: null,
      attempts: opts.sent ? sql`${messages.attempts} + 1` : messages.attempts,
      updatedAt: opts.now,
    })
    .where(and(inArray(messages.id, ids), eq(messages.state, 'SCHEDULED'), eq(messages.leaseUntil, lease)))
    .returning({ id: messages.id });
  return rows.map((r) => r.id);
}

/** Keeps messages SCHEDULED for another attempt at `retryAt`, counting the failed one. */
export async function retryMessages(db: Executor, ids: number[], lease: Date, retryAt: Date): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.update(messages)
    .set({ leaseUntil: retryAt, attempts: sql`${messages.attempts} + 1` })
    .where(and(inArray(messages.id, ids), eq(messages.state, 'SCHEDULED'), eq(messages.leaseUntil, lease)))
    .returning({ id: messages.id });
  return rows.map((r) => r.id);
}

/** Clears a user's device token that FCM refused, unless the user has registered another since. */
export const clearFcmToken = (db: Executor, userId: number, token: string, now: Date) =>
  db.update(users).set({ fcmToken: null, updatedAt: now }).where(and(eq(users.id, userId), eq(users.fcmToken, token)));
