/**
 * What moves from a RADAR-Appserver v2.4.x database (appserver.md §3), table by table, in the
 * order their references need (issue 32 item 3): projects; users with their FCM token, zone,
 * language, enrolment, e-mail, attributes (`attributes_map`) and metrics (`user_metrics`); tasks
 * and their state events; notifications and data messages with their FCM data
 * (`notification_additional_data`, `data_message_map`) and state events, all into this service's
 * one `messages` table (the reference's ids come from its one `hibernate_sequence`, so
 * notification and data-message ids never collide and are kept).
 *
 * Which messages: every one not yet sent. One on the reference's schedule (its Quartz job still
 * has its trigger) comes as SCHEDULED, so this service's scheduler sends it once after the switch
 * (a message due before the switch goes out at the scheduler's first tick, or expires by its TTL
 * as any other); one never scheduled (no Quartz job: posted with `?schedule=false`) comes as
 * ADDED, as such a message is here, until a `…/schedule` call. A message counts as sent when it
 * has a state event `EXECUTED` or later (the `delivered` column is always false in v2.4.x), or
 * when its Quartz job is left without a trigger (it fired; v2.4.x rarely records the EXECUTED
 * event); sent ones come, as EXECUTED (ERRORED when that is all they have), with their events,
 * only when scheduled within `--history <ISO-8601 period>` (default: none). A source without the
 * Quartz tables (an in-memory job store) cannot tell these apart: every message without a sent
 * event comes as SCHEDULED. The Quartz tables themselves do not move: the scheduler is this
 * service's own.
 *
 * The reference's `timestamp` columns hold UTC (`hibernate.jdbc.time_zone=UTC`) and are read as such.
 */
import { hash } from 'node:crypto';
import type { IdMap, Row, TableSpec, Tx } from './engine.js';

const utc = (col: string, as: string) => `(${col} at time zone 'UTC') as ${as}`;
/** The row's values of `columns` (null when missing), `set` written over them (a loop: this runs for every row). */
const pick = (row: Row, columns: Array<[string, string]>, set?: Row): Row => {
  const out: Row = {};
  for (const [c] of columns) out[c] = row[c] ?? null;
  return set ? Object.assign(out, set) : out;
};
const map = (ids: IdMap, table: string, value: unknown) => ids.get(`appserver.${table}`, value);

/** States that mean the reference sent the message (or its app reported having it). */
export const SENT_STATES = ['EXECUTED', 'DELIVERED', 'OPENED', 'DISMISSED', 'ERRORED', 'UNKNOWN'] as const;
/** States only a client posts (this service caps those at 20 a message). */
const EXTERNAL_STATES = `('DELIVERED', 'OPENED', 'DISMISSED', 'UNKNOWN')`;
const sentList = `(${SENT_STATES.map((s) => `'${s}'`).join(', ')})`;

/** An ISO-8601 duration PostgreSQL's `interval` reads (`P30D`, `PT12H`, `P1Y2M`, `P2W`). */
export const ISO_PERIOD = /^P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

/*
 * The reference has no index on its child tables' foreign keys (state events, FCM data,
 * attributes): every child table is read once, grouped, and hash-joined to its parent, never
 * looked up per parent row (which would scan it once per row).
 */

/**
 * `s`: the sent state of each message of `events` (keyed by `fk`) that has one, EXECUTED when
 * any of its sent-state events is not ERRORED, ERRORED when all are. `only` limits the scan to
 * the ids of that SQL array.
 */
const sentJoin = (events: string, fk: string, quartz: boolean, only?: string) => `left join (select se.${fk} as message_id,
    case when bool_or(se.state <> 'ERRORED') then 'EXECUTED' else 'ERRORED' end as sent_state
    from ${events} se where se.state in ${sentList}${only ? ` and se.${fk} = any(${only})` : ''} group by se.${fk}) s on s.message_id = m.id
  ${quartzJoin(quartz)}`;

