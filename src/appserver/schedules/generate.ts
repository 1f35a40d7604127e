/**
 * Schedule generation (appserver.md §6.3), a pure function of the protocol, the user and the time:
 * the tasks of each assessment and the notifications and reminders of those tasks. No I/O; the
 * caller stores the result (reconcile.ts).
 *
 * Per assessment: a reference instant (`referenceTimestamp` by its format, else local midnight of
 * the enrolment date); the repeat instants reference + k × `repeatProtocol` from the first one at
 * or after `from` (default now − 7 days) to before `to` (default now + 7 days); a task at each
 * repeat instant + each `unitsFromZero` (or a random offset in each `randomUnitsFromZeroBetween`
 * range, the same for the same user and instant on every run).
 *
 * Reference bugs fixed (each has a test in test/appserver/schedules/generate.test.ts):
 *  - `ttlSeconds` is seconds (to the end of the task's window), not milliseconds, and a
 *    notification whose window has ended is not generated;
 *  - reminder k (1…repeat) is at task + k × offset, and only inside the window (the reference
 *    gave all of them one shared time);
 *  - no `reminders`: no reminders (the reference's NPE aborted every user's generation);
 *  - mode `disabled`: no notifications nor reminders; `combined` (unsupported) is `standard`;
 *  - `dayOfWeekMap` and `randomAmountBetween` (never implemented) skip the assessment with a
 *    warning instead of an error;
 *  - texts in the user's language, else `en`, else the defaults, never empty; the protocol's
 *    e-mail title and text are used;
 *  - no 2030 cap on repeats.
 */
import { createHash } from 'node:crypto';
import type { Assessment, LanguageText, Protocol } from './protocol.js';
import { addUnits, createZones, DAY, durationMs, isTimeUnit, longestStepMs, parseLocal, startOfLocalDay, type UserZone, type Zones } from './time.js';

/** The generation window reaches this far on each side of now. */
export const WINDOW_MS = 7 * DAY;
/** The reference's completion window when the protocol gives none. */
export const DEFAULT_COMPLETION_WINDOW_MS = DAY;
/** A guard against protocols that would flood a user (e.g. every minute): tasks per assessment and run. */
export const MAX_TASKS_PER_ASSESSMENT = 2000;

