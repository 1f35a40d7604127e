// Throughput of the switch-over importer (issue 32, "Performance"): `npm run import` (dist/import/cli.js,
// its own process, prod settings) from a ManagementPortal v2.1.13 and a RADAR-Appserver v2.4.5
// database into a new one. Target: ≥ 20,000 rows/s overall, the importer's peak RSS ≤ 300 MB.
//
// The two sources are built from the references' DDL (test/fixtures/import/*.sql) and filled on the
// server with `insert … select from generate_series`:
//  - ManagementPortal: `subjects` participants of one project, each with its user (and its
//    participant role), one source, 10 subject attributes, and the Envers rows the reference writes
//    for them (one revision each: radar_user_aud, subject_aud, subject_metadata_aud, role_users_aud,
//    radar_source_aud; leave them out with `no-audit`);
//  - Appserver: one app user per subject, `notifications` unsent notifications (in 2030) spread over
//    them, each with two state events (ADDED, SCHEDULED) and its Quartz job and trigger (the JDBC job
//    store, as in production).
// Then a new target database, the import (timed; the child's peak RSS is its VmHWM, sampled from
// /proc every 100 ms), rows/s per table from its report, and a second, unchanged run (every row
// "unchanged"). The scratch databases are dropped at the end (BENCH_KEEP=1 keeps them).
//   node bench/import.mjs [subjects=100000] [notifications=1000000] [audit|no-audit]
//   node bench/import.mjs 10000 100000        # a quick run
// BENCH_NODE_ARGS passes flags to the importer's node (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof),
// BENCH_IMPORT_ARGS arguments to the importer (e.g. --batch-size 2000), BENCH_IMPORT_CLI another
// build of it (default dist/import/cli.js).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { BenchFailure, exitOnBenchFailure, freshDatabase, machine, prodEnv } from './lib.mjs';

exitOnBenchFailure();
const subjects = Number(process.argv[2] ?? 100_000);
const notifications = Number(process.argv[3] ?? 1_000_000);
const audit = (process.argv[4] ?? 'audit') !== 'no-audit';
for (const [name, n] of [['subjects', subjects], ['notifications', notifications]]) {
  if (!Number.isInteger(n) || n < 1) throw new BenchFailure(`${name} must be a positive integer, not ${n}`);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name) => readFileSync(new URL(`../test/fixtures/import/${name}`, import.meta.url), 'utf8');
const prefix = `bench_import_${process.pid}`;
const secondsSince = (t) => (performance.now() - t) / 1000;

