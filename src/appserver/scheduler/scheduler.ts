/**
 * The notification scheduler: every SCHEDULER_TICK_MS (toad-scheduler, no overlapping ticks) it
 * drains the due messages in batches: claim (claim.ts) → send through FCM (one `sendEach` per
 * batch, ≤ 500) → record EXECUTED / ERRORED / retry with the state-event rows in one statement
 * (queries.ts `recordOutcomes`) → tell listeners after the commit. While batches come back full,
 * up to SCHEDULER_CONCURRENCY batches are in flight at once, and the drain goes on without
 * waiting for the next tick. Between ticks, a timer wakes it at the next due time when that
 * comes first (looked up after each drain and when this process schedules a message).
 *
 * Delivery is exactly once while processes run, and at least once across crashes: a batch whose
 * process dies after sending and before recording is sent again when its lease runs out. A
 * database outage between sending and recording is waited out (up to the lease).
 * Notification e-mails (transmit/email.ts) have their own queue on the message row: the push's
 * first attempt queues the mail (PENDING) just before it is sent, and a mail drain beside the push
 * drains claims queued mails under their own lease (claim.ts `claimDueEmails`), sends them, and
 * retries a temporary failure with backoff up to `emailMaxAttempts` sends. EXECUTED reflects
 * the push only; a mail outage never holds a push back, nor a push outage the mail.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AsyncTask, SimpleIntervalJob, ToadScheduler } from 'toad-scheduler';
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, sqlState, type Database, type Executor } from '../../platform/database.js';
import type { AppserverEventBus, MessageStateChange } from '../events.js';
import type { MessageState } from '../schema.js';
import type { NotificationEmailSender } from '../transmit/email.js';
import type { FcmSender } from '../transmit/fcm.js';
import { claimDueEmails, claimDueMessages, type ClaimedMessage } from './claim.js';
import { clearFcmToken, findNextDueTime, queueEmails, recordEmailOutcomes, recordOutcomes, type BatchOutcome, type EmailOutcome } from './queries.js';
import { classifyFailure, planMessage, retryDelaySeconds, type ErrorInfo } from './rules.js';
import type { SchedulerMetrics } from './metrics.js';

export interface SchedulerSettings {
  tickMs: number;
  batchSize: number;
  concurrency: number;
  leaseSeconds: number;
  maxAttempts: number;
  retrySeconds: number;
  /** Sends of a notification e-mail that failed for a passing reason before it becomes FAILED. */
  emailMaxAttempts: number;
  /** Wait before an e-mail's first retry; it doubles with each further attempt (at most one hour). */
  emailRetrySeconds: number;
}

export interface SchedulerDeps {
  db: Database;
  events: AppserverEventBus;
  fcm: FcmSender;
  /** Notification e-mails; absent when they are switched off (RADAR_NOTIFICATION_EMAIL_ENABLED). */
  email?: NotificationEmailSender;
  metrics: SchedulerMetrics;
  log: FastifyBaseLogger;
  settings: SchedulerSettings;
  clock?: () => Date;
}

export interface Scheduler {
  start(): void;
  /** Stops ticking and waits for the batches and e-mails in flight to finish. */
  stop(): Promise<void>;
  /** One tick now (drains what is due); resolves with the number of messages claimed. */
  runOnce(): Promise<number>;
}

