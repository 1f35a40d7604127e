import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
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
 * The users' generation inputs, locked for the rest of the transaction (in user order, so two
 * generations never deadlock): one user's generations run one at a time, in this process or
 * another. Creates missing rows first.
 */
export async function lockScheduleInputs(db: Executor, userIds: number[]): Promise<ScheduleInputsRow[]> {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  await db.insert(scheduleInputs).values(ids.map((userId) => ({ userId }))).onConflictDoNothing();
  return db.select().from(scheduleInputs).where(inArray(scheduleInputs.userId, ids)).orderBy(asc(scheduleInputs.userId)).for('update');
}

/** Saves the inputs of several users in one statement. */
export async function saveScheduleInputs(db: Executor, rows: ScheduleInputsRow[]) {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => [
    r.userId, r.protocolVersion, r.timezone, r.enrolmentDate?.toISOString() ?? null, r.language, r.attributes,
    r.coveredUntil?.toISOString() ?? null, r.generatedAt?.toISOString() ?? null,
  ]));
  await db.execute(sql`UPDATE ${scheduleInputs} AS s SET
      protocol_version = e->>1, timezone = e->>2, enrolment_date = (e->>3)::timestamptz, language = e->>4,
      attributes = NULLIF(e->5, 'null'::jsonb), covered_until = (e->>6)::timestamptz, generated_at = (e->>7)::timestamptz
    FROM jsonb_array_elements(${json}::jsonb) AS e WHERE s.user_id = (e->>0)::bigint`);
}

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
