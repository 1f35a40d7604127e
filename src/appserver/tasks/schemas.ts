import { Type, type Static } from 'typebox';
import { TASK_STATES } from '../schema.js';
import { Id, InstantIn, InstantOut, nullable, StringMap, SubjectParams } from '../schemas.js';

const EpochMs = (description: string) => Type.Integer({ description: `${description}, epoch milliseconds` });

/** A task as the reference serialises its entity (§2.6): instants are epoch milliseconds. */
export const Task = Type.Object({
  id: Type.Integer(),
  completed: Type.Boolean(),
  timestamp: EpochMs('When the task starts'),
  name: Type.String(),
  type: Type.String({ description: 'scheduled, clinical or triggered' }),
  estimatedCompletionTime: Type.Integer({ description: 'Minutes' }),
  completionWindow: Type.Integer({ description: 'Milliseconds' }),
  warning: Type.String(),
  isClinical: Type.Boolean(),
  timeCompleted: nullable(EpochMs('When it was completed')),
  showInCalendar: Type.Boolean(),
  isDemo: Type.Boolean(),
  priority: Type.Integer(),
  nquestions: Type.Integer(),
  status: Type.Unsafe<(typeof TASK_STATES)[number]>({ type: 'string', enum: [...TASK_STATES] }),
  createdAt: EpochMs('Created'),
  updatedAt: EpochMs('Last updated'),
});
export type TaskT = Static<typeof Task>;

export const TaskStateEventDto = Type.Object({
  id: Type.Integer(),
  taskId: Type.Integer(),
  state: Type.Unsafe<(typeof TASK_STATES)[number]>({ type: 'string', enum: [...TASK_STATES] }),
  time: InstantOut,
  associatedInfo: nullable(Type.String({ description: 'JSON object of strings, as a string' })),
});
export type TaskStateEventDtoT = Static<typeof TaskStateEventDto>;

/** aRMT posts `{taskId, state: "COMPLETED", time, associatedInfo: ""}` (clients.md §2.1). */
export const TaskStateEventBody = Type.Object({
  state: Type.String({ description: 'COMPLETED, UNKNOWN or ERRORED' }),
  time: Type.Optional(nullable(InstantIn)),
  associatedInfo: Type.Optional(nullable(Type.Union([Type.String(), StringMap]))),
  taskId: Type.Optional(nullable(Type.Integer())),
}, { additionalProperties: false });
export type TaskStateEventBodyT = Static<typeof TaskStateEventBody>;

export const TaskQuery = Type.Object({
  type: Type.String({ default: 'all', description: 'scheduled, clinical, triggered or all (any case)' }),
  search: Type.String({ default: '', description: 'Comma-separated key:value (contains), key>value (≥), key<value (≤) terms on task fields' }),
  startTime: Type.Optional(Type.String({ description: 'ISO-8601 instant: tasks whose window ends at or after it' })),
  endTime: Type.Optional(Type.String({ description: 'ISO-8601 instant: tasks that start at or before it' })),
});
export type TaskQueryT = Static<typeof TaskQuery>;

export const TaskDeleteQuery = Type.Object({ type: TaskQuery.properties.type, search: TaskQuery.properties.search });

export const TaskIdParams = Type.Object({ ...SubjectParams.properties, taskId: Id() });
export const BareTaskIdParams = Type.Object({ taskId: Id() });