interface Outcome { id: number; state: 'EXECUTED' | 'ERRORED'; info: ErrorInfo | null; sent: boolean }

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { db, events, fcm, email, metrics, settings, clock = () => new Date() } = deps;
  const log = deps.log;
  const toad = new ToadScheduler();
  let stopping = false;
  let tickNo = 0;
  let current: Promise<number> | undefined;
  let started = false;
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  let lookingAhead: Promise<void> | undefined;
  let lookAgain = false;
  let unsubscribe: (() => void) | undefined;
  let mailing: Promise<void> | undefined;
  let mailAgain = false;

  /** A notification that asks for e-mail queues it with its first send attempt, not with retries. */
  const wantsMail = ({ message: m }: ClaimedMessage) =>
    email !== undefined && m.kind === 'notification' && m.emailEnabled && m.attempts === 0 && m.emailState === null;

  /** Sends one claimed batch and records its outcomes. */
  async function processBatch(batch: ClaimedMessage[], lease: Date, tlog: FastifyBaseLogger) {
    const now = clock();
    const outcomes: Outcome[] = [];
    const toSend: { c: ClaimedMessage; lateness: number }[] = [];
    const messages = [];
    const mails: number[] = [];
    for (const c of batch) {
      const plan = planMessage(c, now);
      if ('fail' in plan) {
        outcomes.push({ id: c.message.id, state: 'ERRORED', info: plan.fail, sent: false });
        if (plan.fail.error !== 'expired' && wantsMail(c)) mails.push(c.message.id);
        continue;
      }
      if (wantsMail(c)) mails.push(c.message.id);
      toSend.push({ c, lateness: plan.lateness });
      messages.push(plan.send);
    }

    if (mails.length > 0) {
      await queueEmails(db, mails, lease);
      drainEmails();
    }
    const results = await fcm.sendEach(messages);
    if (fcm.kind === 'disabled' && messages.length > 0) tlog.info({ dropped: messages.length }, 'FCM sender disabled: messages dropped');
    const sentAt = clock();
    const retries = new Map<number, ClaimedMessage[]>(); // delay in seconds → messages
    const tokensToClear: { userId: number; token: string; id: number }[] = [];
    for (const [i, { c, lateness }] of toSend.entries()) {
      const result = results[i]!;
      const m = c.message;
      if (result.ok) {
        outcomes.push({ id: m.id, state: 'EXECUTED', info: null, sent: true });
        metrics.lateness.observe({ kind: m.kind }, lateness + (sentAt.getTime() - now.getTime()) / 1000);
        continue;
      }
      const failure = classifyFailure(result.code, result.message);
      const attempts = m.attempts + 1;
      if (failure.retry && attempts < settings.maxAttempts) {
        const delay = retryDelaySeconds(attempts, settings.retrySeconds);
        const retried = retries.get(delay);
        if (retried) retried.push(c);
        else retries.set(delay, [c]);
        tlog.warn({ messageId: m.id, attempt: attempts, code: result.code, retryInSeconds: delay }, 'fcm send failed, retrying');
        continue;
      }
      const info = failure.retry
        ? { error: failure.info.error, error_description: `${failure.info.error_description} (gave up after ${attempts} attempts)` }
        : failure.info;
      outcomes.push({ id: m.id, state: 'ERRORED', info, sent: true });
      if (!failure.retry && failure.clearToken && m.userId && c.userToken && !m.fcmTopic && !m.fcmCondition) {
        tokensToClear.push({ userId: m.userId, token: c.userToken, id: m.id });
      }
      tlog.warn({ messageId: m.id, code: result.code, error: info.error }, 'fcm send failed');
    }

    const byId = new Map<number, ClaimedMessage>();
    for (const c of batch) byId.set(c.message.id, c);
    const rows: BatchOutcome[] = new Array(outcomes.length);
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i]!;
      rows[i] = { id: o.id, state: o.state, sent: o.sent, info: infoJson(o.info) };
    }
    for (const [delay, retried] of retries) {
      const retryAt = new Date(sentAt.getTime() + delay * 1000);
      for (const c of retried) rows.push({ id: c.message.id, state: 'SCHEDULED', sent: true, retryAt });
    }
    // One statement records the batch (messages and their events together); a transaction only
    // when a refused token is cleared with it.
    const record = async (executor: Executor) => {
      const written = await recordOutcomes(executor, rows, lease, sentAt);
      const recorded = new Set<number>();
      const retried: number[] = [];
      for (const w of written) {
        if (w.retried) retried.push(w.id);
        else recorded.add(w.id);
      }
      for (const t of tokensToClear) if (recorded.has(t.id)) await clearFcmToken(executor, t.userId, t.token, sentAt);
      return { changes: outcomes.filter((o) => recorded.has(o.id)), retried };
    };
    const { changes, retried } = await whileUnavailable(() => (tokensToClear.length > 0 ? db.transaction(record) : record(db)), lease, tlog);

    events.publish('message.state', ...changes.map((o): MessageStateChange => {
      const c = byId.get(o.id)!;
      return {
        kind: c.message.kind, messageId: o.id, projectId: c.projectId, subjectId: c.subjectId,
        state: o.state as MessageState, time: sentAt, associatedInfo: infoMap(o.info),
      };
    }));
    // Sends are counted once a batch (prom-client hashes the labels on every call).
    const sent = { notification: 0, data: 0 };
    for (const o of changes) {
      const kind = byId.get(o.id)!.message.kind;
      if (o.state === 'EXECUTED') sent[kind]++;
      else metrics.errored.inc({ kind, error: o.info?.error ?? 'unknown' });
    }
    if (sent.notification > 0) metrics.sent.inc({ kind: 'notification' }, sent.notification);
    if (sent.data > 0) metrics.sent.inc({ kind: 'data' }, sent.data);
    for (const id of retried) metrics.retried.inc({ kind: byId.get(id)!.message.kind });
    const skipped = outcomes.length - changes.length;
    if (skipped > 0) tlog.info({ skipped }, 'messages changed while in flight; their outcome was not recorded');
  }

  /**
   * Retries `write` while the database is unreachable, until the claim's lease runs out: a batch
   * that went out during a database outage is recorded when the database is back, rather than
   * sent again after its lease. (The write is guarded by the lease, so a retry of a write that did
   * commit changes nothing.)
   */
  async function whileUnavailable<T>(write: () => Promise<T>, lease: Date, tlog: FastifyBaseLogger): Promise<T> {
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        return await write();
      } catch (err) {
        if (!isDatabaseUnavailable(err) || clock().getTime() + wait >= lease.getTime()) throw err;
        tlog.warn({ ...failure(err), retryInMs: wait }, 'database unavailable, retrying to record the batch');
        await sleep(wait);
      }
    }
  }

  /** Claims and processes batches until nothing is due; more workers join while batches come back full. */
  async function drain(): Promise<number> {
    const tick = ++tickNo;
    const tlog = log.child({ tick });
    let claimed = 0;
    let active = 0;
    const workers: Promise<void>[] = [];
    const worker = async () => {
      while (!stopping) {
        const now = clock();
        const lease = new Date(now.getTime() + settings.leaseSeconds * 1000);
        const batch = await claimDueMessages(db, { now, limit: settings.batchSize, leaseUntil: lease });
        if (batch.length === 0) return;
        claimed += batch.length;
        const full = batch.length === settings.batchSize;
        if (full && active < settings.concurrency) spawn();
        await processBatch(batch, lease, tlog);
        if (!full) return;
      }
    };
    const spawn = () => {
      active++;
      workers.push(worker().finally(() => { active--; }));
    };
    spawn();
    let failed: unknown;
    for (let i = 0; i < workers.length; i++) {
      try {
        await workers[i];
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed) throw failed;
    if (claimed > 0) tlog.info({ claimed }, 'scheduler tick');
    return claimed;
  }

  /** Sends one claimed batch of e-mails and records their outcomes; counts them apart from the pushes. */
  async function processEmails(mailer: NotificationEmailSender, lease: Date, limit: number, tlog: FastifyBaseLogger): Promise<number> {
    const batch = await claimDueEmails(db, { now: clock(), limit, leaseUntil: lease });
    if (batch.length === 0) return 0;
    const results = await Promise.all(batch.map((c) => mailer.send(c.message, { to: c.userEmail, subjectId: c.subjectId })));
    const now = clock();
    const outcomes: EmailOutcome[] = [];
    const counted: ('sent' | 'skipped' | 'retried' | 'failed')[] = [];
    for (const [i, c] of batch.entries()) {
      const r = results[i]!;
      const id = c.message.id;
      const attempts = c.message.emailAttempts + 1;
      if (r.result === 'sent') outcomes.push({ id, state: 'SENT' });
      else if (r.result === 'skipped') outcomes.push({ id, state: 'SKIPPED' });
      else if (!r.permanent && attempts < settings.emailMaxAttempts) {
        const delay = retryDelaySeconds(attempts, settings.emailRetrySeconds);
        outcomes.push({ id, state: 'PENDING', retryAt: new Date(now.getTime() + delay * 1000) });
        tlog.warn({ messageId: id, attempt: attempts, reason: r.reason, retryInSeconds: delay }, 'notification e-mail failed, retrying');
      } else {
        outcomes.push({ id, state: 'FAILED' });
        tlog.warn({ messageId: id, attempt: attempts, reason: r.reason }, 'notification e-mail failed');
      }
      const o = outcomes[outcomes.length - 1]!;
      counted.push(o.state === 'SENT' ? 'sent' : o.state === 'SKIPPED' ? 'skipped' : o.state === 'PENDING' ? 'retried' : 'failed');
    }
    const written = new Set(await whileUnavailable(() => recordEmailOutcomes(db, outcomes, lease), lease, tlog));
    for (const [i, o] of outcomes.entries()) if (written.has(o.id)) metrics.emails.inc({ result: counted[i]! });
    return batch.length;
  }

  /** Sends the queued e-mails that are due, batch after batch; one mail drain at a time, never in the push's way. */
  function drainEmails(): void {
    if (!email || stopping) return;
    if (mailing) {
      mailAgain = true; // mails queued meanwhile are drained before this drain ends
      return;
    }
    const tlog = log.child({ tick: tickNo, component: 'scheduler-email' });
    mailing = (async () => {
      while (!stopping) {
        mailAgain = false;
        const lease = new Date(clock().getTime() + settings.leaseSeconds * 1000);
        const n = await processEmails(email, lease, settings.batchSize, tlog);
        if (n < settings.batchSize && !mailAgain) return;
      }
    })().catch((err: unknown) => log.error(failure(err), 'scheduler e-mail drain failed'))
      .finally(() => { mailing = undefined; });
  }

  /**
   * Wakes the scheduler at the next due time when that comes before the next tick, so a message
   * is sent when it falls due rather than up to a tick later. Never claims early: the wake-up
   * only runs a normal drain at (just after) the due instant, and a drain that finds nothing
   * looks ahead again. Runs after every drain and when a message is scheduled in this process.
   */
  function lookAhead(): void {
    if (!started || stopping) return;
    if (lookingAhead) {
      lookAgain = true;
      return;
    }
    lookingAhead = (async () => {
      do {
        lookAgain = false;
        const now = clock();
        const next = await findNextDueTime(db, now);
        if (next && !stopping) armWakeup(next.getTime(), now.getTime());
      } while (lookAgain && !stopping);
    })().catch((err: unknown) => log.warn(failure(err), 'scheduler look-ahead failed'))
      .finally(() => { lookingAhead = undefined; });
  }

  function armWakeup(at: number, now: number) {
    if (at - now >= settings.tickMs || at >= wakeAt) return; // the tick (or an earlier wake-up) comes first
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeAt = at;
    // +1 ms: a timer may fire up to a millisecond before its time.
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      wakeAt = Infinity;
      if (!stopping) void runOnce().catch((err: unknown) => log.error(failure(err), 'scheduler tick failed'));
    }, Math.max(0, at - now) + 1);
  }

  function runOnce(): Promise<number> {
    const run = (current ?? Promise.resolve(0)).catch(() => 0).then(() => drain());
    current = run;
    void run.then(lookAhead, lookAhead);
    void run.then(drainEmails, drainEmails);
    return run;
  }

  return {
    start() {
      const task = new AsyncTask('dispatch', async () => {
        if (stopping) return;
        await runOnce();
      }, (err) => log.error(failure(err), 'scheduler tick failed'));
      toad.addSimpleIntervalJob(new SimpleIntervalJob({ milliseconds: settings.tickMs, runImmediately: true }, task, { id: 'dispatch', preventOverrun: true }));
      started = true;
      // A message scheduled in this process and due before the next tick wakes the scheduler.
      unsubscribe = events.subscribe('message.state', (change) => {
        if (change.state === 'SCHEDULED') lookAhead();
      });
      log.info({ tickMs: settings.tickMs, batchSize: settings.batchSize, sender: fcm.kind }, 'scheduler started');
    },
    async stop() {
      stopping = true;
      toad.stop();
      unsubscribe?.();
      if (wakeTimer) clearTimeout(wakeTimer);
      await lookingAhead;
      await current?.catch(() => {});
      await mailing;
    },
    runOnce,
  };
}

/** A tick failure for the log: SQLSTATE and the driver's message, never a query's parameters. */
function failure(err: unknown) {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return { code: sqlState(err), reason: cause instanceof Error ? cause.message : String(cause) };
}

const infoJson = (info: ErrorInfo | null): string | null => (info ? JSON.stringify(info) : null);
const infoMap = (info: ErrorInfo | null): Record<string, string> | null =>
  (info ? { error: info.error, error_description: info.error_description } : null);
