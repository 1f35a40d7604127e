import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgSchema, primaryKey, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { timestamps, timestamptz } from '../platform/db-columns.js';

export const appserver = pgSchema('appserver');

/** The ten message states of the reference (`MessageState`). */
export const MESSAGE_STATES = ['ADDED', 'UPDATED', 'CANCELLED', 'SCHEDULED', 'EXECUTED', 'DELIVERED', 'OPENED', 'DISMISSED', 'ERRORED', 'UNKNOWN'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/**
 * Where a message stands in the delivery pipeline (the scheduler's view): ADDED (stored, not on
 * the schedule), SCHEDULED (due for sending), EXECUTED / ERRORED (sent or failed), CANCELLED
 * (taken off the schedule without being deleted).
 */
export type DeliveryState = 'ADDED' | 'SCHEDULED' | 'EXECUTED' | 'ERRORED' | 'CANCELLED';

/**
 * Where a notification's e-mail stands, apart from its push: null (none asked for yet), PENDING
 * (queued by the push's first attempt, sent and retried by the scheduler under its own lease),
 * SENT, FAILED (refused for good or out of attempts) or SKIPPED (the user has no address).
 */
export type EmailState = 'PENDING' | 'SENT' | 'FAILED' | 'SKIPPED';

export const projects = appserver.table('projects', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  projectId: text('project_id').notNull(),
  ...timestamps(),
}, (t) => [uniqueIndex('projects_project_id_key').on(t.projectId)]);
export type ProjectRow = typeof projects.$inferSelect;