async function fillManagementPortal(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(fixture('managementportal-2.1.13.sql'));
    await sql.unsafe(`
      insert into project (id, project_name, description, jhi_organization, location, project_status, organization_id)
        values (1, 'bench', 'Benchmark project', 'main', 'Here', 'ONGOING', 1);
      insert into source_type (id, producer, model, catalog_version, source_type_scope, name, dynamic_registration)
        values (1, 'RADAR', 'aRMT', '1.0.0', 'ACTIVE', 'RADAR_aRMT_1.0.0', false);
      insert into project_source_type (source_types_id, projects_id) values (1, 1);
      insert into radar_role (id, project_id, authority_name, organization_id) values (1, 1, 'ROLE_PARTICIPANT', null);
      insert into radar_user (id, login, password_hash, first_name, last_name, email, activated, lang_key)
        select 1000 + n, 'p' || lpad(n::text, 9, '0'), '$2a$10$' || rpad(md5(n::text), 53, 'x'), null, null,
          'p' || n || '@example.org', true, 'en' from generate_series(1, ${subjects}) n;
      insert into role_users (users_id, roles_id) select 1000 + n, 1 from generate_series(1, ${subjects}) n;
      insert into subject (id, external_link, external_id, removed, user_id, group_id, date_of_birth, person_name, enrollment_date)
        select 1000 + n, null, 'ext-' || n, false, 1000 + n, null, date '1980-01-01' + (n % 10000), 'Person ' || n,
          timestamp '2024-01-01' + n * interval '1 minute' from generate_series(1, ${subjects}) n;
      insert into subject_metadata (id, attribute_key, attribute_value)
        select 1000 + n, 'attribute-' || k, 'value ' || n || '/' || k from generate_series(1, ${subjects}) n, generate_series(1, 10) k;
      insert into radar_source (id, source_id, source_name, expected_source_name, assigned, source_type_id, project_id, subject_id, deleted)
        select 1000 + n, md5('source' || n)::uuid, 'source-' || n, null, true, 1, 1, 1000 + n, false from generate_series(1, ${subjects}) n;
    `);
    if (audit) {
      // One revision per enrolment (the reference writes one per transaction), as Envers left them.
      await sql.unsafe(`
        insert into _revisions_info (id, auditor, "timestamp")
          select 1000 + n, 'admin', timestamp '2024-01-01' + n * interval '1 minute' from generate_series(1, ${subjects}) n;
        insert into radar_user_aud (id, rev, revtype, activated, email, lang_key, login, password_hash)
          select id, id, 0, activated, email, lang_key, login, password_hash from radar_user;
        insert into role_users_aud (rev, users_id, roles_id, revtype) select users_id, users_id, roles_id, 0 from role_users;
        insert into subject_aud (id, rev, revtype, external_id, removed, user_id, date_of_birth, person_name, enrollment_date)
          select id, id, 0, external_id, removed, user_id, date_of_birth, person_name, enrollment_date from subject;
        insert into subject_metadata_aud (rev, id, attribute_value, attribute_key, revtype)
          select id, id, attribute_value, attribute_key, 0 from subject_metadata;
        insert into radar_source_aud (id, rev, revtype, assigned, source_id, source_name, project_id, source_type_id, subject_id)
          select id, id, 0, assigned, source_id, source_name, project_id, source_type_id, subject_id from radar_source;
      `);
    }
    await sql.unsafe('analyze');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function fillAppserver(url) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(fixture('appserver-2.4.5.sql'));
    await sql.unsafe(`
      insert into projects (id, created_at, updated_at, project_id) values (1, '2024-01-01', '2024-01-01', 'bench');
      insert into users (id, created_at, updated_at, enrolment_date, fcm_token, subject_id, timezone, project_id, language)
        select 1000 + n, '2024-01-01', '2024-01-01', '2024-01-01', 'fcm-token-' || md5(n::text), 'p' || lpad(n::text, 9, '0'),
          'Europe/London', 1, 'en' from generate_series(1, ${subjects}) n;
      insert into notifications (id, created_at, updated_at, app_package, body, delivered, scheduled_time, source_id, source_type, title,
          ttl_seconds, type, validated, user_id)
        select 10000000 + n, '2024-01-01', '2024-01-01', 'org.phidatalab.radar_armt', 'Please complete the questionnaire', false,
          timestamp '2030-01-01' + n * interval '1 second', 'questionnaire-' || (n % 7), 'aRMT', 'Questionnaire time', 3600, 'PHQ8', false,
          1000 + 1 + (n % ${subjects}) from generate_series(1, ${notifications}) n;
      insert into notification_state_events (id, state, time, notification_id)
        select 20000000 + 2 * n + k, case k when 0 then 'ADDED' else 'SCHEDULED' end, '2024-01-01', 10000000 + n
        from generate_series(1, ${notifications}) n, generate_series(0, 1) k;
      insert into qrtz_job_details (sched_name, job_name, job_group, description, job_class_name, is_durable, is_nonconcurrent, is_update_data, requests_recovery)
        select 'AppserverScheduler', 'message-jobdetail-p' || lpad((1 + (n % ${subjects}))::text, 9, '0') || '-' || (10000000 + n), 'DEFAULT',
          'Send message at scheduled time...', 'org.radarbase.appserver.service.scheduler.quartz.MessageJob', true, false, false, false
        from generate_series(1, ${notifications}) n;
      insert into qrtz_triggers (sched_name, trigger_name, trigger_group, job_name, job_group, trigger_state, trigger_type, start_time, next_fire_time, misfire_instr)
        select sched_name, replace(job_name, 'jobdetail', 'trigger'), 'DEFAULT', job_name, job_group, 'WAITING', 'SIMPLE', 0, 0, 1 from qrtz_job_details;
      select setval('hibernate_sequence', 30000000);
      analyze;
    `);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Runs the importer as its own process; resolves with its exit, wall time, peak RSS (MB) and report. */
async function runImporter(target, mp, app, reportFile) {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, process.env.BENCH_IMPORT_CLI ?? 'dist/import/cli.js', '--managementportal', mp, '--appserver', app, '--report', reportFile,
    ...(process.env.BENCH_IMPORT_ARGS ?? '').split(' ').filter(Boolean)], {
    cwd: root,
    env: {
      ...process.env, ENV_FILE: '', LOG_LEVEL: 'warn', ...prodEnv(target, 2, 'bench-admin-password'),
      MANAGEMENTPORTAL_OAUTH_KEY_STORE: 'test/fixtures/keystores/keytool-ec.p12', MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: 'radarbase',
      MANAGEMENTPORTAL_MAIL_FROM: 'bench@localhost',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  let peakKb = 0;
  const sample = () => {
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      if (kb > peakKb) peakKb = kb;
    } catch { /* gone */ }
  };
  const timer = setInterval(sample, 100);
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? signal)));
  clearInterval(timer);
  const seconds = secondsSince(started);
  if (code !== 0) throw new BenchFailure(`the importer exited with ${code}:\n${out}`);
  return { seconds, peakMb: peakKb / 1024, report: JSON.parse(readFileSync(reportFile, 'utf8')), out };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