export const TASK_TYPES = ['scheduled', 'clinical', 'triggered'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export interface ScheduleUser {
  timezone: string;
  enrolmentDate: Date;
  language: string | null;
  /** Seeds the random offsets (the user's id): the same user gets the same random times on every run. */
  seed: string;
}

export interface PlannedTask {
  name: string;
  type: TaskType;
  /** Epoch ms. */
  timestamp: number;
  completionWindow: number;
  estimatedCompletionTime: number;
  warning: string;
  isClinical: boolean;
  showInCalendar: boolean;
  isDemo: boolean;
  priority: number;
  nQuestions: number;
}

export interface PlannedNotification {
  /** The task's name and timestamp (its identity, see `taskKey`). */
  task: string;
  kind: 'now' | 'reminder';
  /** Epoch ms. */
  scheduledTime: number;
  ttlSeconds: number;
  title: string;
  body: string;
  type: string;
  emailEnabled: boolean;
  emailTitle: string | null;
  emailBody: string | null;
}

export interface Schedule {
  tasks: PlannedTask[];
  notifications: PlannedNotification[];
  /** Assessments skipped and why (logged by the caller). */
  warnings: string[];
}

export interface GenerateOptions {
  /** Epoch ms. */
  now: number;
  /** Repeat instants at or after this (epoch ms; default now − 7 days). */
  from?: number;
  /** Repeat instants before this (epoch ms; default now + 7 days). */
  to?: number;
  /** Only these assessments (Q2: one assessment, given in full). */
  assessments?: Assessment[];
  /** The zones with their offset cache (share one across the users of a run). */
  zones?: Zones;
}

/** A task's identity within a user's schedule (the reconciliation key). */
export const taskKey = (t: { name: string; timestamp: number }) => `${t.name}\u0000${t.timestamp}`;

export const DEFAULT_TEXTS = {
  nowTitle: 'Questionnaire time',
  nowBody: (minutes: number) => (minutes > 0 ? `Won't usually take longer than ${minutes} minutes` : "Won't usually take long"),
  reminderTitle: 'Missed a questionnaire?',
  reminderBody: "It seems you haven't answered all of our questions. Could you please do that now?",
};

/** The text in the user's language (or its base language), else English; undefined when none is non-blank. */
export function localText(texts: LanguageText | null | undefined, language: string | null): string | undefined {
  if (!texts || typeof texts !== 'object') return undefined;
  const lang = language?.trim() ?? '';
  for (const code of [lang, lang.split(/[-_]/)[0] ?? '', 'en']) {
    const text = code ? texts[code] : undefined;
    if (typeof text === 'string' && text.trim() !== '') return text;
  }
  return undefined;
}

export function generateSchedule(protocol: Protocol, user: ScheduleUser, opts: GenerateOptions): Schedule {
  const schedule: Schedule = { tasks: [], notifications: [], warnings: [] };
  const zone = (opts.zones ?? createZones())(user.timezone);
  const from = opts.from ?? opts.now - WINDOW_MS;
  const to = opts.to ?? opts.now + WINDOW_MS;
  const assessments = opts.assessments ?? (Array.isArray(protocol.protocols) ? protocol.protocols : []);
  for (const assessment of assessments) {
    if (!assessment || typeof assessment.name !== 'string') continue;
    const warning = scheduleAssessment(assessment, { protocol, user, zone, from, to, now: opts.now }, schedule);
    if (warning) schedule.warnings.push(`${assessment.name}: ${warning}`);
  }
  return schedule;
}

interface Context { protocol: Protocol; user: ScheduleUser; zone: UserZone; from: number; to: number; now: number }

/** The assessment's type, as the reference reads it (absent: clinical when it has a clinical protocol). */
export function assessmentType(assessment: Assessment): string {
  if (typeof assessment.type === 'string' && assessment.type !== '') return assessment.type.toLowerCase();
  return assessment.protocol?.clinicalProtocol ? 'clinical' : 'scheduled';
}

/** Adds the assessment's tasks and notifications; returns why it was skipped, if it was. */
function scheduleAssessment(assessment: Assessment, ctx: Context, out: Schedule): string | undefined {
  const type = assessmentType(assessment);
  // Clinical assessments get no tasks (the reference runs only their name handler); a type the
  // scheduler does not know (the real repository's `on_demand`) is kept in the protocol, not scheduled.
  if (type !== 'scheduled' && type !== 'triggered') return undefined;
  const p = assessment.protocol;
  const repeat = p?.repeatProtocol;
  const questionnaire = p?.repeatQuestionnaire;
  if (!repeat || !questionnaire) return 'no repeatProtocol or repeatQuestionnaire: not scheduled';
  if (repeat.randomAmountBetween) return 'repeatProtocol.randomAmountBetween is not supported: not scheduled';
  if (questionnaire.dayOfWeekMap) return 'repeatQuestionnaire.dayOfWeekMap is not supported: not scheduled';
  if (!isTimeUnit(repeat.unit) || !Number.isInteger(repeat.amount) || repeat.amount! <= 0) {
    return `repeatProtocol must have a unit (min, hour, day, week, month, year) and a positive integer amount: not scheduled`;
  }
  if (!isTimeUnit(questionnaire.unit)) return 'repeatQuestionnaire.unit must be min, hour, day, week, month or year: not scheduled';
  const offsets = questionnaireOffsets(questionnaire);
  if (typeof offsets === 'string') return offsets;

  const reference = referenceInstant(p, ctx);
  if (reference === undefined) return 'referenceTimestamp unreadable: not scheduled';

  const window = p?.completionWindow;
  const completionWindow = window ? durationMs(window.unit, Number(window.amount)) : DEFAULT_COMPLETION_WINDOW_MS;
  if (completionWindow === undefined || !Number.isFinite(completionWindow) || completionWindow < 0) return 'completionWindow unreadable: not scheduled';

  const base = {
    name: assessment.name,
    type: type as TaskType,
    completionWindow,
    estimatedCompletionTime: intOr(assessment.estimatedCompletionTime, 0),
    warning: localText(assessment.warn, ctx.user.language) ?? '',
    isClinical: false,
    showInCalendar: assessment.showInCalendar ?? true,
    isDemo: assessment.isDemo ?? false,
    priority: intOr(assessment.order, 0),
    nQuestions: intOr(assessment.nQuestions ?? assessment.nquestions, 0),
  };

  const amount = repeat.amount!;
  let count = 0;
  // Each repeat instant is computed from the reference (reference + k steps), so month ends and
  // DST changes do not drift. Jump close to `from` first: enrolment may be years ago.
  let k = Math.max(0, Math.floor((ctx.from - reference - 2 * DAY) / longestStepMs(repeat.unit, amount)));
  for (;; k++) {
    const instant = addUnits(ctx.zone, reference, repeat.unit, k * amount)!;
    if (instant >= ctx.to) break;
    if (instant < ctx.from) continue;
    for (const [i, offset] of offsets.entries()) {
      const units = typeof offset === 'number' ? offset : randomBetween(offset, `${ctx.user.seed}|${assessment.name}|${instant}|${i}`);
      const timestamp = addUnits(ctx.zone, instant, questionnaire.unit, units)!;
      // A literal of fixed shape: spreading `base` per task cost more than the rest of generation.
      const task: PlannedTask = {
        name: base.name, type: base.type, timestamp, completionWindow: base.completionWindow, estimatedCompletionTime: base.estimatedCompletionTime,
        warning: base.warning, isClinical: base.isClinical, showInCalendar: base.showInCalendar, isDemo: base.isDemo, priority: base.priority, nQuestions: base.nQuestions,
      };
      out.tasks.push(task);
      addNotifications(task, p, ctx, out);
      if (++count >= MAX_TASKS_PER_ASSESSMENT) return `more than ${MAX_TASKS_PER_ASSESSMENT} tasks in the window: the rest not scheduled`;
    }
  }
  return undefined;
}

/** `unitsFromZero` or the `[lo, hi]` ranges of `randomUnitsFromZeroBetween`; a string says why neither is usable. */
function questionnaireOffsets(q: NonNullable<NonNullable<Assessment['protocol']>['repeatQuestionnaire']>): (number | [number, number])[] | string {
  if (Array.isArray(q.unitsFromZero) && q.unitsFromZero.length > 0) {
    if (!q.unitsFromZero.every((u) => Number.isInteger(u))) return 'repeatQuestionnaire.unitsFromZero must be integers: not scheduled';
    return q.unitsFromZero;
  }
  if (Array.isArray(q.randomUnitsFromZeroBetween) && q.randomUnitsFromZeroBetween.length > 0) {
    const ranges = q.randomUnitsFromZeroBetween;
    if (!ranges.every((r) => Array.isArray(r) && r.length === 2 && Number.isInteger(r[0]) && Number.isInteger(r[1]) && r[0]! <= r[1]!)) {
      return 'repeatQuestionnaire.randomUnitsFromZeroBetween must be [low, high] integer pairs: not scheduled';
    }
    return ranges as [number, number][];
  }
  return 'repeatQuestionnaire has no unitsFromZero: not scheduled';
}

/** An integer in [lo, hi] drawn from a hash of `seed`: the same on every run for the same seed. */
function randomBetween([lo, hi]: [number, number], seed: string): number {
  const draw = createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;
  return lo + Math.floor(draw * (hi - lo + 1));
}

const intOr = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback);