export const users = appserver.table('users', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  // A deleted project takes its users (and through them their messages) with it.
  projectId: bigint('project_id', { mode: 'number' }).notNull().references(() => projects.id, { onDelete: 'cascade' }),
  subjectId: text('subject_id').notNull(),
  // Nullable: an unregistered device token is cleared rather than kept (the scheduler then skips).
  fcmToken: text('fcm_token'),
  enrolmentDate: timestamptz('enrolment_date').notNull(),
  timezone: text('timezone').notNull(),
  language: text('language'),
  email: text('email'),
  attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
  lastOpened: timestamptz('last_opened'),
  lastDelivered: timestamptz('last_delivered'),
  ...timestamps(),
}, (t) => [
  uniqueIndex('users_project_subject_key').on(t.projectId, t.subjectId),
  uniqueIndex('users_fcm_token_key').on(t.fcmToken),
  index('users_subject_id_idx').on(t.subjectId),
]);
export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export const MESSAGE_KINDS = ['notification', 'data'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * Notifications and data messages in one table (the reference's `Message` hierarchy): one
 * schedule, one claim query and one state-event table serve both. `kind` tells them apart; the
 * notification-only columns are null on data messages. Ids are unique across both, as the
 * reference's shared sequence made them.
 */
export const messages = appserver.table('messages', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').$type<MessageKind>().notNull(),
  // A deleted user's queue goes with them (the reference's FK had no cascade and failed instead).
  userId: bigint('user_id', { mode: 'number' }).notNull().references(() => users.id, { onDelete: 'cascade' }),
  // A generated notification's task. Deleting a task cancels (deletes) its unsent notifications
  // in the same transaction (schedules/, tasks/); sent ones stay, without their task.
  taskId: bigint('task_id', { mode: 'number' }).references((): AnyPgColumn => tasks.id, { onDelete: 'set null' }),
  sourceId: text('source_id').notNull(),
  scheduledTime: timestamptz('scheduled_time').notNull(),
  ttlSeconds: integer('ttl_seconds').notNull().default(0),
  fcmMessageId: text('fcm_message_id').notNull(),
  fcmTopic: text('fcm_topic'),
  fcmCondition: text('fcm_condition'),
  delivered: boolean('delivered').notNull().default(false),
  appPackage: text('app_package').notNull(),
  sourceType: text('source_type').notNull(),
  priority: text('priority'),
  mutableContent: boolean('mutable_content').notNull().default(false),
  /** FCM `data`: a notification's additionalData or a data message's dataMap. */
  data: jsonb('data').$type<Record<string, string>>(),
  title: text('title'),
  body: text('body'),
  type: text('type'),
  sound: text('sound'),
  badge: text('badge'),
  subtitle: text('subtitle'),
  icon: text('icon'),
  color: text('color'),
  bodyLocKey: text('body_loc_key'),
  bodyLocArgs: text('body_loc_args'),
  titleLocKey: text('title_loc_key'),
  titleLocArgs: text('title_loc_args'),
  androidChannelId: text('android_channel_id'),
  tag: text('tag'),
  clickAction: text('click_action'),
  emailEnabled: boolean('email_enabled').notNull().default(false),
  emailTitle: text('email_title'),
  emailBody: text('email_body'),
  state: text('state').$type<DeliveryState>().notNull().default('ADDED'),
  // Scheduler lease: a claimer owns the row until this instant; a crashed claimer's rows come back.
  leaseUntil: timestamptz('lease_until'),
  attempts: integer('attempts').notNull().default(0),
  // The e-mail's own queue, independent of the push (state, attempts, and a lease that doubles as
  // the next attempt's time after a failure), so a mail outage never holds the push back.
  emailState: text('email_state').$type<EmailState>(),
  emailAttempts: integer('email_attempts').notNull().default(0),
  emailLeaseUntil: timestamptz('email_lease_until'),
  // Hash of the reference's duplicate rule (notification: sourceId, scheduledTime, title, body,
  // type, ttlSeconds; data message: sourceId, scheduledTime, ttlSeconds), so one unique index
  // enforces it whatever the length of title and body.
  dedupeKey: text('dedupe_key').notNull(),
  ...timestamps(),
}, (t) => [
  uniqueIndex('messages_user_kind_dedupe_key').on(t.userId, t.kind, t.dedupeKey),
  index('messages_user_idx').on(t.userId, t.kind),
  // Keyed on when a SCHEDULED message may next be claimed: its scheduled time, or its lease's end
  // when later (in flight, or waiting for a retry; GREATEST skips a NULL lease). A claim's range
  // scan then never walks the batches other claimers hold, which made each claim cost O(messages
  // in flight) and three scheduler instances slower than one (issue 30 item 4).
  index('messages_due_idx').on(sql`GREATEST(${t.scheduledTime}, ${t.leaseUntil})`).where(sql`${t.state} = 'SCHEDULED'`),
  index('messages_task_idx').on(t.taskId),
  index('messages_email_due_idx').on(t.id).where(sql`${t.emailState} = 'PENDING'`),
]);
export type MessageRow = typeof messages.$inferSelect;
export type NewMessageRow = typeof messages.$inferInsert;

export const messageStateEvents = appserver.table('message_state_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  // Events go with their message (the reference cascades too).
  messageId: bigint('message_id', { mode: 'number' }).notNull().references(() => messages.id, { onDelete: 'cascade' }),
  state: text('state').$type<MessageState>().notNull(),
  time: timestamptz('time').notNull(),
  associatedInfo: text('associated_info'),
  // Posted by a client through the API (the 20-event cap counts only these).
  external: boolean('external').notNull().default(false),
}, (t) => [index('message_state_events_message_idx').on(t.messageId)]);
export type MessageStateEventRow = typeof messageStateEvents.$inferSelect;
export type NewStateEvent = typeof messageStateEvents.$inferInsert;

/**
 * The last good copy of each GitHub answer `GET /github/content` served (the questionnaire app
 * reads its protocols and questionnaires through it), so a restarted instance serves them while
 * GitHub is unreachable. `url` is the normalised `https://api.github.com/…` URL. `size` (bytes of
 * `body`) and `last_used_at` let the table be bounded by count and bytes, least recently used out
 * first, without reading every body.
 */
export const githubResponses = appserver.table('github_responses', {
  url: text('url').primaryKey(),
  body: text('body').notNull(),
  contentType: text('content_type').notNull(),
  fetchedAt: timestamptz('fetched_at').notNull(),
  size: integer('size').notNull().default(0),
  lastUsedAt: timestamptz('last_used_at').notNull().defaultNow(),
});
export type GithubResponseRow = typeof githubResponses.$inferSelect;

/**
 * The last good copy of each protocol file of the protocol repository (`{projectId}[/k/v…]/{file}`),
 * exactly as GitHub holds it. `sha` is its git blob sha: a refresh downloads only changed files.
 */
