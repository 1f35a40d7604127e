/**
 * Questionnaire tasks (Q3, Q4) and their state events (T1–T3). Deleting a task or completing it
 * cancels its unsent notifications in the same transaction; listeners hear CANCELLED after it.
 */
import type { Database } from '../../platform/database.js';
import { BadRequest, Forbidden, NotFound, requireBodyMatchesPath } from '../errors.js';
import { inScope, type ReadScope } from '../read-scope-queries.js';
import { readExternalStateEvent, requireBelowStateEventCap } from '../state-events.js';
import type { AppserverEventBus } from '../events.js';
import { epochSeconds, parseInstant } from '../instant.js';
import type { TaskRow, TaskState, TaskStateEventRow } from '../schema.js';
import { requireSubject } from '../users/service.js';
import * as q from './queries.js';
import type { TaskQueryT, TaskStateEventBodyT, TaskStateEventDtoT, TaskT } from './schemas.js';

/** States a client may report for a task (the reference's external task states). */
export const EXTERNAL_TASK_STATES: readonly TaskState[] = ['COMPLETED', 'UNKNOWN', 'ERRORED'];
/** How many state events one task may collect. */
export const MAX_TASK_STATE_EVENTS = 20;
const TYPES = ['scheduled', 'clinical', 'triggered'];

export const toTaskDto = (t: TaskRow): TaskT => ({
  id: t.id,
  completed: t.completed,
  timestamp: t.timestamp.getTime(),
  name: t.name,
  type: t.type,
  estimatedCompletionTime: t.estimatedCompletionTime,
  completionWindow: t.completionWindow,
  warning: t.warning,
  isClinical: t.isClinical,
  timeCompleted: t.timeCompleted ? t.timeCompleted.getTime() : null,
  showInCalendar: t.showInCalendar,
  isDemo: t.isDemo,
  priority: t.priority,
  nquestions: t.nQuestions,
  status: t.status,
  createdAt: t.createdAt.getTime(),
  updatedAt: t.updatedAt.getTime(),
});

const toStateEventDto = (e: TaskStateEventRow): TaskStateEventDtoT => ({
  id: e.id, taskId: e.taskId, state: e.state, time: epochSeconds(e.time), associatedInfo: e.associatedInfo,
});

/**
 * The `search` terms (§1.8): comma-separated `key:value` (a string field contains the value,
 * another field equals it), `key>value` (≥), `key<value` (≤) on the task fields of
 * TASK_SEARCH_FIELDS; instants in epoch milliseconds. Terms of another form are ignored, as in
 * the reference; an unknown field or a value of the wrong type is a 400 (the reference answered 500).
 */
export function parseSearch(search: string): q.SearchTerm[] {
  const terms: q.SearchTerm[] = [];
  for (const term of search.split(',')) {
    const m = /^\s*(\w+)([:<>])(\w+)\s*$/.exec(term);
    if (!m) continue;
    const [, key, op, raw] = m as unknown as [string, string, q.SearchTerm['op'], string];
    const kind = q.TASK_SEARCH_FIELDS[key];
    if (!kind) throw new BadRequest(`Unknown search key ${key}; use one of ${Object.keys(q.TASK_SEARCH_FIELDS).join(', ')}`);
    let value: q.SearchTerm['value'] = raw;
    if (kind === 'integer' || kind === 'instant') {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new BadRequest(`The search value of ${key} must be an integer, got ${raw}`);
      value = kind === 'instant' ? new Date(Number(raw)) : Number(raw);
      if (value instanceof Date && Number.isNaN(value.getTime())) throw new BadRequest(`The search value of ${key} is out of range, got ${raw}`);
    } else if (kind === 'boolean') {
      if (!/^(true|false)$/i.test(raw)) throw new BadRequest(`The search value of ${key} must be true or false, got ${raw}`);
      value = raw.toLowerCase() === 'true';
    }
    terms.push({ key, op, value });
  }
  return terms;
}

/** The task types a `type` parameter selects (any case; `all` = every type), or 400. */
export function parseTaskType(type: string): string[] | undefined {
  const t = type.toLowerCase();
  if (t === 'all' || t === '') return undefined;
  if (!TYPES.includes(t)) throw new BadRequest(`Invalid task type ${type}; use scheduled, clinical, triggered or all`);
  return [t];
}