const mp = await freshDatabase(`${prefix}_mp`);
const app = await freshDatabase(`${prefix}_app`);
const target = await freshDatabase(`${prefix}_target`);
try {
  console.log(`machine: ${machine()}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  let t = performance.now();
  await Promise.all([fillManagementPortal(mp.url), fillAppserver(app.url)]);
  console.log(`sources filled in ${secondsSince(t).toFixed(1)} s: ${subjects} subjects${audit ? ' (with their Envers rows)' : ''}, ${notifications} notifications`);

  const first = await runImporter(target.url, mp.url, app.url, join(dir, 'first.json'));
  const loadFirst = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  let rows = 0;
  console.log('\ntable                                        rows written   seconds     rows/s');
  for (const [name, r] of Object.entries(first.report.tables)) {
    if (r.skipped.length > 0) throw new BenchFailure(`${name}: ${r.skipped.length} rows skipped, e.g. ${JSON.stringify(r.skipped[0])}`);
    const written = r.imported + r.updated;
    rows += written;
    console.log(`${name.padEnd(44)} ${String(written).padStart(12)} ${r.seconds.toFixed(1).padStart(9)} ${String(r.seconds > 0 ? Math.round(written / r.seconds) : 0).padStart(10)}`);
  }
  const overall = Math.round(rows / first.seconds);
  console.log(`\nfirst import: ${rows} rows in ${first.seconds.toFixed(1)} s (process, start to exit) = ${overall} rows/s; peak RSS ${first.peakMb.toFixed(0)} MB; load ${loadFirst}`);

  const second = await runImporter(target.url, mp.url, app.url, join(dir, 'second.json'));
  const loadSecond = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (const [name, r] of Object.entries(second.report.tables)) {
    if (r.imported + r.updated + r.deleted + r.skipped.length > 0 || r.unchanged !== r.read) {
      throw new BenchFailure(`second run: ${name} changed (${JSON.stringify({ ...r, skipped: r.skipped.length })})`);
    }
  }
  console.log(`second (unchanged) import: ${second.seconds.toFixed(1)} s, every row unchanged; peak RSS ${second.peakMb.toFixed(0)} MB; load ${loadSecond}`);
  console.log(`\n| import ${subjects} subjects + ${notifications} notifications | ${rows} rows in ${first.seconds.toFixed(0)} s = ${overall} rows/s | peak RSS ${first.peakMb.toFixed(0)} MB | second run ${second.seconds.toFixed(0)} s | load ${loadFirst} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (process.env.BENCH_KEEP === '1') {
    console.log(`kept: ${mp.url} ${app.url} ${target.url}`);
    process.exit(0);
  } else {
    await target.drop();
    await app.drop();
    await mp.drop();
  }
}