export const protocolFiles = appserver.table('protocol_files', {
  // `owner/name@branch`: a changed repository setting never serves the old repository's files.
  source: text('source').notNull(),
  path: text('path').notNull(),
  sha: text('sha').notNull(),
  content: text('content').notNull(),
  fetchedAt: timestamptz('fetched_at').notNull(),
}, (t) => [primaryKey({ name: 'protocol_files_pkey', columns: [t.source, t.path] })]);
export type ProtocolFileRow = typeof protocolFiles.$inferSelect;
/** The reference's task states (`TaskState`); clients may report COMPLETED, UNKNOWN and ERRORED. */
export const TASK_STATES = ['ADDED', 'UPDATED', 'CANCELLED', 'SCHEDULED', 'COMPLETED', 'ERRORED', 'UNKNOWN'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * Questionnaire tasks generated from a user's protocol (§2.6). A task is identified within its
 * user by (name, timestamp): regeneration keeps an existing task (id, status, completion) and
 * adds only missing ones.
 */
export const tasks = appserver.table('tasks', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  // A deleted user's tasks go with them.
  userId: bigint('user_id', { mode: 'number' }).notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  type: text('type').notNull(),
  timestamp: timestamptz('timestamp').notNull(),
  /** Milliseconds. */
  completionWindow: bigint('completion_window', { mode: 'number' }).notNull(),
  estimatedCompletionTime: integer('estimated_completion_time').notNull().default(0),
  warning: text('warning').notNull().default(''),
  isClinical: boolean('is_clinical').notNull().default(false),
  showInCalendar: boolean('show_in_calendar').notNull().default(true),
  isDemo: boolean('is_demo').notNull().default(false),
  priority: integer('priority').notNull().default(0),
  nQuestions: integer('n_questions').notNull().default(0),
  completed: boolean('completed').notNull().default(false),
  timeCompleted: timestamptz('time_completed'),
  status: text('status').$type<TaskState>().notNull().default('ADDED'),
  ...timestamps(),
}, (t) => [
  uniqueIndex('tasks_user_name_timestamp_key').on(t.userId, t.name, t.timestamp),
  index('tasks_user_timestamp_idx').on(t.userId, t.timestamp),
]);
export type TaskRow = typeof tasks.$inferSelect;
export type NewTaskRow = typeof tasks.$inferInsert;

/** State events a client reported for a task (T3); a task with any has started and is never deleted by regeneration. */
export const taskStateEvents = appserver.table('task_state_events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  // Events go with their task.
  taskId: bigint('task_id', { mode: 'number' }).notNull().references(() => tasks.id, { onDelete: 'cascade' }),
  state: text('state').$type<TaskState>().notNull(),
  time: timestamptz('time').notNull(),
  associatedInfo: text('associated_info'),
}, (t) => [index('task_state_events_task_idx').on(t.taskId)]);
export type TaskStateEventRow = typeof taskStateEvents.$inferSelect;

/**
 * What a user's schedule was last generated from, so a run knows whether anything changed: the
 * protocol version (null: the user had no protocol), the user's zone, enrolment and language, and
 * how far ahead repeats were generated. Its row lock serialises one user's generations.
 */
export const scheduleInputs = appserver.table('schedule_inputs', {
  // Goes with its user.
  userId: bigint('user_id', { mode: 'number' }).primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  protocolVersion: text('protocol_version'),
  timezone: text('timezone'),
  enrolmentDate: timestamptz('enrolment_date'),
  language: text('language'),
  attributes: jsonb('attributes').$type<Record<string, string>>(),
  /** Repeat instants before this were generated (null: never generated). */
  coveredUntil: timestamptz('covered_until'),
  generatedAt: timestamptz('generated_at'),
});
export type ScheduleInputsRow = typeof scheduleInputs.$inferSelect;

/**
 * One row per periodic job shared by all instances (the interval schedule run): the instance
 * that moves `leaseUntil` forward owns the run; `lastStartedAt` keeps the others from repeating
 * it within the interval.
 */
export const jobLeases = appserver.table('job_leases', {
  name: text('name').notNull(),
  holder: text('holder'),
  leaseUntil: timestamptz('lease_until'),
  lastStartedAt: timestamptz('last_started_at'),
  lastFinishedAt: timestamptz('last_finished_at'),
}, (t) => [primaryKey({ name: 'job_leases_pkey', columns: [t.name] })]);
