/**
 * The switch-over importer (issue 32 item 3) from a RADAR-Appserver v2.4.5 database into this
 * service's: the source is built from the reference's own Liquibase schema
 * (test/fixtures/import/appserver-2.4.5.sql) and filled with awkward rows; each target is a new
 * database. PostgreSQL only (the sources are PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { runImport, TargetNotNew, type ImportOptions } from '../../src/import/run.js';
import { verifyImport } from '../../src/import/verify.js';
import { until } from '../helpers/eventually.js';
import { startFcmStub } from '../helpers/fcm-stub.js';
import { onPostgres } from '../helpers/build-test-app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = readFileSync(new URL('../fixtures/import/appserver-2.4.5.sql', import.meta.url), 'utf8');
const BULK = 120;
const DAY = 86_400_000;

const made: string[] = [];
let admin: Sql;
const urlOf = (name: string) => {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
};
async function database(kind: 'empty' | 'migrated'): Promise<{ name: string; url: string; sql: Sql }> {
  const name = `radar_import_${randomBytes(5).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${name}${kind === 'migrated' ? ` TEMPLATE ${inject('pgTemplate')}` : ''}`);
  made.push(name);
  return { name, url: urlOf(name), sql: postgres(urlOf(name), { max: 2, onnotice: () => {} }) };
}

const log = pino({ level: 'silent' });
const skips = (report: { tables: Record<string, { skipped: unknown[] }> }) =>
  Object.fromEntries(Object.entries(report.tables).filter(([, t]) => t.skipped.length > 0).map(([name, t]) => [name, t.skipped]));
const importInto = (target: string, source: string, extra: Partial<ImportOptions> = {}) =>
  runImport({ target: { kind: 'postgres', url: target, poolSize: 2 }, appserver: source, log, ...extra });

/** A UTC `timestamp` literal `days` from now (the reference stores UTC without a zone). */
const at = (days: number) => `'${new Date(Date.now() + days * DAY).toISOString().replace('T', ' ').replace('Z', '')}'`;

