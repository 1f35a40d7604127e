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
import { insertMessagesWithAddedEvents } from '../messages/queries.js';
import { notificationCodec } from '../notifications/codec.js';
import type { FcmNotificationBodyT } from '../notifications/schemas.js';
import { NotFound } from '../errors.js';
import { requireSubject } from '../users/service.js';
import type { MessageRow, ScheduleInputsRow } from '../schema.js';
import * as tq from '../tasks/queries.js';
import { generateSchedule, taskKey, WINDOW_MS, type PlannedNotification, type PlannedTask, type Schedule, type ScheduleUser } from './generate.js';
import { ProtocolsUnreachable, type Assessment, type ProtocolSource, type UserProtocol } from './protocol.js';
import { createZones } from './time.js';
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

/** Users whose generations share one transaction in a run. */
const BATCH_USERS = 50;

interface Job { user: q.ScheduleUserRow; protocol: UserProtocol | undefined }
/** One user's part of a generation: the schedule to store and the inputs to save. */
interface Plan { user: q.ScheduleUserRow; schedule: Schedule; reconcile: boolean; inputs: Omit<ScheduleInputsRow, 'userId'> }
interface Applied { added: number; deleted: number; stored: MessageRow[]; cancelled: number[] }

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const inputFields = ({ userId: _, ...fields }: ScheduleInputsRow): Omit<ScheduleInputsRow, 'userId'> => fields;

const sameInputs = (inputs: ScheduleInputsRow | null, user: q.ScheduleUserRow, version: string | null) =>
  !!inputs?.generatedAt && inputs.protocolVersion === version && inputs.timezone === user.timezone
  && inputs.enrolmentDate?.getTime() === user.enrolmentDate.getTime() && (inputs.language ?? null) === (user.language ?? null);

/** What a plan depends on of a user's inputs; a row not created yet reads as one with every field null (as `planFor` reads it). */
const inputsKey = (i: ScheduleInputsRow | null | undefined) => JSON.stringify([
  i?.protocolVersion ?? null, i?.timezone ?? null, i?.enrolmentDate?.getTime() ?? null, i?.language ?? null, i?.attributes ?? null,
  i?.coveredUntil?.getTime() ?? null, i?.generatedAt?.getTime() ?? null,
]);

const scheduleUser = (user: q.ScheduleUserRow): ScheduleUser =>
  ({ timezone: user.timezone, enrolmentDate: user.enrolmentDate, language: user.language, seed: String(user.id) });

/**
 * Logs a generation that failed: an error, except when the protocols cannot be read for now
 * (`ProtocolsUnreachable`), which their source logs once when the outage starts and once when it
 * ends; each waiting user is then only a debug line.
 */
export function logGenerationFailure(log: FastifyBaseLogger, err: unknown, fields: Record<string, unknown>, message: string) {
  const line = { ...fields, reason: (err as Error).message };
  if (err instanceof ProtocolsUnreachable) log.debug(line, `${message}: protocols unreachable, waiting for them`);
  else log.error(line, message);
}