/** The assessment's reference instant (§6.3 step 1); undefined when the protocol's is unreadable. */
function referenceInstant(p: Assessment['protocol'], ctx: Context): number | undefined {
  const ref = p?.referenceTimestamp;
  if (ref === undefined || ref === null) return startOfLocalDay(ctx.zone, ctx.user.enrolmentDate.getTime());
  // A plain string is an instant with its offset (the reference's `datetimeutc`).
  const { timestamp, format } = typeof ref === 'string' ? { timestamp: ref, format: 'datetimeutc' } : ref;
  switch (format?.toLowerCase()) {
    case 'now': return ctx.now;
    case 'today': return startOfLocalDay(ctx.zone, ctx.now);
    case 'date': return timestamp ? parseLocal(ctx.zone, timestamp, true) : undefined;
    case 'datetime': return timestamp ? parseLocal(ctx.zone, timestamp, false) : undefined;
    case 'datetimeutc': {
      const ms = timestamp && /(Z|[+-]\d{2}:?\d{2})$/i.test(timestamp) ? Date.parse(timestamp) : NaN;
      return Number.isNaN(ms) ? undefined : ms;
    }
    default: return undefined;
  }
}

/**
 * The task's notification at its time and its reminders, each with the time left in the task's
 * window as TTL. None once the window has ended; of those already due, only the latest is kept
 * (one prompt for a task generated late, not a burst).
 */
function addNotifications(task: PlannedTask, p: Assessment['protocol'], ctx: Context, out: Schedule) {
  const notification = p?.notification;
  if (notification?.mode?.toLowerCase() === 'disabled') return;
  const end = task.timestamp + task.completionWindow;
  if (end <= ctx.now) return;
  const language = ctx.user.language;
  const title = localText(notification?.title, language);
  const body = localText(notification?.text, language);
  const email = notification?.email;
  const key = taskKey(task);
  const emailEnabled = email?.enabled === true;
  const emailTitle = localText(email?.title, language) ?? null;
  const emailBody = localText(email?.text, language) ?? null;
  const planned: PlannedNotification[] = [];
  const add = (kind: PlannedNotification['kind'], at: number, texts: { title: string; body: string }) => {
    if (at >= end) return;
    planned.push({
      task: key, kind, scheduledTime: at, ttlSeconds: Math.max(1, Math.floor((end - at) / 1000)), title: texts.title, body: texts.body,
      type: task.name, emailEnabled, emailTitle, emailBody,
    });
  };
  add('now', task.timestamp, { title: title ?? DEFAULT_TEXTS.nowTitle, body: body ?? DEFAULT_TEXTS.nowBody(task.estimatedCompletionTime) });
  const reminders = p?.reminders;
  const times = reminders && Number.isInteger(reminders.repeat) && reminders.repeat! > 0 && Number.isFinite(reminders.amount) ? reminders.repeat! : 0;
  for (let k = 1; k <= times; k++) {
    const at = addUnits(ctx.zone, task.timestamp, reminders!.unit, k * reminders!.amount!);
    if (at === undefined) break;
    add('reminder', at, { title: title ?? DEFAULT_TEXTS.reminderTitle, body: body ?? DEFAULT_TEXTS.reminderBody });
  }
  const due = planned.filter((n) => n.scheduledTime <= ctx.now);
  out.notifications.push(...(due.length > 1 ? planned.filter((n) => n.scheduledTime > ctx.now || n === due.at(-1)) : planned));
}