async function fillSource(sql: Sql) {
  await sql.unsafe(FIXTURE);
  await sql.unsafe(`
    insert into projects (id, created_at, updated_at, project_id) values
      (100, '2021-01-01 10:00:00', '2021-01-02 10:00:00', 'study-a'), (101, '2021-01-01 10:00:00', '2021-01-01 10:00:00', 'Stüdy-β');
    insert into user_metrics (id, created_at, updated_at, last_delivered, last_opened) values
      (200, '2021-01-01 10:00:00', '2021-01-01 10:00:00', '2024-05-05 05:05:05', '2024-06-06 06:06:06');
    insert into users (id, created_at, updated_at, enrolment_date, fcm_token, subject_id, timezone, project_id, usermetrics_id, language, email) values
      (300, '2021-02-01 10:00:00', '2021-02-02 10:00:00', '2021-02-01 00:00:00', 'fcm:Zoë-🙂-token', 'sub-x', 'Europe/Amsterdam', 100, 200, 'nl', 'zoe@example.org'),
      (301, '2021-02-03 10:00:00', '2021-02-03 10:00:00', null, 'fcm-offset', 'sub-offset', '7200', 100, null, 'en', null),
      (302, '2021-02-04 10:00:00', '2021-02-04 10:00:00', '2021-02-04 00:00:00', 'fcm-other', 'sub-x', 'Mars/Olympus', 101, null, 'da', null);
    insert into attributes_map (id, key, value, user_id) values (320, 'site', 'Zürich', 300), (321, 'arm', 'B', 300), (322, null, 'ignored', 300);
    insert into tasks (id, created_at, updated_at, completed, "timestamp", time_completed, name, type, estimated_completion_time, completion_window,
        warning, is_clinical, show_in_calendar, is_demo, priority, n_questions, user_id, status) values
      (400, '2021-02-01 10:00:00', '2021-02-05 10:00:00', true, '2021-02-05 09:00:00', '2021-02-05 09:30:00', 'PHQ8', 'SCHEDULED', 5, 86400000,
        'Wärning', false, true, false, 1, 8, 300, 'COMPLETED'),
      (401, '2021-02-01 10:00:00', '2021-02-01 10:00:00', false, '2099-01-01 09:00:00', null, null, null, null, null, null, null, null, null, null, null, 300, 'UNKNOWN');
    insert into task_state_events (id, state, time, task_id, associated_info) values (410, 'COMPLETED', '2021-02-05 09:30:00', 400, '{"k":"v"}');
    insert into notifications (id, created_at, updated_at, app_package, body, delivered, dry_run, fcm_message_id, fcm_topic, scheduled_time,
        source_id, source_type, title, ttl_seconds, type, validated, user_id, priority, sound, badge, color, tag, mutable_content, task_id,
        email_enabled, email_title, email_body) values
      (500, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'org.phidatalab.radar_armt', 'Bödy', false, false, '-1550939276', null, ${at(7)},
        'src-α', 'aRMT', 'Next week ✓', 3600, 'PHQ8', false, 300, 'high', 'default', '1', '#ff0000', 't', null, 400, true, 'Mail', 'Mail body'),
      (501, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'org.phidatalab.radar_armt', null, false, null, null, null, ${at(-1 / 24)},
        null, 'aRMT', 'Due an hour ago', 86400, null, false, 300, null, null, null, null, null, null, 999999, null, null, null),
      (502, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', 'b', false, false, 'x', null, ${at(-3)}, 's', 'aRMT', 'Sent three days ago', 0, 't', false, 300,
        null, null, null, null, null, false, null, false, null, null),
      (503, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', 'b', false, false, 'x', null, ${at(-100)}, 's', 'aRMT', 'Opened long ago', 0, 't', false, 300,
        null, null, null, null, null, false, null, false, null, null),
      (504, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', 'b', false, false, 'x', null, ${at(-2)}, 's', 'aRMT', 'Failed two days ago', 0, 't', false, 301,
        null, null, null, null, null, false, null, false, null, null),
      (505, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', 'b', false, false, 'x', null, ${at(-1)}, 's', 'aRMT', 'Expired yesterday', 60, 't', false, 301,
        null, null, null, null, null, false, null, false, null, null);
    insert into notification_additional_data (id, additional_key, additional_value, notification_id) values
      (520, 'action', 'QUESTIONNAIRE_TRIGGER', 500), (521, 'questionnaire', '{"name":"PHQ8"}', 500);
    insert into notification_state_events (id, state, time, notification_id, associated_info) values
      (510, 'ADDED', '2021-02-01 10:00:00', 500, null), (511, 'ADDED', '2021-02-01 10:00:00', 501, null),
      (512, 'ADDED', '2021-02-01 10:00:00', 502, null), (513, 'EXECUTED', ${at(-3)}, 502, null),
      (514, 'OPENED', ${at(-100)}, 503, '{"how":"tap"}'),
      (515, 'ERRORED', ${at(-2)}, 504, '{"error":"Could not transmit a message","error_description":"JobExecutionException"}');
    insert into data_messages (id, created_at, updated_at, app_package, delivered, dry_run, fcm_message_id, fcm_topic, scheduled_time, source_id,
        source_type, ttl_seconds, validated, user_id, fcm_condition, priority, mutable_content, task_id) values
      (600, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'org.radarbase.app', false, false, null, null, ${at(-1 / 24)}, 'data-src', 'aRMT', 7200, false, 301,
        null, 'normal', null, null),
      (601, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'org.radarbase.app', false, false, 'y', null, ${at(-5)}, 'data-src', 'aRMT', 0, false, 301,
        null, null, true, null);
    insert into data_message_map (id, key, value, data_message_id) values (620, 'cmd', 'sync', 600);
    insert into data_message_state_events (id, state, time, data_message_id, associated_info) values
      (610, 'EXECUTED', ${at(-5)}, 601, null), (611, 'ADDED', '2021-02-01 10:00:00', 600, null);
    insert into users (id, created_at, updated_at, enrolment_date, fcm_token, subject_id, timezone, project_id, language)
      select 1000 + n, '2021-01-01', '2021-01-01', '2021-01-01', 'bulk-token-' || n, 'bulk-' || n, 'UTC', 100, 'en' from generate_series(1, ${BULK}) n;
    insert into notifications (id, created_at, updated_at, app_package, delivered, scheduled_time, source_id, source_type, title, ttl_seconds, type, validated, user_id)
      select 10000 + n, '2021-01-01', '2021-01-01', 'pkg', false, ${at(30)}, 's', 'aRMT', 'Bulk ' || n, 0, 't', false, 1000 + n from generate_series(1, ${BULK}) n;
    -- 506 was posted with ?schedule=false: no Quartz job. 507 went out two days ago, its EXECUTED event
    -- never recorded (v2.4.x records the Quartz listeners' events rarely): its job is left without a trigger.
    insert into notifications (id, created_at, updated_at, app_package, delivered, scheduled_time, source_id, source_type, title, ttl_seconds, type, validated, user_id) values
      (506, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', false, ${at(7)}, 's', 'aRMT', 'Not scheduled', 0, 't', false, 300),
      (507, '2021-02-01 10:00:00', '2021-02-01 10:00:00', 'pkg', false, ${at(-2)}, 's', 'aRMT', 'Sent, no event', 0, 't', false, 301);
    insert into notification_state_events (id, state, time, notification_id) values (516, 'ADDED', '2021-02-01 10:00:00', 506), (517, 'ADDED', '2021-02-01 10:00:00', 507);
    insert into qrtz_job_details (sched_name, job_name, job_group, description, job_class_name, is_durable, is_nonconcurrent, is_update_data, requests_recovery)
      select 'AppserverScheduler', 'message-jobdetail-' || u.subject_id || '-' || m.id, 'DEFAULT', 'Send message at scheduled time...',
        'org.radarbase.appserver.service.scheduler.quartz.MessageJob', true, false, false, false
      from (select id, user_id from notifications where id <> 506 union all select id, user_id from data_messages) m join users u on u.id = m.user_id;
    -- The triggers of the messages not sent yet (Quartz deletes a trigger once it has fired).
    insert into qrtz_triggers (sched_name, trigger_name, trigger_group, job_name, job_group, trigger_state, trigger_type, start_time, next_fire_time, misfire_instr)
      select j.sched_name, replace(j.job_name, 'jobdetail', 'trigger'), 'DEFAULT', j.job_name, j.job_group, 'WAITING', 'SIMPLE', 0, 0, 1
      from qrtz_job_details j where substring(j.job_name from '-([0-9]+)$')::bigint in (500, 501, 505, 600)
        or substring(j.job_name from '-([0-9]+)$')::bigint > 10000;
    select setval('hibernate_sequence', 20000);
  `);
}