export function createScheduleService({ db, events, protocols, log, concurrency = 8, clock = () => new Date() }: ScheduleServiceDeps) {
  // One offset cache for all users of this service's runs.
  const zones = createZones();
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

  /**
   * Writes the plans of several users in the transaction (a handful of statements whatever their
   * number): adds each schedule's missing tasks and the notifications of new tasks; for a plan
   * that reconciles, also deletes its user's unwanted tasks that have not started (with their
   * unsent notifications) and brings the unsent notifications of kept future tasks in line with
   * the schedule (texts, times). Saves each user's inputs.
   */
  async function applyPlans(tx: Executor, plans: Plan[], now: number): Promise<Map<number, Applied>> {
    const applied = new Map<number, Applied>(plans.map((p) => [p.user.id, { added: 0, deleted: 0, stored: [], cancelled: [] }]));
    const existing = await tq.listTaskKeysOfUsers(tx, plans.filter((p) => p.reconcile).map((p) => p.user.id));
    const existingOf = groupBy(existing, (t) => t.userId);
    const unwanted: number[] = [];
    const notify = new Map<number, Map<string, number>>(plans.map((p) => [p.user.id, new Map()]));
    const keptWanted = new Map<number, Set<string>>(); // kept task id → dedupe keys of its wanted notifications
    for (const plan of plans) {
      if (!plan.reconcile) continue;
      const wanted = new Set(plan.schedule.tasks.map(taskKey));
      const wantedNotifications = groupBy(plan.schedule.notifications, (n) => n.task);
      for (const t of existingOf.get(plan.user.id) ?? []) {
        if (t.timestamp.getTime() <= now || t.completed || t.hasEvents) continue; // started: untouched
        const key = taskKey({ name: t.name, timestamp: t.timestamp.getTime() });
        if (!wanted.has(key)) {
          unwanted.push(t.id);
          applied.get(plan.user.id)!.deleted++;
          continue;
        }
        notify.get(plan.user.id)!.set(key, t.id);
        keptWanted.set(t.id, new Set((wantedNotifications.get(key) ?? []).map((n) => notificationRow(n, plan.user.id, t.id).dedupeKey)));
      }
    }
    const cancelled = await tq.deleteTasksAndUnsentNotifications(tx, unwanted);
    const stale = (await tq.listUnsentTaskNotifications(tx, [...keptWanted.keys()])).filter((m) => !keptWanted.get(m.taskId!)!.has(m.dedupeKey));
    cancelled.push(...await tq.deleteMessagesById(tx, stale.map((m) => m.id)));
    for (const c of cancelled) applied.get(c.userId)?.cancelled.push(c.id);

    const added = await tq.insertTasks(tx, plans.flatMap((p) => p.schedule.tasks.map((t) => taskRow(t, p.user.id))));
    for (const t of added) {
      notify.get(t.userId)!.set(taskKey(t), t.id);
      applied.get(t.userId)!.added++;
    }
    const rows = plans.flatMap((p) => {
      const ids = notify.get(p.user.id)!;
      return p.schedule.notifications.filter((n) => ids.has(n.task)).map((n) => notificationRow(n, p.user.id, ids.get(n.task)!));
    });
    const stored = await insertMessagesWithAddedEvents(tx, rows);
    for (const m of stored) applied.get(m.userId)!.stored.push(m);
    await q.saveScheduleInputs(tx, plans.map((p) => ({ userId: p.user.id, ...p.inputs })));
    return applied;
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
   * The plan of one user's generation at `now`, given their locked inputs: `full` reconciles the
   * whole window; `auto` does so only when the inputs (protocol version, zone, enrolment,
   * language) changed since the last generation, and otherwise only adds the tasks of repeats
   * that entered the window since (no plan, so no writes, when there are none).
   */
  function planFor(job: Job, inputs: ScheduleInputsRow | undefined, mode: Mode, now: Date): Plan | undefined {
    const { user, protocol } = job;
    const version = protocol?.version ?? null;
    const to = now.getTime() + WINDOW_MS;
    if (mode === 'auto' && inputs && sameInputs(inputs, user, version)) {
      const from = inputs.coveredUntil?.getTime() ?? now.getTime() - WINDOW_MS;
      if (!protocol || from >= to) return undefined;
      const schedule = generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime(), from, to, zones });
      warn(user, schedule);
      if (schedule.tasks.length === 0) return undefined;
      return { user, schedule, reconcile: false, inputs: { ...inputFields(inputs), coveredUntil: new Date(to) } };
    }
    const schedule = protocol ? generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime(), zones }) : { tasks: [], notifications: [], warnings: [] };
    warn(user, schedule);
    return {
      user, schedule, reconcile: true,
      inputs: {
        protocolVersion: version, timezone: user.timezone, enrolmentDate: user.enrolmentDate, language: user.language,
        attributes: user.attributes, coveredUntil: new Date(to), generatedAt: now,
      },
    };
  }

  /**
   * Generates the schedules of several users in one transaction, under their inputs' row locks
   * (taken in user order, so concurrent generations never deadlock); tells listeners after the
   * commit. Idempotent.
   */
  async function generateMany(jobs: Job[], mode: Mode): Promise<Map<number, GenerationResult>> {
    const now = clock();
    // Planned before the transaction, from the inputs as the job read them: generation is CPU
    // work, and a transaction open across it kept a connection idle in transaction (and the
    // users' rows locked) for as long. Under the locks, a user whose inputs changed meanwhile
    // is planned again.
    const planned = jobs.map((j) => planFor(j, j.user.inputs ?? undefined, mode, now));
    const results = await db.transaction(async (tx) => {
      const locked = new Map((await q.lockScheduleInputs(tx, jobs.map((j) => j.user.id))).map((i) => [i.userId, i]));
      const plans = jobs.map((j, i) => {
        const inputs = locked.get(j.user.id);
        return inputsKey(inputs) === inputsKey(j.user.inputs) ? planned[i] : planFor(j, inputs, mode, now);
      }).filter((p): p is Plan => p !== undefined);
      return plans.length > 0 ? applyPlans(tx, plans, now.getTime()) : new Map<number, Applied>();
    });
    const summary = new Map<number, GenerationResult>();
    for (const job of jobs) {
      const r = results.get(job.user.id);
      if (!r) {
        summary.set(job.user.id, NOTHING);
        continue;
      }
      publish(job.user, r.stored, r.cancelled, now);
      summary.set(job.user.id, { added: r.added, deleted: r.deleted, notifications: r.stored.length, cancelled: r.cancelled.length });
    }
    return summary;
  }

  /** Generates one user's schedule (see `planFor`). */
  async function generateForUser(userId: number, mode: Mode, known?: Job): Promise<GenerationResult> {
    const user = known?.user ?? await q.findScheduleUser(db, userId);
    if (!user) return NOTHING;
    const protocol = known ? known.protocol : await protocolOf(user);
    const result = (await generateMany([{ user, protocol }], mode)).get(user.id)!;
    if (result.added || result.deleted || result.cancelled) log.debug({ userId: user.id, ...result }, 'schedule generated');
    return result;
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
    return from < to && generateSchedule(protocol.protocol, scheduleUser(user), { now, from, to, zones }).tasks.length > 0;
  }

  /**
   * Runs `auto` generation for every user who needs it, BATCH_USERS users a transaction; a batch
   * that fails is retried user by user, and a user's failure is logged while the run goes on.
   */
  async function runAll(): Promise<{ users: number; generated: number; failed: number }> {
    const all = await q.listScheduleUsers(db);
    const now = clock().getTime();
    let generated = 0;
    let failed = 0;
    const failedUser = (user: q.ScheduleUserRow, err: unknown) => {
      failed++;
      logGenerationFailure(log, err, { projectId: user.projectId, subjectId: user.subjectId }, 'schedule generation failed for a user');
    };
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const batch: Job[] = [];
        while (next < all.length && batch.length < BATCH_USERS) {
          const user = all[next++]!;
          try {
            const protocol = await protocolOf(user);
            if (needsWork(user, protocol, now)) batch.push({ user, protocol });
          } catch (err) {
            failedUser(user, err);
          }
        }
        if (batch.length === 0) continue;
        try {
          await generateMany(batch, 'auto');
          generated += batch.length;
        } catch {
          for (const job of batch) {
            try {
              await generateMany([job], 'auto');
              generated++;
            } catch (err) {
              failedUser(job.user, err);
            }
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, Math.ceil(all.length / BATCH_USERS))) }, worker));
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
      const schedule = generateSchedule(protocol.protocol, scheduleUser(user), { now: now.getTime(), assessments: [assessment], zones });
      warn(user, schedule);
      const result = await db.transaction(async (tx) => {
        const [inputs] = await q.lockScheduleInputs(tx, [user.id]);
        // Adds only; the inputs stay as they were.
        return (await applyPlans(tx, [{ user, schedule, reconcile: false, inputs: inputFields(inputs!) }], now.getTime())).get(user.id)!;
      });
      publish(user, result.stored, result.cancelled, now);
    },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
