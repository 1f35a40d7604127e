import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { jobLeases, projects, scheduleInputs, users, type ScheduleInputsRow } from '../schema.js';

/** A user with their project's projectId and the inputs of their last generation (if any). */
export interface ScheduleUserRow {
  id: number;
  subjectId: string;
  projectId: string;
  timezone: string;
  enrolmentDate: Date;
  language: string | null;
  attributes: Record<string, string>;
  inputs: ScheduleInputsRow | null;
}

const selectScheduleUsers = (db: Executor) => db.select({
  id: users.id, subjectId: users.subjectId, projectId: projects.projectId, timezone: users.timezone,
  enrolmentDate: users.enrolmentDate, language: users.language, attributes: users.attributes, inputs: scheduleInputs,
}).from(users).innerJoin(projects, eq(projects.id, users.projectId)).leftJoin(scheduleInputs, eq(scheduleInputs.userId, users.id));

/** Every user, for the interval run (one query). */
export const listScheduleUsers = (db: Executor): Promise<ScheduleUserRow[]> => selectScheduleUsers(db).orderBy(asc(users.id));

export const findScheduleUser = async (db: Executor, userId: number): Promise<ScheduleUserRow | undefined> =>
  (await selectScheduleUsers(db).where(eq(users.id, userId)).limit(1))[0];

/**
 * The user's generation inputs, locked for the rest of the transaction: one user's generations
 * run one at a time, in this process or another. Creates the row on first use.
 */
export async function lockScheduleInputs(db: Executor, userId: number): Promise<ScheduleInputsRow | undefined> {
  await db.insert(scheduleInputs).values({ userId }).onConflictDoNothing();
  return (await db.select().from(scheduleInputs).where(eq(scheduleInputs.userId, userId)).for('update'))[0];
}

export const saveScheduleInputs = (db: Executor, userId: number, values: Omit<ScheduleInputsRow, 'userId'>) =>
  db.update(scheduleInputs).set(values).where(eq(scheduleInputs.userId, userId));

export const setCoveredUntil = (db: Executor, userId: number, coveredUntil: Date) =>
  db.update(scheduleInputs).set({ coveredUntil }).where(eq(scheduleInputs.userId, userId));

/**
 * Claims a periodic job for `holder`: only when no live lease exists and the job has not started
 * within `minGapMs`. Returns whether this caller got it.
 */
export async function claimJob(db: Executor, name: string, holder: string, now: Date, leaseUntil: Date, minGapMs: number): Promise<boolean> {
  await db.insert(jobLeases).values({ name }).onConflictDoNothing();
  const claimed = await db.update(jobLeases).set({ holder, leaseUntil, lastStartedAt: now })
    .where(and(
      eq(jobLeases.name, name),
      or(isNull(jobLeases.leaseUntil), lt(jobLeases.leaseUntil, now)),
      or(isNull(jobLeases.lastStartedAt), lte(jobLeases.lastStartedAt, new Date(now.getTime() - minGapMs))),
    ))
    .returning({ name: jobLeases.name });
  return claimed.length > 0;
}

/** Ends a claimed job's lease (only if `holder` still owns it). */
export const finishJob = (db: Executor, name: string, holder: string, now: Date) =>
  db.update(jobLeases).set({ leaseUntil: null, lastFinishedAt: now })
    .where(and(eq(jobLeases.name, name), eq(jobLeases.holder, holder), sql`${jobLeases.leaseUntil} is not null`));