/** What the import wrote, comparable between runs. */
async function dump(sql: Sql) {
  const q = (text: string) => sql.unsafe(text).then((rows) => JSON.parse(JSON.stringify(rows)) as unknown[]);
  return {
    projects: await q('select * from appserver.projects order by id'),
    users: await q('select * from appserver.users order by id'),
    tasks: await q('select * from appserver.tasks order by id'),
    taskEvents: await q('select * from appserver.task_state_events order by id'),
    messages: await q('select * from appserver.messages order by id'),
    events: await q('select * from appserver.message_state_events order by id'),
    bookkeeping: await q(`select source, source_table, source_key, target_key, content_hash from import.imported_rows order by source_table, source_key`),
  };
}

/** Starts the service on `url` (dev profile, no demo data) and closes it after `fn`. */
async function withApp<T>(url: string, env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', DATABASE_URL: url, ...env }, '0.0.0-test');
  const app = await buildApp(config, { logger: false, demoData: false });
  try {
    await app.ready();
    return await fn();
  } finally {
    await app.close();
  }
}

describe.runIf(process.env.TEST_DATABASE_URL && onPostgres())('npm run import from RADAR-Appserver v2.4.5', { timeout: 60_000 }, () => {
  let source: Awaited<ReturnType<typeof database>>;
  let target: Awaited<ReturnType<typeof database>>;
  const opened: Sql[] = [];

  beforeAll(async () => {
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    source = await database('empty');
    opened.push(source.sql);
    await fillSource(source.sql);
    target = await database('migrated');
    opened.push(target.sql);
    await withApp(target.url, {}, async () => {});
  }, 30_000);

  afterAll(async () => {
    for (const sql of opened) await sql.end({ timeout: 1 });
    if (admin) {
      for (const name of made) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('--dry-run reads and checks everything and writes nothing', async () => {
    const before = await dump(target.sql);
    const report = await importInto(target.url, source.url, { dryRun: true });
    expect(skips(report)).toEqual({});
    expect(report).toMatchObject({ dryRun: true, ok: true, skippedForError: 0 });
    expect(report.tables['appserver.users']).toMatchObject({ read: 3 + BULK, imported: 3 + BULK });
    expect(await dump(target.sql)).toEqual(before);
    expect(await target.sql`select count(*)::int as n from import.runs`).toEqual([{ n: 0 }]);
  });

  it('imports users with their tokens, zones and attributes, tasks, and the unsent messages with their ids: SCHEDULED, or ADDED when never scheduled', async () => {
    const report = await importInto(target.url, source.url);
    expect(skips(report)).toEqual({});
    const counts = Object.fromEntries(Object.entries(report.tables).map(([t, r]) => [t, [r.read, r.imported]]));
    expect(counts).toEqual({
      'appserver.projects': [2, 2],
      'appserver.users': [3 + BULK, 3 + BULK],
      'appserver.tasks': [2, 2],
      'appserver.task_state_events': [1, 1],
      'appserver.notifications': [4 + BULK, 4 + BULK],
      'appserver.notification_state_events': [3, 3],
      'appserver.data_messages': [1, 1],
      'appserver.data_message_state_events': [1, 1],
    });
    expect(await target.sql`select id::int, project_id from appserver.projects order by id`).toEqual([{ id: 100, project_id: 'study-a' }, { id: 101, project_id: 'Stüdy-β' }]);
    expect(await target.sql`select id::int, project_id::int, subject_id, fcm_token, enrolment_date, timezone, language, email, attributes, last_opened, last_delivered
      from appserver.users where id < 1000 order by id`).toEqual([
      { id: 300, project_id: 100, subject_id: 'sub-x', fcm_token: 'fcm:Zoë-🙂-token', enrolment_date: new Date('2021-02-01T00:00:00Z'), timezone: 'Europe/Amsterdam',
        language: 'nl', email: 'zoe@example.org', attributes: { site: 'Zürich', arm: 'B' }, last_opened: new Date('2024-06-06T06:06:06Z'), last_delivered: new Date('2024-05-05T05:05:05Z') },
      // No enrolment date: the user's creation; an offset stays an offset (seconds).
      { id: 301, project_id: 100, subject_id: 'sub-offset', fcm_token: 'fcm-offset', enrolment_date: new Date('2021-02-03T10:00:00Z'), timezone: '7200',
        language: 'en', email: null, attributes: {}, last_opened: null, last_delivered: null },
      // An unknown zone: GMT, as the reference's TimeZone.getTimeZone made it.
      { id: 302, project_id: 101, subject_id: 'sub-x', fcm_token: 'fcm-other', enrolment_date: new Date('2021-02-04T00:00:00Z'), timezone: 'GMT',
        language: 'da', email: null, attributes: {}, last_opened: null, last_delivered: null },
    ]);
    expect(await target.sql`select id::int, name, type, "timestamp", completion_window::int, warning, n_questions, completed, time_completed, status from appserver.tasks order by id`).toEqual([
      { id: 400, name: 'PHQ8', type: 'scheduled', timestamp: new Date('2021-02-05T09:00:00Z'), completion_window: 86400000, warning: 'Wärning', n_questions: 8,
        completed: true, time_completed: new Date('2021-02-05T09:30:00Z'), status: 'COMPLETED' },
      { id: 401, name: '', type: 'scheduled', timestamp: new Date('2099-01-01T09:00:00Z'), completion_window: 0, warning: '', n_questions: 0,
        completed: false, time_completed: null, status: 'UNKNOWN' },
    ]);
    expect(await target.sql`select id::int, task_id::int, state, associated_info from appserver.task_state_events`).toEqual([{ id: 410, task_id: 400, state: 'COMPLETED', associated_info: '{"k":"v"}' }]);
    const messages = await target.sql`select id::int, kind, user_id::int, task_id::int, source_id, title, body, priority, fcm_message_id, data, state, email_enabled, email_title
      from appserver.messages where id < 10000 order by id`;
    expect(messages).toEqual([
      { id: 500, kind: 'notification', user_id: 300, task_id: 400, source_id: 'src-α', title: 'Next week ✓', body: 'Bödy', priority: 'HIGH', fcm_message_id: '-1550939276',
        data: { action: 'QUESTIONNAIRE_TRIGGER', questionnaire: '{"name":"PHQ8"}' }, state: 'SCHEDULED', email_enabled: true, email_title: 'Mail' },
      // Due an hour ago, never sent: sent after the switch. Its task is gone in the source: no task here.
      { id: 501, kind: 'notification', user_id: 300, task_id: null, source_id: '', title: 'Due an hour ago', body: null, priority: null, fcm_message_id: '501',
        data: null, state: 'SCHEDULED', email_enabled: false, email_title: null },
      { id: 505, kind: 'notification', user_id: 301, task_id: null, source_id: 's', title: 'Expired yesterday', body: 'b', priority: null,
        fcm_message_id: 'x', data: null, state: 'SCHEDULED', email_enabled: false, email_title: null },
      // Never put on the reference's schedule (no Quartz job): ADDED, as ?schedule=false leaves a message here.
      { id: 506, kind: 'notification', user_id: 300, task_id: null, source_id: 's', title: 'Not scheduled', body: null, priority: null,
        fcm_message_id: '506', data: null, state: 'ADDED', email_enabled: false, email_title: null },
      { id: 600, kind: 'data', user_id: 301, task_id: null, source_id: 'data-src', title: null, body: null, priority: 'NORMAL', fcm_message_id: '600',
        data: { cmd: 'sync' }, state: 'SCHEDULED', email_enabled: false, email_title: null },
    ]);
    expect(await target.sql`select id::int, message_id::int, state, external from appserver.message_state_events order by id`).toEqual([
      { id: 510, message_id: 500, state: 'ADDED', external: false }, { id: 511, message_id: 501, state: 'ADDED', external: false },
      { id: 516, message_id: 506, state: 'ADDED', external: false }, { id: 611, message_id: 600, state: 'ADDED', external: false },
    ]);
    // The sequences are past the imported ids: new rows do not collide.
    const [next] = await target.sql`select nextval(pg_get_serial_sequence('appserver.messages', 'id'))::int as m,
      nextval(pg_get_serial_sequence('appserver.users', 'id'))::int as u, nextval(pg_get_serial_sequence('appserver.message_state_events', 'id'))::int as e,
      nextval(pg_get_serial_sequence('appserver.tasks', 'id'))::int as t, nextval(pg_get_serial_sequence('appserver.projects', 'id'))::int as p`;
    expect(next!.m).toBeGreaterThan(10000 + BULK);
    expect(next!.u).toBeGreaterThan(1000 + BULK);
    expect(next!.e).toBeGreaterThan(611);
    expect(next!.t).toBeGreaterThan(401);
    expect(next!.p).toBeGreaterThan(101);
  });

  it('a second import changes nothing; a message the reference sent meanwhile is not sent again', async () => {
    const before = await dump(target.sql);
    const again = await importInto(target.url, source.url);
    expect(again.ok).toBe(true);
    for (const t of Object.values(again.tables)) expect(t).toMatchObject({ imported: 0, updated: 0, deleted: 0, unchanged: t.read });
    expect(await dump(target.sql)).toEqual(before);

    const verified = await verifyImport({ target: { kind: 'postgres', url: target.url, poolSize: 1 }, appserver: source.url });
    expect(Object.fromEntries(Object.entries(verified.tables).filter(([, t]) => t.mismatches.length > 0))).toEqual({});
    expect(verified.tables['appserver.users']).toMatchObject({ sourceRows: 3 + BULK, importedRows: 3 + BULK, sampled: 3 + BULK });
    await target.sql`update appserver.users set fcm_token = 'planted' where id = 300`;
    const failed = await verifyImport({ target: { kind: 'postgres', url: target.url, poolSize: 1 }, appserver: source.url });
    expect(failed.ok).toBe(false);
    expect(failed.tables['appserver.users']!.mismatches).toEqual([{ key: '300', reason: 'differs in fcm_token' }]);
    await target.sql`update appserver.users set fcm_token = 'fcm:Zoë-🙂-token' where id = 300`;

    // The reference sends 500 before its writers stop (Quartz fires its trigger and deletes it, an EXECUTED
    // event is rarely recorded) and 506 gets scheduled: the incremental import takes 500 off this
    // service's queue and puts 506 on it.
    const [trigger] = await source.sql`delete from qrtz_triggers where trigger_name = 'message-trigger-sub-x-500' returning *`;
    await source.sql`insert into qrtz_job_details (sched_name, job_name, job_group, job_class_name, is_durable, is_nonconcurrent, is_update_data, requests_recovery)
      values ('AppserverScheduler', 'message-jobdetail-sub-x-506', 'DEFAULT', 'org.radarbase.appserver.service.scheduler.quartz.MessageJob', true, false, false, false)`;
    await source.sql`insert into qrtz_triggers (sched_name, trigger_name, trigger_group, job_name, job_group, trigger_state, trigger_type, start_time)
      values ('AppserverScheduler', 'message-trigger-sub-x-506', 'DEFAULT', 'message-jobdetail-sub-x-506', 'DEFAULT', 'WAITING', 'SIMPLE', 0)`;
    await source.sql`update attributes_map set value = 'Genève' where id = 320`;
    const changed = await importInto(target.url, source.url);
    expect(changed.tables['appserver.notifications']).toMatchObject({ deleted: 1, updated: 1, unchanged: 2 + BULK });
    expect(changed.tables['appserver.users']).toMatchObject({ updated: 1, unchanged: 2 + BULK });
    expect(await target.sql`select id::int, state from appserver.messages where id < 10000 order by id`)
      .toEqual([{ id: 501, state: 'SCHEDULED' }, { id: 505, state: 'SCHEDULED' }, { id: 506, state: 'SCHEDULED' }, { id: 600, state: 'SCHEDULED' }]);
    expect(await target.sql`select attributes from appserver.users where id = 300`).toEqual([{ attributes: { site: 'Genève', arm: 'B' } }]);
    await source.sql`delete from qrtz_triggers where trigger_name = 'message-trigger-sub-x-506'`;
    await source.sql`delete from qrtz_job_details where job_name = 'message-jobdetail-sub-x-506'`;
    await source.sql`insert into qrtz_triggers ${source.sql(trigger!)}`;
    await source.sql`update attributes_map set value = 'Zürich' where id = 320`;
  });

  it('a later import of a source with as many rows as before, one gone and one new, deletes the gone one and adds the new one', async () => {
    // Bring the target up to date with the (restored) source first: every row unchanged after that.
    await importInto(target.url, source.url);
    const steady = await importInto(target.url, source.url);
    expect(steady.tables['appserver.notifications']).toMatchObject({ imported: 0, updated: 0, deleted: 0, unchanged: 4 + BULK });
    // The same number of notifications and events, other keys (and content: a new message has a
    // duplicate key of its own).
    await source.sql`update notifications set id = 19999, title = 'Moved' where id = 10001`;
    await source.sql`update notification_state_events set id = 599 where id = 516`;
    try {
      const moved = await importInto(target.url, source.url);
      expect(skips(moved)).toEqual({});
      expect(moved.tables['appserver.notifications']).toMatchObject({ read: 4 + BULK, imported: 1, deleted: 1, unchanged: 3 + BULK });
      expect(moved.tables['appserver.notification_state_events']).toMatchObject({ read: 3, imported: 1, deleted: 1, unchanged: 2 });
      expect(await target.sql`select id::int from appserver.messages where id in (10001, 19999)`).toEqual([{ id: 19999 }]);
      expect(await target.sql`select id::int, message_id::int from appserver.message_state_events where id in (516, 599)`).toEqual([{ id: 599, message_id: 506 }]);
    } finally {
      await source.sql`update notification_state_events set id = 516 where id = 599`;
      await source.sql`update notifications set id = 10001, title = 'Bulk 1' where id = 19999`;
    }
    const back = await importInto(target.url, source.url);
    expect(back.tables['appserver.notifications']).toMatchObject({ imported: 1, deleted: 1 });
    expect(await target.sql`select id::int from appserver.messages where id in (10001, 19999)`).toEqual([{ id: 10001 }]);
  });

  it('--history brings the sent messages scheduled within the period, as EXECUTED or ERRORED, and the scheduler sends only the unsent due ones, once', async () => {
    const other = await database('migrated');
    opened.push(other.sql);
    const report = await importInto(other.url, source.url, { history: 'P30D' });
    expect(skips(report)).toEqual({});
    expect(await other.sql`select id::int, kind, state from appserver.messages where id < 10000 order by id`).toEqual([
      { id: 500, kind: 'notification', state: 'SCHEDULED' }, { id: 501, kind: 'notification', state: 'SCHEDULED' },
      { id: 502, kind: 'notification', state: 'EXECUTED' }, { id: 504, kind: 'notification', state: 'ERRORED' }, { id: 505, kind: 'notification', state: 'SCHEDULED' },
      { id: 506, kind: 'notification', state: 'ADDED' },
      // Sent with no event recorded: its Quartz job without a trigger says so.
      { id: 507, kind: 'notification', state: 'EXECUTED' },
      { id: 600, kind: 'data', state: 'SCHEDULED' }, { id: 601, kind: 'data', state: 'EXECUTED' },
    ]);
    expect(await other.sql`select id::int, state, external from appserver.message_state_events where message_id in (502, 504, 507, 601) order by id`).toEqual([
      { id: 512, state: 'ADDED', external: false }, { id: 513, state: 'EXECUTED', external: false },
      { id: 515, state: 'ERRORED', external: false }, { id: 517, state: 'ADDED', external: false }, { id: 610, state: 'EXECUTED', external: false },
    ]);

    const verified = await verifyImport({ target: { kind: 'postgres', url: other.url, poolSize: 1 }, appserver: source.url, history: 'P30D' });
    expect(Object.fromEntries(Object.entries(verified.tables).filter(([, t]) => t.mismatches.length > 0))).toEqual({});
    expect(verified.tables['appserver.notifications']).toMatchObject({ sourceRows: 7 + BULK, importedRows: 7 + BULK });

    const stub = await startFcmStub();
    try {
      await withApp(other.url, { SCHEDULER_ENABLED: 'true', SCHEDULER_TICK_MS: '100', FCM_EMULATOR_HOST: stub.host, FCM_PROJECT_ID: 'stub-project' }, async () => {
        await until(async () => {
          // 505 is a day late with a TTL of 60 s: it expires, as any other.
          expect(await other.sql`select id::int, state from appserver.messages where id in (501, 505, 600) order by id`)
            .toEqual([{ id: 501, state: 'EXECUTED' }, { id: 505, state: 'ERRORED' }, { id: 600, state: 'EXECUTED' }]);
        });
        // Never scheduled stays unscheduled; sent stays sent.
        expect(await other.sql`select id::int, state from appserver.messages where id in (506, 507) order by id`)
          .toEqual([{ id: 506, state: 'ADDED' }, { id: 507, state: 'EXECUTED' }]);
        // A few more ticks: nothing else is due, nothing goes twice.
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      const sent = stub.received.map((r) => [r.message.token, (r.message.notification as { title?: string } | undefined)?.title ?? (r.message.data as Record<string, string>).cmd]);
      expect(sent.sort()).toEqual([['fcm-offset', 'sync'], ['fcm:Zoë-🙂-token', 'Due an hour ago']]);
    } finally {
      await stub.close();
    }

    // A later import of a changed source never puts what this service sent back on its queue.
    await source.sql`update notifications set body = 'Changed' where id = 501`;
    try {
      const later = await importInto(other.url, source.url, { history: 'P30D' });
      expect(later.tables['appserver.notifications']).toMatchObject({ updated: 1, skipped: [] });
      expect(await other.sql`select body, state from appserver.messages where id = 501`).toEqual([{ body: 'Changed', state: 'EXECUTED' }]);
    } finally {
      await source.sql`update notifications set body = null where id = 501`;
    }
  });

  it('a source without the Quartz tables (an in-memory job store): every unsent message is SCHEDULED, none can be told apart', async () => {
    const bare = await database('empty');
    const into = await database('migrated');
    opened.push(bare.sql, into.sql);
    await bare.sql.unsafe(`${FIXTURE}
      drop table qrtz_triggers; drop table qrtz_job_details;
      insert into projects (id, created_at, updated_at, project_id) values (100, '2021-01-01', '2021-01-01', 'study-a');
      insert into users (id, created_at, updated_at, enrolment_date, fcm_token, subject_id, timezone, project_id, language) values
        (300, '2021-01-01', '2021-01-01', '2021-01-01', 'token', 'sub-x', 'UTC', 100, 'en');
      insert into notifications (id, created_at, updated_at, app_package, delivered, scheduled_time, source_id, source_type, title, ttl_seconds, type, validated, user_id)
        values (506, '2021-01-01', '2021-01-01', 'pkg', false, ${at(7)}, 's', 'aRMT', 'Not scheduled', 0, 't', false, 300);`);
    const report = await importInto(into.url, bare.url);
    expect(skips(report)).toEqual({});
    expect(await into.sql`select id::int, state from appserver.messages`).toEqual([{ id: 506, state: 'SCHEDULED' }]);
    const verified = await verifyImport({ target: { kind: 'postgres', url: into.url, poolSize: 1 }, appserver: bare.url });
    expect(verified.ok).toBe(true);
  });

  it('refuses a target whose app server holds rows of its own, and a --history that is no ISO-8601 period', async () => {
    const used = await database('migrated');
    opened.push(used.sql);
    await used.sql`insert into appserver.projects (project_id) values ('elsewhere')`;
    await expect(importInto(used.url, source.url)).rejects.toThrow(TargetNotNew);
    await expect(importInto(used.url, source.url)).rejects.toThrow('appserver.projects: 1 rows');
    await expect(importInto(target.url, source.url, { history: '30 days' })).rejects.toThrow('--history: an ISO-8601 period such as P30D, got 30 days');
  });

  /** A reference source holding project 100 with user 300 and then `rows` (SQL), and a new target beside it. */
  async function oneUserSourceAndTarget(rows: string) {
    const source = await database('empty');
    const into = await database('migrated');
    opened.push(source.sql, into.sql);
    await source.sql.unsafe(FIXTURE);
    await source.sql.unsafe(`
      insert into projects (id, created_at, updated_at, project_id) values (100, '2021-01-01', '2021-01-01', 'study-a');
      insert into users (id, created_at, updated_at, enrolment_date, fcm_token, subject_id, timezone, project_id, language)
        values (300, '2021-01-01', '2021-01-01', '2021-01-01', 'fcm-a', 'sub-a', 'UTC', 100, 'en');
      ${rows}`);
    return { source, into };
  }

  it('a row the target refuses is skipped alone, with its reason, and the rest of its batch comes', async () => {
    // The reference has no foreign key on a data message's user: one of an unknown user is refused here.
    const { source: orphan, into } = await oneUserSourceAndTarget(`
      insert into data_messages (id, created_at, updated_at, app_package, delivered, scheduled_time, source_id, source_type, ttl_seconds, validated, user_id)
        select 700 + n, '2021-01-01', '2021-01-01', 'pkg', false, ${at(30)}, 'data-' || n, 'aRMT', 0, false, case when n = 2 then 999 else 300 end
        from generate_series(1, 3) n;
      insert into data_message_state_events (id, state, time, data_message_id) select 800 + n, 'ADDED', '2021-01-01', 700 + n from generate_series(1, 3) n;
    `);
    const report = await importInto(into.url, orphan.url);
    expect(skips(report)).toEqual({
      'appserver.data_messages': [{ key: '702', error: true, reason: expect.stringMatching(/^SQLSTATE 23503: constraint messages_user_id_users_id_fk: /) }],
      // Its state event then has no message here (a table written without matching first: the batch goes the long way).
      'appserver.data_message_state_events': [{ key: '802', error: true, reason: expect.stringMatching(/^SQLSTATE 23503: constraint message_state_events_message_id_messages_id_fk: /) }],
    });
    expect(report).toMatchObject({ ok: false, skippedForError: 2 });
    expect(report.tables['appserver.data_messages']).toMatchObject({ read: 3, imported: 2 });
    expect(report.tables['appserver.data_message_state_events']).toMatchObject({ read: 3, imported: 2 });
    expect(await into.sql`select id::int from appserver.message_state_events order by id`).toEqual([{ id: 801 }, { id: 803 }]);
    expect(await into.sql`select id::int from appserver.messages order by id`).toEqual([{ id: 701 }, { id: 703 }]);
    expect(await into.sql`select source_table, source_key from import.imported_rows where source_table like 'data_message%' order by 1, 2`).toEqual([
      { source_table: 'data_message_state_events', source_key: '801' }, { source_table: 'data_message_state_events', source_key: '803' },
      { source_table: 'data_messages', source_key: '701' }, { source_table: 'data_messages', source_key: '703' },
    ]);
  });

  it('batches written at once: of two messages with the same duplicate key, the first is imported and the second is a conflict', async () => {
    // 702 repeats 701 (the reference's duplicate rule's fields), 704 703, …; one row a batch, each
    // batch written while the next is read: 702 must wait for 701's batch, however they are scheduled.
    const { source: twice, into } = await oneUserSourceAndTarget(`
      insert into notifications (id, created_at, updated_at, app_package, delivered, scheduled_time, source_id, source_type, title, ttl_seconds, type, validated, user_id)
        select 700 + n, '2021-01-01', '2021-01-01', 'pkg', false, ${at(30)}, 's', 'aRMT', 'N ' || ((n + 1) / 2), 0, 't', false, 300
        from generate_series(1, 40) n;
    `);
    const report = await importInto(into.url, twice.url, { batchSize: 1 });
    const firsts = Array.from({ length: 20 }, (_, i) => 701 + 2 * i);
    expect(skips(report)).toEqual({
      'appserver.notifications': firsts.map((id) => ({
        key: String(id + 1), error: true, reason: `conflict: row ${id} has the same key with different content here (--overwrite replaces it)`,
      })),
    });
    expect(await into.sql`select id::int from appserver.messages order by id`).toEqual(firsts.map((id) => ({ id })));
  });

  it('npm run import killed with SIGKILL half-way and run again equals one uninterrupted run', async () => {
    const killed = await database('migrated');
    const clean = await database('migrated');
    opened.push(killed.sql, clean.sql);
    const cli = (url: string, extra: string[] = []) => spawn(process.execPath, ['--import', 'tsx', 'src/import/cli.ts', '--appserver', source.url, ...extra], {
      cwd: root, env: { ...process.env, ENV_FILE: '', PROFILE: 'dev', DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = (child: ReturnType<typeof spawn>) => new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d) => { out += String(d); });
      child.stderr!.on('data', (d) => { out += String(d); });
      child.on('exit', (code, signal) => resolve({ code, signal, out }));
    });

    const first = cli(killed.url, ['--batch-size', '1']);
    const firstExit = exit(first);
    await until(async () => {
      const [row] = await killed.sql`select count(*)::int as n from import.imported_rows where source_table = 'notifications'`;
      expect(row!.n).toBeGreaterThan(20);
    });
    first.kill('SIGKILL');
    expect((await firstExit).signal).toBe('SIGKILL');
    const [partial] = await killed.sql`select count(*)::int as n from import.imported_rows where source_table = 'notifications'`;
    expect(partial!.n).toBeLessThan(4 + BULK);

    const [resumed, uninterrupted] = await Promise.all([exit(cli(killed.url)), exit(cli(clean.url))]);
    expect([resumed.code, resumed.out]).toEqual([0, expect.stringContaining(`appserver.notifications: read ${4 + BULK}, imported `)]);
    expect([uninterrupted.code, uninterrupted.out]).toEqual([0, expect.stringContaining('done; 0 rows skipped for an error')]);
    expect(await dump(killed.sql)).toEqual(await dump(clean.sql));
  });
});
