/**
 * How the scheduler records a claimed batch's outcomes. Every update is guarded by the claim's
 * lease: a message that was updated, rescheduled or deleted while its batch was in flight (which
 * clears or drops the lease) keeps its new state, and a lease taken over after a crash is not
 * written by the process that lost it.
 */
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { executedRows, type Executor } from '../../platform/database.js';
import { messageStateEvents, messages, users, type EmailState } from '../schema.js';
import { availableAt, timestamptz } from './claim.js';

/** A claimed message's outcome: finished (EXECUTED / ERRORED, with its event) or kept SCHEDULED for a retry. */
export type BatchOutcome =
  | { id: number; state: 'EXECUTED' | 'ERRORED'; sent: boolean; info: string | null }
  | { id: number; state: 'SCHEDULED'; sent: true; retryAt: Date };

/**
 * Records a whole batch's outcomes in one statement: one `UPDATE … FROM jsonb_array_elements($1)`
 * and, for the finished rows it updated, their state events (`INSERT … SELECT` from the same
 * statement, so a message and its event change together). A finished message loses its lease and
 * counts the attempt when it was sent; a retried one counts the attempt and keeps SCHEDULED with
 * its lease moved to `retryAt`. Only rows still SCHEDULED under `lease` are written; returns those
 * ids, with whether each was retried.
 * (Per-message statements cost ~3 round trips and a 500-parameter IN list per outcome group.)
 */
export async function recordOutcomes(db: Executor, outcomes: BatchOutcome[], lease: Date, now: Date): Promise<{ id: number; retried: boolean }[]> {
  if (outcomes.length === 0) return [];
  const json = JSON.stringify(outcomes.map((o) => (o.state === 'SCHEDULED'
    ? [o.id, o.state, true, null, o.retryAt.toISOString()]
    : [o.id, o.state, o.sent, o.info, null])));
  // The id list lets the planner go through the primary key; joined on the JSON alone, it
  // estimates 100 rows and may hash-join over every SCHEDULED row of a fresh backlog.
  const ids = `{${outcomes.map((o) => o.id).join(',')}}`;
  const result = await db.execute(sql`
    WITH o AS (
      SELECT (e->>0)::bigint AS id, e->>1 AS state, (e->>2)::boolean AS sent, e->>3 AS info, (e->>4)::timestamptz AS retry_at
      FROM jsonb_array_elements(${json}::jsonb) AS e
    ), done AS (
      UPDATE ${messages} AS m
      SET state = o.state,
          lease_until = o.retry_at,
          attempts = CASE WHEN o.sent THEN m.attempts + 1 ELSE m.attempts END,
          updated_at = CASE WHEN o.retry_at IS NULL THEN ${now.toISOString()}::timestamptz ELSE m.updated_at END
      FROM o
      WHERE m.id = ANY(${ids}::bigint[]) AND m.id = o.id AND m.state = 'SCHEDULED' AND m.lease_until = ${lease.toISOString()}::timestamptz
      RETURNING m.id, o.state, o.info, o.retry_at
    ), events AS (
      INSERT INTO ${messageStateEvents} (message_id, state, time, associated_info, external)
      SELECT id, state, ${now.toISOString()}::timestamptz, info, false FROM done WHERE retry_at IS NULL
    )
    SELECT id, retry_at IS NOT NULL AS retried FROM done`);
  return executedRows(result).map((r) => ({ id: Number(r.id), retried: r.retried === true }));
}

/** Clears a user's device token that FCM refused, unless the user has registered another since. */
export const clearFcmToken = (db: Executor, userId: number, token: string, now: Date) =>
  db.update(users).set({ fcmToken: null, updatedAt: now }).where(and(eq(users.id, userId), eq(users.fcmToken, token)));

/**
 * The earliest instant after `now` at which a SCHEDULED message becomes claimable (its scheduled
 * time, or a retry's or lease's end; the partial due index answers it), if any.
 */
export async function findNextDueTime(db: Executor, now: Date): Promise<Date | undefined> {
  const [row] = await db.select({ next: sql<string | Date | null>`min(${availableAt})` }).from(messages)
    .where(and(eq(messages.state, 'SCHEDULED'), gt(availableAt, timestamptz(now))));
  return row?.next ? new Date(row.next) : undefined;
}

/**
 * Queues the e-mails of claimed notifications (PENDING), before their push is sent, so the mail
 * goes out beside the push and never waits for it. Only rows still under the claim's `lease` and
 * without e-mail state are queued (a mail is queued once, whatever the push's retries).
 */
export const queueEmails = (db: Executor, ids: number[], lease: Date) =>
  db.update(messages).set({ emailState: 'PENDING' })
    .where(and(inArray(messages.id, ids), isNull(messages.emailState), eq(messages.leaseUntil, lease)));

/** A claimed e-mail's outcome: finished (SENT / FAILED / SKIPPED) or kept PENDING until `retryAt`. */
export type EmailOutcome = { id: number; state: Exclude<EmailState, 'PENDING'> } | { id: number; state: 'PENDING'; retryAt: Date };

/**
 * Records a batch of e-mail outcomes in one statement, on rows that still hold the claim's
 * `lease` and are still PENDING (a rescheduled notification's e-mail starts over and is not
 * written by the old claim). Every outcome but SKIPPED counts an attempt. Returns the ids written.
 */
export async function recordEmailOutcomes(db: Executor, outcomes: EmailOutcome[], lease: Date): Promise<number[]> {
  if (outcomes.length === 0) return [];
  const json = JSON.stringify(outcomes.map((o) => [o.id, o.state, o.state === 'PENDING' ? o.retryAt.toISOString() : null]));
  const ids = `{${outcomes.map((o) => o.id).join(',')}}`;
  const result = await db.execute(sql`
    WITH o AS (
      SELECT (e->>0)::bigint AS id, e->>1 AS state, (e->>2)::timestamptz AS retry_at
      FROM jsonb_array_elements(${json}::jsonb) AS e
    )
    UPDATE ${messages} AS m
    SET email_state = o.state,
        email_lease_until = o.retry_at,
        email_attempts = CASE WHEN o.state = 'SKIPPED' THEN m.email_attempts ELSE m.email_attempts + 1 END
    FROM o
    WHERE m.id = ANY(${ids}::bigint[]) AND m.id = o.id AND m.email_state = 'PENDING' AND m.email_lease_until = ${lease.toISOString()}::timestamptz
    RETURNING m.id`);
  return executedRows(result).map((r) => Number(r.id));
}