export function createTaskService({ db, events, clock = () => new Date() }: { db: Database; events: AppserverEventBus; clock?: () => Date }) {
  function publishCancelled(owner: { projectId: string; subjectId: string }, ids: number[]) {
    const time = clock();
    events.publish('message.state', ...ids.map((messageId) => ({
      kind: 'notification' as const, messageId, projectId: owner.projectId, subjectId: owner.subjectId, state: 'CANCELLED' as const, time, associatedInfo: null,
    })));
  }

  return {
    /**
     * Q3: the subject's tasks, oldest first. With `startTime` and `endTime` (ISO, as aRMT sends
     * them): those whose window [timestamp, timestamp + completionWindow] overlaps them; `type`
     * and `search` narrow further (the reference ignored them then, and `search` with type all).
     */
    async list(projectId: string, subjectId: string, query: TaskQueryT) {
      const types = parseTaskType(query.type);
      const search = parseSearch(query.search);
      const start = query.startTime !== undefined ? parseInstant(query.startTime, 'startTime') : undefined;
      const end = query.endTime !== undefined ? parseInstant(query.endTime, 'endTime') : undefined;
      const rows = await q.listSubjectTasks(db, projectId, subjectId, { types, search, start, end });
      // No tasks: 404 when the project or subject is unknown (a second look only on this path).
      if (rows.length === 0) await requireSubject(db, projectId, subjectId);
      return rows.map(toTaskDto);
    },

    /** Q4: deletes the subject's tasks of the type and search, cancelling their unsent notifications. */
    async remove(projectId: string, subjectId: string, query: { type: string; search: string }) {
      const types = parseTaskType(query.type);
      const search = parseSearch(query.search);
      const cancelled = await db.transaction(async (tx) => {
        const { user } = await requireSubject(tx, projectId, subjectId);
        const ids = (await q.listTasks(tx, user.id, { types, search })).map((t) => t.id);
        return q.deleteTasksAndUnsentNotifications(tx, ids);
      });
      publishCancelled({ projectId, subjectId }, cancelled.map((m) => m.id));
    },

    /** T1: a task's state events by id alone (an unknown id has none). */
    /** T1: 404 for an unknown task, 403 when its user is outside `scope` (the reference showed any user's). */
    async listStateEvents(taskId: number, scope: ReadScope) {
      const owner = await q.findTaskOwner(db, taskId);
      if (!owner) throw new NotFound(`Task not found with id ${taskId}`);
      if (!inScope(scope, owner.projectId, owner.subjectId)) throw new Forbidden();
      return (await q.listTaskStateEvents(db, taskId)).map(toStateEventDto);
    },

    /** T2: 404 unless the task is the subject's. */
    async listUserStateEvents(projectId: string, subjectId: string, taskId: number) {
      const { user } = await requireSubject(db, projectId, subjectId);
      if (!await q.findUserTask(db, user.id, taskId)) throw new NotFound(`Task not found with id ${taskId}`);
      return (await q.listTaskStateEvents(db, taskId)).map(toStateEventDto);
    },

    /**
     * T3: records a client-reported state (COMPLETED, UNKNOWN, ERRORED; else 400), at most
     * MAX_TASK_STATE_EVENTS per task (409); 404 unless the task is the subject's. COMPLETED also
     * marks the task completed at the event's time and cancels its unsent notifications, in the
     * same transaction. Returns all events of the task, the new one included.
     */
    async postStateEvent(projectId: string, subjectId: string, taskId: number, body: TaskStateEventBodyT) {
      requireBodyMatchesPath('taskId', body.taskId, taskId, `the path (${taskId})`);
      const { state, time, associatedInfo } = readExternalStateEvent(body, EXTERNAL_TASK_STATES, clock);
      const { list, cancelled } = await db.transaction(async (tx) => {
        const { user } = await requireSubject(tx, projectId, subjectId);
        // The row lock serialises concurrent posts for the cap.
        if (!await q.findUserTask(tx, user.id, taskId, true)) throw new NotFound(`Task not found with id ${taskId}`);
        requireBelowStateEventCap(await q.countTaskStateEvents(tx, taskId), MAX_TASK_STATE_EVENTS);
        await q.insertTaskStateEvent(tx, { taskId, state, time, associatedInfo });
        let cancelled: number[] = [];
        if (state === 'COMPLETED') {
          await q.completeTask(tx, taskId, time);
          cancelled = (await q.deleteUnsentTaskNotifications(tx, [taskId])).map((m) => m.id);
        }
        return { list: await q.listTaskStateEvents(tx, taskId), cancelled };
      });
      publishCancelled({ projectId, subjectId }, cancelled);
      return list.map(toStateEventDto);
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;
