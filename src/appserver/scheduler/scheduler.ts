/**
 * The notification scheduler: every SCHEDULER_TICK_MS (toad-scheduler, no overlapping ticks) it
 * drains the due messages in batches: claim (claim.ts) → send through FCM (one `sendEach` per
 * batch, ≤ 500) → record EXECUTED / ERRORED / retry with the state-event rows in one
 * transaction → tell listeners after the commit. While batches come back full, up to
 * SCHEDULER_CONCURRENCY batches are in flight at once.
 *
 * Delivery is exactly once while processes run, and at least once across crashes: a batch whose
 * process dies after sending and before recording is sent again when its lease runs out.
 * Notification e-mails go out beside the push, on the first attempt only; a mail failure is
 * logged and counted and never holds up or fails the push.
 */
import { AsyncTask, SimpleIntervalJob, ToadScheduler } from 'toad-scheduler';
import type { FastifyBaseLogger } from 'fastify';
import { sqlState, type Database } from '../../platform/database.js';
import type { EventBus, MessageStateChange } from '../../platform/events.js';
import type { Mailer } from '../../platform/mail.js';
import type { MessageState } from '../schema.js';
import { insertStateEvents, type NewStateEvent } from '../messages/queries.js';
import type { FcmSender } from '../transmit/fcm.js';
import { claimDueMessages, type ClaimedMessage } from './claim.js';
import { clearFcmToken, finishMessages, retryMessages } from './queries.js';
import { classifyFailure, planMessage, retryDelaySeconds, type ErrorInfo } from './rules.js';
import type { SchedulerMetrics } from './metrics.js';

export interface SchedulerSettings {
  tickMs: number;
  batchSize: number;
  concurrency: number;
  leaseSeconds: number;
  maxAttempts: number;
  retrySeconds: number;
  email: { enabled: boolean; from: string };
}

export interface SchedulerDeps {
  db: Database;
  events: EventBus;
  fcm: FcmSender;
  mailer: Mailer;
  metrics: SchedulerMetrics;
  log: FastifyBaseLogger;
  settings: SchedulerSettings;
  clock?: () => Date;
}

export interface Scheduler {
  start(): void;
  /** Stops ticking and waits for the batches in flight (and their e-mails) to finish. */
  stop(): Promise<void>;
  /** One tick now (drains what is due); resolves with the number of messages claimed. */
  runOnce(): Promise<number>;
}