/**
 * `q`: the message's Quartz job (appserver.md §5.1), when the source has the Quartz tables. The
 * reference keeps a job per scheduled message (`message-jobdetail-{subjectId}-{messageId}`,
 * durable) with one trigger that Quartz deletes once it has fired: a job with its trigger is still
 * to be sent (`q.fired` false), a job without one was sent (or failed) — v2.4.x rarely records
 * its EXECUTED event, so this is the only trace of most sends — and no job at all means the
 * message was never scheduled (posted with `?schedule=false`, waiting for a `…/schedule` call).
 */
const quartzJoin = (quartz: boolean) => (quartz
  ? `left join (select substring(j.job_name from '-([0-9]+)$')::bigint as message_id, bool_and(t.trigger_name is null) as fired
      from qrtz_job_details j left join qrtz_triggers t on t.sched_name = j.sched_name and t.job_name = j.job_name and t.job_group = j.job_group
      where j.job_name ~ '^message-jobdetail-.*-[0-9]+$' group by 1) q on q.message_id = m.id`
  : 'left join (select null::bigint as message_id, false as fired) q on false');
/** Whether a message (aliases `m`, `s`, `q`) was sent. */
const SENT = '(s.message_id is not null or coalesce(q.fired, false))';
/** Whether a message (alias `m`, joined to `s` and `q`) is imported: not sent, or scheduled within the history period. */
const messageFilter = (history: string | null) =>
  (history ? `(not ${SENT} or m.scheduled_time >= (now() at time zone 'UTC') - interval '${history}')` : `not ${SENT}`);

/** Whether the source has the Quartz tables (a reference run with the JDBC job store, as in production). */
export async function hasQuartzTables(tx: Tx): Promise<boolean> {
  const [row] = await tx.unsafe<Array<{ found: boolean }>>(
    `select to_regclass('qrtz_job_details') is not null and to_regclass('qrtz_triggers') is not null as found`,
  );
  return row?.found === true;
}
/** A `present` page's keys are many (the grouped scan above runs once a page). */
const PRESENT_PAGE = 50_000;

/** The reference stored `Europe/London`, or an offset (a DOUBLE until 2020, so `7200` or `7200.0`). */
export function normalizeTimezone(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : value === null || value === undefined ? '' : String(value);
  if (/^[+-]?\d+(\.0+)?$/.test(text) && Math.abs(Number(text)) <= 18 * 3600) return String(Math.trunc(Number(text)));
  if (text !== '') {
    const known = zones.get(text);
    if (known !== undefined) return known;
    let zone = 'GMT';
    try {
      new Intl.DateTimeFormat('en', { timeZone: text });
      zone = text;
    } catch {
      // An unknown zone: the reference's TimeZone.getTimeZone fell back to GMT.
    }
    // A user's zone is one of a few hundred: each is checked once (a DateTimeFormat costs ~70 µs).
    if (zones.size < 10_000) zones.set(text, zone);
    return zone;
  }
  return 'GMT';
}
const zones = new Map<string, string>();

/** This service's duplicate key of a message (messages/service.ts: SHA-256 of the reference's duplicate rule's fields). */
const dedupeKey = (fields: unknown[]) => hash('sha256', JSON.stringify(fields), 'base64url');
const instant = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

