import { and, asc, count, eq, gte, inArray, like, lte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../platform/database.js';
import { bulkInsert } from '../../platform/bulk-insert.js';
import { messages, projects, tasks, taskStateEvents, users, type NewTaskRow, type TaskState } from '../schema.js';

export interface TaskFilter {
  types?: string[];
  /** Tasks whose window [timestamp, timestamp + completionWindow] overlaps [start, end] (either end open). */
  start?: Date;
  end?: Date;
  /** The `search` terms, all of which must hold. */
  search?: SearchTerm[];
}

export type SearchFieldKind = 'string' | 'integer' | 'boolean' | 'instant';

/** Task fields `search` may name (the entity's attribute names) and their kinds. */
export const TASK_SEARCH_FIELDS: Record<string, SearchFieldKind> = {
  id: 'integer', name: 'string', type: 'string', status: 'string', warning: 'string', completed: 'boolean', isClinical: 'boolean',
  showInCalendar: 'boolean', isDemo: 'boolean', priority: 'integer', nQuestions: 'integer', nquestions: 'integer',
  estimatedCompletionTime: 'integer', completionWindow: 'integer', timestamp: 'instant', timeCompleted: 'instant',
};

const SEARCH_COLUMNS: Record<string, PgColumn> = {
  id: tasks.id, name: tasks.name, type: tasks.type, status: tasks.status, warning: tasks.warning, completed: tasks.completed,
  isClinical: tasks.isClinical, showInCalendar: tasks.showInCalendar, isDemo: tasks.isDemo, priority: tasks.priority,
  nQuestions: tasks.nQuestions, nquestions: tasks.nQuestions, estimatedCompletionTime: tasks.estimatedCompletionTime,
  completionWindow: tasks.completionWindow, timestamp: tasks.timestamp, timeCompleted: tasks.timeCompleted,
};

/** One parsed `search` term: `:` contains (string fields) or equals, `>` at least, `<` at most. */
export interface SearchTerm { key: string; op: ':' | '<' | '>'; value: string | number | boolean | Date }

function searchCondition({ key, op, value }: SearchTerm) {
  const column = SEARCH_COLUMNS[key]!;
  if (op === '>') return gte(column, value);
  if (op === '<') return lte(column, value);
  if (TASK_SEARCH_FIELDS[key] === 'string') return like(column, `%${String(value).replace(/[\\%_]/g, '\\$&')}%`);
  return eq(column, value);
}

const filterConditions = (owner: SQL | number, f: TaskFilter) => and(
  typeof owner === 'number' ? eq(tasks.userId, owner) : inArray(tasks.userId, owner),
  f.types ? inArray(tasks.type, f.types) : undefined,
  f.end ? lte(tasks.timestamp, f.end) : undefined,
  f.start ? sql`${tasks.timestamp} + ${tasks.completionWindow} * interval '1 millisecond' >= ${f.start.toISOString()}::timestamptz` : undefined,
  ...(f.search ?? []).map(searchCondition),
);

export const listTasks = (db: Executor, userId: number, f: TaskFilter = {}) =>
  db.select().from(tasks).where(filterConditions(userId, f)).orderBy(asc(tasks.timestamp), asc(tasks.id));

/**
 * The tasks of the subject of a project, found by their ids in the same statement (the hot path
 * of aRMT's schedule GET: one round trip). Empty for an unknown project or subject too.
 */
export const listSubjectTasks = (db: Executor, projectId: string, subjectId: string, f: TaskFilter = {}) =>
  db.select().from(tasks).where(filterConditions(
    sql`(select ${users.id} from ${users} join ${projects} on ${projects.id} = ${users.projectId} where ${projects.projectId} = ${projectId} and ${users.subjectId} = ${subjectId})`,
    f,
  )).orderBy(asc(tasks.timestamp), asc(tasks.id));

/** The task if it belongs to the user; locked for update when `lock` (inside a transaction). */
export const findUserTask = async (db: Executor, userId: number, id: number, lock = false) => {
  const query = db.select().from(tasks).where(and(eq(tasks.id, id), eq(tasks.userId, userId))).limit(1);
  return (await (lock ? query.for('update') : query))[0];
};

const TASK_COLUMNS = [
  'userId', 'name', 'type', 'timestamp', 'completionWindow', 'estimatedCompletionTime', 'warning', 'isClinical',
  'showInCalendar', 'isDemo', 'priority', 'nQuestions', 'completed', 'timeCompleted', 'status',
] as const;

/** Inserts the tasks that do not exist yet (by user, name and timestamp); returns the new ones' ids and keys. */
export async function insertTasks(db: Executor, rows: (NewTaskRow & { completed: boolean; status: TaskState })[]) {
  const inserted = await bulkInsert(db, tasks, TASK_COLUMNS, rows, { onConflictDoNothing: true, returning: ['id', 'user_id', 'name', 'timestamp'] });
  return inserted.map((r) => ({ id: Number(r.id), userId: Number(r.user_id), name: r.name as string, timestamp: new Date(r.timestamp as string).getTime() }));
}

/** A deleted notification and its owner. */
export interface DeletedMessage { id: number; userId: number }

/** Deletes the tasks with their unsent (ADDED or SCHEDULED) notifications; returns those notifications. */
export async function deleteTasksAndUnsentNotifications(db: Executor, taskIds: number[]): Promise<DeletedMessage[]> {
  if (taskIds.length === 0) return [];
  const cancelled = await deleteUnsentTaskNotifications(db, taskIds);
  await db.delete(tasks).where(inArray(tasks.id, taskIds));
  return cancelled;
}

/** Deletes the tasks' notifications that have not been sent; returns them. */
export const deleteUnsentTaskNotifications = async (db: Executor, taskIds: number[]): Promise<DeletedMessage[]> =>
  taskIds.length === 0 ? [] : db.delete(messages).where(and(
    inArray(messages.taskId, taskIds), eq(messages.kind, 'notification'), inArray(messages.state, ['ADDED', 'SCHEDULED']),
  )).returning({ id: messages.id, userId: messages.userId });

export const listTaskStateEvents = (db: Executor, taskId: number) =>
  db.select().from(taskStateEvents).where(eq(taskStateEvents.taskId, taskId)).orderBy(asc(taskStateEvents.time), asc(taskStateEvents.id));

export const countTaskStateEvents = async (db: Executor, taskId: number) =>
  (await db.select({ n: count() }).from(taskStateEvents).where(eq(taskStateEvents.taskId, taskId)))[0]?.n ?? 0;

export const insertTaskStateEvent = (db: Executor, e: { taskId: number; state: TaskState; time: Date; associatedInfo: string | null }) =>
  db.insert(taskStateEvents).values(e);

export const completeTask = (db: Executor, id: number, time: Date) =>
  db.update(tasks).set({ completed: true, status: 'COMPLETED', timeCompleted: time, updatedAt: new Date() }).where(eq(tasks.id, id));

/** The users' tasks with whether each has state events (what reconciliation needs to know). */
export const listTaskKeysOfUsers = async (db: Executor, userIds: number[]) =>
  userIds.length === 0 ? [] : db.select({
    id: tasks.id, userId: tasks.userId, name: tasks.name, timestamp: tasks.timestamp, completed: tasks.completed,
    hasEvents: sql<boolean>`exists (select 1 from ${taskStateEvents} where ${taskStateEvents.taskId} = ${tasks.id})`,
  }).from(tasks).where(inArray(tasks.userId, userIds));

/** The unsent notifications of the given tasks (id, task and duplicate key). */
export const listUnsentTaskNotifications = async (db: Executor, taskIds: number[]) =>
  taskIds.length === 0 ? [] : db.select({ id: messages.id, taskId: messages.taskId, dedupeKey: messages.dedupeKey }).from(messages)
    .where(and(inArray(messages.taskId, taskIds), eq(messages.kind, 'notification'), inArray(messages.state, ['ADDED', 'SCHEDULED'])));

export const deleteMessagesById = async (db: Executor, ids: number[]): Promise<DeletedMessage[]> =>
  ids.length === 0 ? [] : db.delete(messages).where(inArray(messages.id, ids)).returning({ id: messages.id, userId: messages.userId });

/** A task's owner (project and subject ids), to check it against a token's scope; undefined for an unknown task. */
export const findTaskOwner = async (db: Executor, id: number) =>
  (await db.select({ projectId: projects.projectId, subjectId: users.subjectId }).from(tasks)
    .innerJoin(users, eq(tasks.userId, users.id)).innerJoin(projects, eq(users.projectId, projects.id))
    .where(eq(tasks.id, id)).limit(1))[0];