interface Outcome { id: number; state: 'EXECUTED' | 'ERRORED'; info: ErrorInfo | null; sent: boolean }

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { db, events, fcm, mailer, metrics, settings, clock = () => new Date() } = deps;
  const log = deps.log;
  const toad = new ToadScheduler();
  const mails = new Set<Promise<void>>();
  let stopping = false;
  let tickNo = 0;
  let current: Promise<number> | undefined;

  function mailIfWanted(c: ClaimedMessage) {
    const m = c.message;
    if (!settings.email.enabled || m.kind !== 'notification' || !m.emailEnabled || m.attempts > 0) return;
    if (!c.userEmail?.trim()) {
      log.warn({ messageId: m.id, subjectId: c.subjectId }, 'notification e-mail skipped: the user has no e-mail address');
      return;
    }
    const mail = mailer.send({
      from: settings.email.from,
      to: c.userEmail,
      subject: m.emailTitle ?? m.title ?? '',
      text: m.emailBody ?? m.body ?? '',
    }).then(() => {
      metrics.emails.inc({ result: 'sent' });
    }, (err: unknown) => {
      metrics.emails.inc({ result: 'failed' });
      log.warn({ messageId: m.id, reason: (err as Error).message }, 'notification e-mail failed');
    });
    mails.add(mail);
    void mail.finally(() => mails.delete(mail));
  }

  /** Sends one claimed batch and records its outcomes. */
  async function processBatch(batch: ClaimedMessage[], lease: Date, tlog: FastifyBaseLogger) {
    const now = clock();
    const outcomes: Outcome[] = [];
    const toSend: { c: ClaimedMessage; lateness: number }[] = [];
    const messages = [];
    for (const c of batch) {
      const plan = planMessage(c, now);
      if ('fail' in plan) {
        outcomes.push({ id: c.message.id, state: 'ERRORED', info: plan.fail, sent: false });
        if (plan.fail.error !== 'expired') mailIfWanted(c);
        continue;
      }
      mailIfWanted(c);
      toSend.push({ c, lateness: plan.lateness });
      messages.push(plan.send);
    }

    const results = await fcm.sendEach(messages);
    if (fcm.kind === 'disabled' && messages.length > 0) tlog.info({ dropped: messages.length }, 'FCM sender disabled: messages dropped');
    const sentAt = clock();
    const retries = new Map<number, number[]>(); // delay in seconds → ids
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
        retries.set(delay, [...(retries.get(delay) ?? []), m.id]);
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

    const byId = new Map(batch.map((c) => [c.message.id, c]));
    const { changes, retried } = await db.transaction(async (tx) => {
      const recorded = new Set<number>();
      const groups: [Outcome['state'], boolean][] = [['EXECUTED', true], ['ERRORED', true], ['ERRORED', false]];
      for (const [state, sent] of groups) {
        const ids = outcomes.filter((o) => o.state === state && o.sent === sent).map((o) => o.id);
        for (const id of await finishMessages(tx, ids, state, lease, { sent, now: sentAt })) recorded.add(id);
      }
      let retried: number[] = [];
      for (const [delay, ids] of retries) {
        retried = retried.concat(await retryMessages(tx, ids, lease, new Date(sentAt.getTime() + delay * 1000)));
      }
      for (const t of tokensToClear) if (recorded.has(t.id)) await clearFcmToken(tx, t.userId, t.token, sentAt);
      const changes = outcomes.filter((o) => recorded.has(o.id));
      const rows: NewStateEvent[] = changes.map((o) => ({
        messageId: o.id, state: o.state, time: sentAt, associatedInfo: infoJson(o.info),
      }));
      if (rows.length > 0) await insertStateEvents(tx, rows);
      return { changes, retried };
    });

    events.publish('message.state', ...changes.map((o): MessageStateChange => {
      const c = byId.get(o.id)!;
      return {
        kind: c.message.kind, messageId: o.id, projectId: c.projectId, subjectId: c.subjectId,
        state: o.state as MessageState, time: sentAt, associatedInfo: infoMap(o.info),
      };
    }));
    for (const o of changes) {
      const kind = byId.get(o.id)!.message.kind;
      if (o.state === 'EXECUTED') metrics.sent.inc({ kind });
      else metrics.errored.inc({ kind, error: o.info?.error ?? 'unknown' });
    }
    for (const id of retried) metrics.retried.inc({ kind: byId.get(id)!.message.kind });
    const skipped = outcomes.length - changes.length;
    if (skipped > 0) tlog.info({ skipped }, 'messages changed while in flight; their outcome was not recorded');
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

  function runOnce(): Promise<number> {
    const run = (current ?? Promise.resolve(0)).catch(() => 0).then(() => drain());
    current = run;
    return run;
  }

  return {
    start() {
      const task = new AsyncTask('dispatch', async () => {
        if (stopping) return;
        await runOnce();
      }, (err) => log.error(failure(err), 'scheduler tick failed'));
      toad.addSimpleIntervalJob(new SimpleIntervalJob({ milliseconds: settings.tickMs, runImmediately: true }, task, { id: 'dispatch', preventOverrun: true }));
      log.info({ tickMs: settings.tickMs, batchSize: settings.batchSize, sender: fcm.kind }, 'scheduler started');
    },
    async stop() {
      stopping = true;
      toad.stop();
      await current?.catch(() => {});
      await Promise.allSettled([...mails]);
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
