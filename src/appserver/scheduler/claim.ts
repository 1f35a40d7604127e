/**
 * The one place that claims due messages (STYLE §2.4, ARCHITECTURE rule 6).
 *
 * One statement picks the oldest due SCHEDULED messages whose lease is free or has run out,
 * skipping rows another process has locked (`FOR UPDATE SKIP LOCKED`), and stamps them with a
 * lease. The lease, not the row lock, is what keeps a batch to one process while it is sent:
 * the statement commits at once, and another process skips the rows until the lease runs out.
 * A process that dies mid-batch leaves its lease behind, so its rows come back after
 * SCHEDULER_LEASE_SECONDS (at-least-once across crashes; the in-flight batch may go twice).
 * A lease that ends exactly at `now` counts as ended.
 * The lease instant doubles as the claim's token: outcomes are recorded only on rows that still
 * carry it (see queries.ts).
 */
import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { messages, projects, users, type MessageRow } from '../schema.js';

/**
 * When a SCHEDULED message may next be claimed: its scheduled time, or the end of its lease when
 * that is later (GREATEST skips a NULL). The partial index `messages_due_idx` is on exactly this
 * expression, so claims and the look-ahead read one index range and never walk the rows other
 * claimers hold in flight.
 */
export const availableAt = sql<Date>`GREATEST(${messages.scheduledTime}, ${messages.leaseUntil})`;

/** An instant compared with `availableAt`: no column maps it, and postgres.js would send a Date as text. */
export const timestamptz = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * The columns of a message that dispatching reads (planning, building the FCM message, queueing
 * its e-mail). A claim returns these alone: each returned column costs Drizzle a decode per row
 * (a Date parsed from text for each timestamp), and the other 16 (e-mail texts, dedupe key,
 * timestamps …) were read for nothing, 500 rows a claim.
 */
const dispatchColumns = {
  id: messages.id, kind: messages.kind, userId: messages.userId, scheduledTime: messages.scheduledTime,
  ttlSeconds: messages.ttlSeconds, fcmTopic: messages.fcmTopic, fcmCondition: messages.fcmCondition,
  priority: messages.priority, mutableContent: messages.mutableContent, data: messages.data,
  title: messages.title, body: messages.body, sound: messages.sound, badge: messages.badge,
  subtitle: messages.subtitle, icon: messages.icon, color: messages.color,
  bodyLocKey: messages.bodyLocKey, bodyLocArgs: messages.bodyLocArgs,
  titleLocKey: messages.titleLocKey, titleLocArgs: messages.titleLocArgs,
  androidChannelId: messages.androidChannelId, tag: messages.tag, clickAction: messages.clickAction,
  emailEnabled: messages.emailEnabled, emailState: messages.emailState, attempts: messages.attempts,
};

/** A claimed message as dispatching sees it. */
export type DispatchMessage = Pick<MessageRow, keyof typeof dispatchColumns>;

/** A claimed message with what sending needs: its owner's token, e-mail and ids, read at claim time. */
export interface ClaimedMessage {
  message: DispatchMessage;
  userToken: string | null;
  userEmail: string | null;
  projectId: string;
  subjectId: string;
}

export async function claimDueMessages(db: Executor, opts: { now: Date; limit: number; leaseUntil: Date }): Promise<ClaimedMessage[]> {
  const due = db.$with('due').as(
    db.select({ dueId: messages.id, dueUserId: messages.userId }).from(messages)
      // Due, and free of a lease or past its end: one range of the partial due index.
      .where(and(eq(messages.state, 'SCHEDULED'), lte(availableAt, timestamptz(opts.now))))
      .orderBy(asc(availableAt))
      .limit(opts.limit)
      .for('update', { skipLocked: true }),
  );
  const rows = await db.with(due).update(messages)
    .set({ leaseUntil: opts.leaseUntil })
    .from(due)
    .innerJoin(users, eq(users.id, due.dueUserId))
    .innerJoin(projects, eq(projects.id, users.projectId))
    .where(eq(messages.id, due.dueId))
    .returning({
      ...dispatchColumns,
      ownerFcmToken: users.fcmToken,
      ownerEmail: users.email,
      ownerProjectId: projects.projectId,
      ownerSubjectId: users.subjectId,
    });
  // Hot path (up to 500 rows a claim): the returned row serves as the message itself, extra
  // owner fields and all, instead of being copied by a rest spread (~20× slower in V8).
  const claimed: ClaimedMessage[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    claimed[i] = { message: row, userToken: row.ownerFcmToken, userEmail: row.ownerEmail, projectId: row.ownerProjectId, subjectId: row.ownerSubjectId };
  }
  return claimed;
}

/** A claimed notification e-mail with its recipient, read at claim time. */
export interface ClaimedEmail {
  message: Pick<MessageRow, 'id' | 'title' | 'body' | 'emailTitle' | 'emailBody' | 'emailAttempts'>;
  userEmail: string | null;
  subjectId: string;
}

/**
 * Claims queued notification e-mails (`email_state` PENDING) whose lease is free or has run out,
 * with the same discipline as the pushes: `FOR UPDATE SKIP LOCKED`, then a lease that keeps the
 * mail to this process while it is sent. A failed mail's lease is moved to its next attempt, so
 * the same condition also waits out the backoff.
 */
export async function claimDueEmails(db: Executor, opts: { now: Date; limit: number; leaseUntil: Date }): Promise<ClaimedEmail[]> {
  const due = db.$with('due_email').as(
    db.select({ dueId: messages.id, dueUserId: messages.userId }).from(messages)
      .where(and(
        eq(messages.emailState, 'PENDING'),
        or(isNull(messages.emailLeaseUntil), lt(messages.emailLeaseUntil, opts.now)),
      ))
      .orderBy(asc(messages.id))
      .limit(opts.limit)
      .for('update', { skipLocked: true }),
  );
  const rows = await db.with(due).update(messages)
    .set({ emailLeaseUntil: opts.leaseUntil })
    .from(due)
    .innerJoin(users, eq(users.id, due.dueUserId))
    .where(eq(messages.id, due.dueId))
    .returning({
      id: messages.id, title: messages.title, body: messages.body, emailTitle: messages.emailTitle,
      emailBody: messages.emailBody, emailAttempts: messages.emailAttempts, ownerEmail: users.email, ownerSubjectId: users.subjectId,
    });
  return rows.map((row) => ({ message: row, userEmail: row.ownerEmail, subjectId: row.ownerSubjectId }));
}