const PROJECTS: Array<[string, string]> = [['id', 'bigint'], ['project_id', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz']];
const USERS: Array<[string, string]> = [
  ['id', 'bigint'], ['project_id', 'bigint'], ['subject_id', 'text'], ['fcm_token', 'text'], ['enrolment_date', 'timestamptz'],
  ['timezone', 'text'], ['language', 'text'], ['email', 'text'], ['attributes', 'jsonb'], ['last_opened', 'timestamptz'],
  ['last_delivered', 'timestamptz'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'],
];
const TASKS: Array<[string, string]> = [
  ['id', 'bigint'], ['user_id', 'bigint'], ['name', 'text'], ['type', 'text'], ['timestamp', 'timestamptz'], ['completion_window', 'bigint'],
  ['estimated_completion_time', 'integer'], ['warning', 'text'], ['is_clinical', 'boolean'], ['show_in_calendar', 'boolean'],
  ['is_demo', 'boolean'], ['priority', 'integer'], ['n_questions', 'integer'], ['completed', 'boolean'], ['time_completed', 'timestamptz'],
  ['status', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'],
];
const TASK_EVENTS: Array<[string, string]> = [['id', 'bigint'], ['task_id', 'bigint'], ['state', 'text'], ['time', 'timestamptz'], ['associated_info', 'text']];
const MESSAGES: Array<[string, string]> = [
  ['id', 'bigint'], ['kind', 'text'], ['user_id', 'bigint'], ['task_id', 'bigint'], ['source_id', 'text'], ['scheduled_time', 'timestamptz'],
  ['ttl_seconds', 'integer'], ['fcm_message_id', 'text'], ['fcm_topic', 'text'], ['fcm_condition', 'text'], ['delivered', 'boolean'],
  ['app_package', 'text'], ['source_type', 'text'], ['priority', 'text'], ['mutable_content', 'boolean'], ['data', 'jsonb'],
  ['title', 'text'], ['body', 'text'], ['type', 'text'], ['sound', 'text'], ['badge', 'text'], ['subtitle', 'text'], ['icon', 'text'],
  ['color', 'text'], ['body_loc_key', 'text'], ['body_loc_args', 'text'], ['title_loc_key', 'text'], ['title_loc_args', 'text'],
  ['android_channel_id', 'text'], ['tag', 'text'], ['click_action', 'text'], ['email_enabled', 'boolean'], ['email_title', 'text'],
  ['email_body', 'text'], ['state', 'text'], ['dedupe_key', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'],
];
const MESSAGE_EVENTS: Array<[string, string]> = [
  ['id', 'bigint'], ['message_id', 'bigint'], ['state', 'text'], ['time', 'timestamptz'], ['associated_info', 'text'], ['external', 'boolean'],
];
const NOTIFICATION_ONLY = ['title', 'body', 'type', 'sound', 'badge', 'subtitle', 'icon', 'color', 'body_loc_key', 'body_loc_args',
  'title_loc_key', 'title_loc_args', 'android_channel_id', 'tag', 'click_action', 'email_title', 'email_body'];

/** The keys of `table`'s messages (of the page `$1`) the source still has and the import takes. */
const presentMessages = (table: string, events: string, fk: string, history: string | null, quartz: boolean) =>
  `select m.id::text as _key from ${table} m ${sentJoin(events, fk, quartz, '$1::text[]::bigint[]')}
    where m.id = any($1::text[]::bigint[]) and ${messageFilter(history)}`;

/**
 * The columns both message tables share, read from alias `m` (and `s`, `q`, sentJoin). The state:
 * EXECUTED or ERRORED when sent, SCHEDULED when due to be sent, ADDED when never scheduled (no
 * Quartz job: this service's state of a message posted with `?schedule=false`, which its
 * `…/schedule` endpoints put on the schedule as the reference's did).
 */
const messageColumns = (quartz: boolean) => `m.id::text as _key, m.id, m.user_id,
  (select t.id from tasks t where t.id = m.task_id) as task_id, coalesce(m.source_id, '') as source_id, ${utc('m.scheduled_time', 'scheduled_time')},
  coalesce(m.ttl_seconds, 0) as ttl_seconds, coalesce(m.fcm_message_id, m.id::text) as fcm_message_id, m.fcm_topic, m.fcm_condition, m.delivered,
  coalesce(m.app_package, '') as app_package, coalesce(m.source_type, '') as source_type, upper(m.priority) as priority,
  coalesce(m.mutable_content, false) as mutable_content, coalesce(s.sent_state, case when q.fired then 'EXECUTED' when ${quartz} and q.message_id is null then 'ADDED' else 'SCHEDULED' end) as state,
  ${utc('m.created_at', 'created_at')}, ${utc('m.updated_at', 'updated_at')}`;

/**
 * A sent message stays sent: a later run never moves a message this service has sent (or a
 * client has reported on) back onto the schedule.
 */
const KEEP_SENT = { state: `case when t.state in ('EXECUTED', 'ERRORED') then t.state else excluded.state end` };

const mapMessage = (kind: 'notification' | 'data') => (row: Row, ids: IdMap): Row => {
  const out = pick(row, MESSAGES, { kind, user_id: map(ids, 'users', row.user_id), task_id: map(ids, 'tasks', row.task_id) });
  if (kind === 'data') for (const c of NOTIFICATION_ONLY) out[c] = null;
  out.email_enabled = kind === 'notification' && row.email_enabled === true;
  const scheduled = instant(row.scheduled_time).getTime();
  out.dedupe_key = dedupeKey(kind === 'notification'
    ? [out.source_id, scheduled, out.title, out.body ?? null, out.type, out.ttl_seconds ?? 0]
    : [out.source_id, scheduled, out.ttl_seconds ?? 0]);
  return out;
};

/** A message's natural key (`naturalKey` of the message tables) as a string. */
const messageKey = (row: Row) => `${String(row.user_id)}:${String(row.kind)}:${String(row.dedupe_key)}`;

const eventSpec = (name: string, parent: string, fk: string, history: string | null, quartz: boolean): TableSpec => ({
  name, target: 'appserver.message_state_events', columns: MESSAGE_EVENTS, conflict: ['id'], sequence: true,
  select: `select e.id::text as _key, e.id, e.${fk} as message_id, e.state, ${utc('e.time', 'time')}, e.associated_info,
      (e.state in ${EXTERNAL_STATES} or (e.state = 'ERRORED' and coalesce(e.associated_info, '') not like '%Could not transmit a message%')) as external
    from ${name} e join ${parent} m on m.id = e.${fk} ${sentJoin(name, fk, quartz)}
    where ${messageFilter(history)} order by e.id`,
  present: `select e.id::text as _key from ${name} e join ${parent} m on m.id = e.${fk} ${sentJoin(name, fk, quartz)}
    where e.id = any($1::text[]::bigint[]) and ${messageFilter(history)}`,
  presentPage: PRESENT_PAGE,
  map: (row, ids) => pick(row, MESSAGE_EVENTS, { message_id: map(ids, 'messages', row.message_id) }),
});

/**
 * The Appserver tables, in import order. `history` is the `--history` period (validated with
 * `ISO_PERIOD`; it is written into the SQL), or null for none.
 */
export function appserverTables(history: string | null, quartz = false): TableSpec[] {
  if (history !== null && !ISO_PERIOD.test(history)) throw new Error(`--history: an ISO-8601 period such as P30D, got ${history}`);
  return [
    {
      name: 'projects', target: 'appserver.projects', columns: PROJECTS, conflict: ['id'], sequence: true,
      select: `select id::text as _key, id, project_id, ${utc('created_at', 'created_at')}, ${utc('updated_at', 'updated_at')} from projects order by id`,
      present: 'select id::text as _key from projects where id = any($1::text[]::bigint[])',
      naturalKey: 't.project_id = x.project_id',
      map: (row) => pick(row, PROJECTS),
    },
    {
      name: 'users', target: 'appserver.users', columns: USERS, conflict: ['id'], sequence: true,
      select: `select u.id::text as _key, u.id, u.project_id, u.subject_id, u.fcm_token,
          (coalesce(u.enrolment_date, u.created_at) at time zone 'UTC') as enrolment_date, u.timezone, u.language, u.email,
          coalesce(aa.attributes, '{}'::jsonb) as attributes,
          ${utc('um.last_opened', 'last_opened')}, ${utc('um.last_delivered', 'last_delivered')},
          ${utc('u.created_at', 'created_at')}, ${utc('u.updated_at', 'updated_at')}
        from users u left join user_metrics um on um.id = u.usermetrics_id
        left join (select a.user_id, jsonb_object_agg(a.key, a.value) as attributes from attributes_map a where a.key is not null group by a.user_id) aa
          on aa.user_id = u.id
        order by u.id`,
      present: 'select id::text as _key from users where id = any($1::text[]::bigint[])',
      naturalKey: '((t.project_id = x.project_id and t.subject_id = x.subject_id) or t.fcm_token = x.fcm_token)',
      map: (row, ids) => pick(row, USERS, { project_id: map(ids, 'projects', row.project_id), timezone: normalizeTimezone(row.timezone) }),
    },
    {
      name: 'tasks', target: 'appserver.tasks', columns: TASKS, conflict: ['id'], sequence: true,
      // The reference stores the type as its enum's name (SCHEDULED); the wire and this service use lower case.
      select: `select id::text as _key, id, user_id, coalesce(name, '') as name, lower(coalesce(type, 'scheduled')) as type,
          ${utc('"timestamp"', '"timestamp"')}, coalesce(completion_window, 0) as completion_window,
          coalesce(estimated_completion_time, 0)::int as estimated_completion_time, coalesce(warning, '') as warning,
          coalesce(is_clinical, false) as is_clinical, coalesce(show_in_calendar, true) as show_in_calendar, coalesce(is_demo, false) as is_demo,
          coalesce(priority, 0) as priority, coalesce(n_questions, 0) as n_questions, completed, ${utc('time_completed', 'time_completed')},
          status, ${utc('created_at', 'created_at')}, ${utc('updated_at', 'updated_at')}
        from tasks order by id`,
      present: 'select id::text as _key from tasks where id = any($1::text[]::bigint[])',
      naturalKey: 't.user_id = x.user_id and t.name = x.name and t."timestamp" = x."timestamp"',
      map: (row, ids) => pick(row, TASKS, { user_id: map(ids, 'users', row.user_id) }),
    },
    {
      name: 'task_state_events', target: 'appserver.task_state_events', columns: TASK_EVENTS, conflict: ['id'], sequence: true,
      select: `select id::text as _key, id, task_id, state, ${utc('time', 'time')}, associated_info from task_state_events order by id`,
      present: 'select id::text as _key from task_state_events where id = any($1::text[]::bigint[])',
      map: (row, ids) => pick(row, TASK_EVENTS, { task_id: map(ids, 'tasks', row.task_id) }),
    },
    {
      name: 'notifications', target: 'appserver.messages', columns: MESSAGES, conflict: ['id'], sequence: true, onUpdate: KEEP_SENT,
      select: `select ${messageColumns(quartz)}, dd.data, m.title, m.body, m.type, m.sound, m.badge, m.subtitle, m.icon, m.color, m.body_loc_key, m.body_loc_args, m.title_loc_key,
          m.title_loc_args, m.android_channel_id, m.tag, m.click_action, coalesce(m.email_enabled, false) as email_enabled, m.email_title, m.email_body
        from notifications m ${sentJoin('notification_state_events', 'notification_id', quartz)}
        left join (select d.notification_id, jsonb_object_agg(d.additional_key, d.additional_value) as data from notification_additional_data d
          where d.additional_key is not null group by d.notification_id) dd on dd.notification_id = m.id
        where ${messageFilter(history)} order by m.id`,
      present: presentMessages('notifications', 'notification_state_events', 'notification_id', history, quartz),
      presentPage: PRESENT_PAGE,
      naturalKey: `t.user_id = x.user_id and t.kind = x.kind and t.dedupe_key = x.dedupe_key`, naturalKeyOf: messageKey,
      map: mapMessage('notification'),
    },
    eventSpec('notification_state_events', 'notifications', 'notification_id', history, quartz),
    {
      name: 'data_messages', target: 'appserver.messages', columns: MESSAGES, conflict: ['id'], sequence: true, onUpdate: KEEP_SENT,
      select: `select ${messageColumns(quartz)}, dd.data
        from data_messages m ${sentJoin('data_message_state_events', 'data_message_id', quartz)}
        left join (select d.data_message_id, jsonb_object_agg(d.key, d.value) as data from data_message_map d
          where d.key is not null group by d.data_message_id) dd on dd.data_message_id = m.id
        where ${messageFilter(history)} order by m.id`,
      present: presentMessages('data_messages', 'data_message_state_events', 'data_message_id', history, quartz),
      presentPage: PRESENT_PAGE,
      naturalKey: `t.user_id = x.user_id and t.kind = x.kind and t.dedupe_key = x.dedupe_key`, naturalKeyOf: messageKey,
      map: mapMessage('data'),
    },
    eventSpec('data_message_state_events', 'data_messages', 'data_message_id', history, quartz),
  ];
}
