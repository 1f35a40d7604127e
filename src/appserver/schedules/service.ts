/**
 * Questionnaire schedules in the database: generation from the user's protocol, reconciled with
 * what is stored (§6.4, with the reference's defects fixed), and the interval run over all users.
 *
 * Reconciliation is by (user, task name, timestamp): an existing task keeps its id, status and
 * completion; missing tasks are added with their notifications (through the scheduler's normal
 * path: SCHEDULED rows with ADDED and SCHEDULED events, deduplicated); an unwanted task that has
 * not started (timestamp in the future, not completed, no state event) is deleted with its unsent
 * notifications; started tasks are untouched. A user's generation runs under the row lock of its
 * inputs row and commits its tasks and notifications in one transaction; listeners are told after.
 *
 * Reference bugs fixed: the previous schedule was kept in memory, so a restart (or protocol
 * version change) deleted every task — new ids, completion lost, orphaned notifications still
 * sent; `updateUser` never regenerated; no protocol for one user could abort the run for all.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../../platform/database.js';
import type { AppserverEventBus, MessageStateChange } from '../events.js';
import { addedEvents, newMessageRow } from '../messages/service.js';
import { insertMessages, insertStateEvents } from '../messages/queries.js';
import { notificationCodec } from '../notifications/codec.js';
import type { FcmNotificationBodyT } from '../notifications/schemas.js';
import { NotFound } from '../errors.js';
import { requireSubject } from '../users/service.js';
import type { MessageRow, ScheduleInputsRow } from '../schema.js';
import * as tq from '../tasks/queries.js';
import { generateSchedule, taskKey, WINDOW_MS, type PlannedNotification, type PlannedTask, type Schedule, type ScheduleUser } from './generate.js';
import type { Assessment, ProtocolSource, UserProtocol } from './protocol.js';
import * as q from './queries.js';

/** The reference's fields of generated notifications (§6.3). */
export const GENERATED_NOTIFICATION = { sourceId: 'id', sourceType: 'Type', appPackage: 'org.phidatalab.radar-armt' } as const;

const INTERVAL_JOB = 'questionnaire-schedule';

export interface ScheduleServiceDeps {
  db: Database;
  events: AppserverEventBus;
  protocols: ProtocolSource;
  log: FastifyBaseLogger;
  /** Users generated at the same time in a run. */
  concurrency?: number;
  clock?: () => Date;
}

/** What one user's generation changed. */
export interface GenerationResult { added: number; deleted: number; notifications: number; cancelled: number }

const NOTHING: GenerationResult = { added: 0, deleted: 0, notifications: 0, cancelled: 0 };

type Mode = 'full' | 'auto';

const sameInputs = (inputs: ScheduleInputsRow | null, user: q.ScheduleUserRow, version: string | null) =>
  !!inputs?.generatedAt && inputs.protocolVersion === version && inputs.timezone === user.timezone
  && inputs.enrolmentDate?.getTime() === user.enrolmentDate.getTime() && (inputs.language ?? null) === (user.language ?? null);

const scheduleUser = (user: q.ScheduleUserRow): ScheduleUser =>
  ({ timezone: user.timezone, enrolmentDate: user.enrolmentDate, language: user.language, seed: String(user.id) });

export function createScheduleService({ db, events, protocols, log, concurrency = 8, clock = () => new Date() }: ScheduleServiceDeps) {
  const protocolOf = (user: q.ScheduleUserRow) => protocols.forUser(user.projectId, user.subjectId, user.attributes ?? {});

  /** The rows of a planned notification (SCHEDULED, as the scheduler's normal path stores them). */
  function notificationRow(n: PlannedNotification, userId: number, taskId: number) {
    const body: FcmNotificationBodyT = {
      ...GENERATED_NOTIFICATION,
      title: n.title, body: n.body, type: n.type, ttlSeconds: n.ttlSeconds, scheduledTime: new Date(n.scheduledTime).toISOString(),
      emailEnabled: n.emailEnabled, emailTitle: n.emailTitle, emailBody: n.emailBody,
    };
    return Object.assign(newMessageRow(notificationCodec, body, userId, true), { taskId });
  }

  const taskRow = (t: PlannedTask, userId: number) => ({ ...t, userId, timestamp: new Date(t.timestamp), completed: false, timeCompleted: null, status: 'ADDED' as const });

  /** Stores new tasks and the notifications of the tasks in `notify` (key → id); returns the stored messages. */
  async function storeNotifications(tx: Executor, userId: number, schedule: Schedule, notify: Map<string, number>): Promise<MessageRow[]> {
    const rows = schedule.notifications.filter((n) => notify.has(n.task)).map((n) => notificationRow(n, userId, notify.get(n.task)!));
    const inserted = await insertMessages(tx, rows);
    await insertStateEvents(tx, addedEvents(inserted));
    return inserted;
  }

  /**
   * Adds the schedule's missing tasks; with `reconcile`, also deletes unwanted tasks that have
   * not started and brings the unsent notifications of future tasks in line with the schedule.
   */
  async function apply(tx: Executor, userId: number, schedule: Schedule, now: number, reconcile: boolean) {
    const existing = reconcile ? await tq.listTaskKeys(tx, userId) : [];
    const wanted = new Set(schedule.tasks.map(taskKey));
    const notStarted = existing.filter((t) => t.timestamp.getTime() > now && !t.completed && !t.hasEvents);
    const unwanted = notStarted.filter((t) => !wanted.has(taskKey({ name: t.name, timestamp: t.timestamp.getTime() })));
    const cancelled = await tq.deleteTasksAndUnsentNotifications(tx, unwanted.map((t) => t.id));

    const added = await tq.insertTasks(tx, schedule.tasks.map((t) => taskRow(t, userId)));
    const notify = new Map(added.map((t) => [taskKey(t), t.id]));
    // Kept tasks that have not started: their unsent notifications follow the schedule (texts, times).
    const kept = notStarted.filter((t) => wanted.has(taskKey({ name: t.name, timestamp: t.timestamp.getTime() })));
    if (kept.length > 0) {
      const keptKeys = new Map(kept.map((t) => [taskKey({ name: t.name, timestamp: t.timestamp.getTime() }), t.id]));
      for (const [key, id] of keptKeys) notify.set(key, id);
      const wantedKeys = new Set(schedule.notifications.filter((n) => keptKeys.has(n.task)).map((n) => notificationRow(n, userId, 0).dedupeKey));
      const stale = (await tq.listUnsentTaskNotifications(tx, [...keptKeys.values()])).filter((m) => !wantedKeys.has(m.dedupeKey));
      cancelled.push(...await tq.deleteMessagesById(tx, stale.map((m) => m.id)));
    }
    const stored = await storeNotifications(tx, userId, schedule, notify);
    return { added: added.length, deleted: unwanted.length, stored, cancelled };
  }

  function publish(user: { projectId: string; subjectId: string }, stored: MessageRow[], cancelled: number[], time: Date) {
    const changes: MessageStateChange[] = addedEvents(stored).map((c) => ({
      kind: 'notification', messageId: c.messageId, projectId: user.projectId, subjectId: user.subjectId, state: c.state, time: c.time, associatedInfo: null,
    }));
    for (const messageId of cancelled) {
      changes.push({ kind: 'notification', messageId, projectId: user.projectId, subjectId: user.subjectId, state: 'CANCELLED', time, associatedInfo: null });
    }
    if (changes.length > 0) events.publish('message.state', ...changes);
  }

  /**
   * Generates one user's schedule. `full` reconciles the whole window; `auto` does so only when
   * the inputs (protocol version, zone, enrolment, language) changed since the last generation,
   * and otherwise only adds the tasks of repeats that entered the window since (no writes when
   * there are none). Idempotent.
   */
  async function generateForUser(userId: number, mode: Mode, known?: { user: q.ScheduleUserRow; protocol: UserProtocol | undefined }): Promise<GenerationResult> {
    const user = known?.user ?? await q.findScheduleUser(db, userId);
    if (!user) return NOTHING;
    const protocol = known ? known.protocol : await protocolOf(user);
    const version = protocol?.version ?? null;
    const now = clock();
    const to = now.getTime() + WINDOW_MS;
    const result = await db.transaction(async (tx) => {
      const inputs = (await q.lockScheduleInputs(tx, user.id))!;
      const unchanged = mode === 'auto' && sameInputs(inputs, user, version);
      if (unchanged) {
        const from = inputs.coveredUntil?.getTime() ?? now.getTime() - WINDOW_MS;
        if (!protocol || from >= to) return undefined;
        const schedule = generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime(), from, to });
        warn(user, schedule);
        if (schedule.tasks.length === 0) return undefined;
        const applied = await apply(tx, user.id, schedule, now.getTime(), false);
        await q.setCoveredUntil(tx, user.id, new Date(to));
        return applied;
      }
      const schedule = protocol
        ? generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime() })
        : { tasks: [], notifications: [], warnings: [] };
      warn(user, schedule);
      const applied = await apply(tx, user.id, schedule, now.getTime(), true);
      await q.saveScheduleInputs(tx, user.id, {
        protocolVersion: version, timezone: user.timezone, enrolmentDate: user.enrolmentDate, language: user.language,
        attributes: user.attributes, coveredUntil: new Date(to), generatedAt: now,
      });
      return applied;
    });
    if (!result) return NOTHING;
    publish(user, result.stored, result.cancelled, now);
    const changed = { added: result.added, deleted: result.deleted, notifications: result.stored.length, cancelled: result.cancelled.length };
    if (changed.added || changed.deleted || changed.cancelled) log.debug({ userId: user.id, ...changed }, 'schedule generated');
    return changed;
  }

  function warn(user: q.ScheduleUserRow, schedule: Schedule) {
    if (schedule.warnings.length > 0) log.warn({ projectId: user.projectId, subjectId: user.subjectId, warnings: schedule.warnings }, 'protocol assessments not scheduled');
  }

  /**
   * Whether an `auto` generation would write anything for this user, judged without a
   * transaction (the interval run's fast path: most users have nothing to do in most runs).
   */
  function needsWork(user: q.ScheduleUserRow, protocol: UserProtocol | undefined, now: number): boolean {
    if (!sameInputs(user.inputs, user, protocol?.version ?? null)) return true;
    if (!protocol) return false;
    const from = user.inputs!.coveredUntil?.getTime() ?? now - WINDOW_MS;
    const to = now + WINDOW_MS;
    return from < to && generateSchedule(protocol.protocol, scheduleUser(user), { now, from, to }).tasks.length > 0;
  }

  /** Runs `auto` generation for every user who needs it; a user's failure is logged and the run goes on. */
  async function runAll(): Promise<{ users: number; generated: number; failed: number }> {
    const all = await q.listScheduleUsers(db);
    const now = clock().getTime();
    let generated = 0;
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const user = all[next++]!;
        try {
          const protocol = await protocolOf(user);
          if (!needsWork(user, protocol, now)) continue;
          await generateForUser(user.id, 'auto', { user, protocol });
          generated++;
        } catch (err) {
          failed++;
          log.error({ projectId: user.projectId, subjectId: user.subjectId, reason: (err as Error).message }, 'schedule generation failed for a user');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, all.length)) }, worker));
    return { users: all.length, generated, failed };
  }

  let running: Promise<unknown> = Promise.resolve();
  /** One run at a time in this process. */
  const serialised = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = running.catch(() => {}).then(fn);
    running = run;
    return run;
  };

  return {
    generateForUser,

    /**
     * The interval run: claims the shared job lease (one instance per interval, whatever the
     * number of instances) and generates for every user. Resolves with undefined when another
     * instance has the run.
     */
    async runInterval(holder: string, intervalMs: number) {
      return serialised(async () => {
        const now = clock();
        // The lease outlives a crashed holder by at most an interval; the 10 % slack lets timers that fire early claim.
        if (!await q.claimJob(db, INTERVAL_JOB, holder, now, new Date(now.getTime() + intervalMs), intervalMs * 0.9)) return undefined;
        try {
          const result = await runAll();
          log.info(result, 'questionnaire schedule run');
          return result;
        } finally {
          await q.finishJob(db, INTERVAL_JOB, holder, clock());
        }
      });
    },

    /** After a protocol refresh found a change: every user whose protocol version differs is regenerated. */
    runForProtocolChange: () => serialised(runAll),

    /** Q1: regenerates the subject's schedule from their protocol (404 unknown project or subject). */
    async generate(projectId: string, subjectId: string) {
      const { user } = await requireSubject(db, projectId, subjectId);
      return generateForUser(user.id, 'full');
    },

    /**
     * Q2: adds the tasks and notifications of one assessment, given in full; 404 when the subject
     * has no protocol or the protocol has no assessment of that name. Deletes nothing.
     */
    async generateAssessment(projectId: string, subjectId: string, assessment: Assessment) {
      const { user: row } = await requireSubject(db, projectId, subjectId);
      const user = (await q.findScheduleUser(db, row.id))!;
      const protocol = await protocolOf(user);
      if (!protocol) throw new NotFound('No protocol found for the subject. Add a protocol for the project first.');
      if (!(protocol.protocol.protocols ?? []).some((a) => a?.name === assessment.name)) {
        throw new NotFound('Assessment not found in protocol. Add assessment to protocol first.');
      }
      const now = clock();
      const schedule = generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime(), assessments: [assessment] });
      warn(user, schedule);
      const result = await db.transaction(async (tx) => {
        await q.lockScheduleInputs(tx, user.id);
        return apply(tx, user.id, schedule, now.getTime(), false);
      });
      publish(user, result.stored, result.cancelled, now);
    },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
