// A participant's whole message history: `GET /projects/radar/users/sub-1/messaging/notifications`
// and `GET …/messaging/data` for a user with 1,000 notifications and 1,000 data messages (seeded by
// SQL, every field of the DTO set on some rows and null on others), prod profile on PostgreSQL,
// pool 10 (the default), app-server security on: the requests present one client-credentials
// token of the app server's own client (`radar_appserver_client`, SUBJECT.READ).
// The bound, in the same run: a bare Fastify route (bench/notifications-list-bound-server.mjs)
// that looks up the user, runs the same SELECT with postgres.js on the same database and pool size,
// maps the rows to the DTO and JSON.stringifies them. The run checks first that both answers are
// byte for byte the same. Both servers run throughout; the load alternates between them in rounds
// (each round starts with the other); it prints every round (req/s, p50/p99, the cores used, and
// the CPU milliseconds per request of the serving process and of its PostgreSQL backends, found by
// application_name) and the medians: of req/s and ours / bound, and of the bound's CPU per request
// over ours, which on a loaded shared host says more than req/s does.
// Any non-2xx answer or request error fails the run (exit 1), and so does a bound whose answer differs.
//   npm run build && node bench/notifications-list.mjs [seconds=5] [connections=10] [messages=1000] [rounds=ROUNDS or 3]
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, prodEnv, roundsArg, startScript, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 10);
const count = Number(process.argv[4] ?? 1000);
const rounds = roundsArg(5);
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE, given to both
const BASE = '/projects/radar/users/sub-1/messaging';
const paths = { notifications: `${BASE}/notifications`, data: `${BASE}/data` };

/** One user with `n` notifications and `n` data messages, fields set on some rows and null on others. */
async function seed(url, n) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`insert into appserver.projects (project_id) values ('radar')`;
    await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone, language)
      select id, 'sub-1', 'tok-1', now() - interval '30 days', 'Europe/London', 'en' from appserver.projects`;
    // Scheduled days ahead, so the scheduler leaves them alone; every third row has all optional fields.
    await sql`insert into appserver.messages (kind, user_id, source_id, scheduled_time, ttl_seconds, fcm_message_id, fcm_topic, fcm_condition,
        delivered, app_package, source_type, priority, mutable_content, data, title, body, type, sound, badge, subtitle, icon, color,
        body_loc_key, body_loc_args, title_loc_key, title_loc_args, android_channel_id, tag, click_action, email_enabled, email_title, email_body,
        state, dedupe_key)
      select 'notification', u.id, 'aRMT-' || (g % 7), now() + interval '2 days' + g * interval '17 minutes 3.123 seconds', g % 3 * 300, 'fcm-' || g,
        case when g % 3 = 0 then 'topic' end, case when g % 3 = 0 then 'cond' end, g % 5 = 0, 'org.phidatalab.radar_armt', 'aRMT',
        case when g % 2 = 0 then 'HIGH' end, g % 4 = 0, case when g % 3 = 0 then jsonb_build_object('questionnaire', 'PHQ8', 'n', g::text) end,
        'Questionnaire Time ' || g, case when g % 3 <> 1 then 'Tap to start the PHQ8 "questionnaire" ' || g end, 'PHQ8',
        case when g % 3 = 0 then 'default' end, case when g % 3 = 0 then '1' end, case when g % 3 = 0 then 'sub' end,
        case when g % 3 = 0 then 'ic' end, case when g % 3 = 0 then '#ff0000' end, case when g % 3 = 0 then 'k' end, case when g % 3 = 0 then 'a' end,
        case when g % 3 = 0 then 'tk' end, case when g % 3 = 0 then 'ta' end, case when g % 3 = 0 then 'chan' end, case when g % 3 = 0 then 'tag' end,
        case when g % 3 = 0 then 'click' end, g % 3 = 0, case when g % 3 = 0 then 'mail title' end, case when g % 3 = 0 then 'mail body' end,
        'SCHEDULED', 'n-' || g
      from appserver.users u, generate_series(1, ${n}) g`;
    await sql`insert into appserver.messages (kind, user_id, source_id, scheduled_time, ttl_seconds, fcm_message_id, delivered, app_package,
        source_type, priority, mutable_content, data, state, dedupe_key)
      select 'data', u.id, 'aRMT', now() + interval '2 days' + g * interval '11 minutes 0.5 seconds', 0, 'fcm-d-' || g, false, 'org.phidatalab.radar_armt',
        'aRMT', case when g % 2 = 0 then 'NORMAL' end, false, case when g % 2 = 0 then jsonb_build_object('action', 'refresh', 'g', g::text) end,
        'SCHEDULED', 'd-' || g
      from appserver.users u, generate_series(1, ${n}) g`;
    await sql`analyze`;
  } finally {
    await sql.end();
  }
}

const db = await freshDatabase('radar_bench_notifications_list');
const stops = [];
let summary;
try {
  const service = await startService({ ...prodEnv(db.url, POOL_SIZE, 'bench-admin'), QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0' });
  stops.push(() => service.stop());
  await seed(db.url, count);
  const granted = await expect2xx('client credentials grant', fetch(`${service.base}/managementportal/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('radar_appserver_client:secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }));
  const authorization = `Bearer ${(await granted.json()).access_token}`;

  const boundServer = await startScript('notifications-list-bound-server.mjs', '', db.url, String(POOL_SIZE));
  stops.push(() => boundServer.stop());
  const servers = { ours: { base: service.base, pid: service.pid }, bound: { base: boundServer.url, pid: boundServer.pid } };

  // Both give the same bytes for both lists.
  const probes = {};
  for (const [list, path] of Object.entries(paths)) {
    const bodies = {};
    for (const [name, server] of Object.entries(servers)) {
      bodies[name] = await (await expect2xx(`${name} ${list}`, fetch(`${server.base}${path}`, { headers: { authorization } }))).text();
    }
    if (bodies.ours !== bodies.bound) {
      const at = [...bodies.ours].findIndex((c, i) => c !== bodies.bound[i]);
      throw new BenchFailure(`${list}: the bound's answer differs from ours at byte ${at}: ours …${bodies.ours.slice(Math.max(0, at - 80), at + 80)}…, the bound …${bodies.bound.slice(Math.max(0, at - 80), at + 80)}…`);
    }
    const items = Object.values(JSON.parse(bodies.ours))[0].length;
    if (items !== count) throw new BenchFailure(`${list}: ${items} items, expected ${count}`);
    probes[list] = { items, bodyBytes: Buffer.byteLength(bodies.ours) };
  }

  // The PostgreSQL backends of each server's pool (by application_name), so that the CPU a
  // request costs the database counts too: the service's SELECT shapes JSON, the bound's does not.
  const monitor = postgres(db.url, { max: 1, onnotice: () => {} });
  stops.push(() => monitor.end());
  const applicationName = { ours: 'radar-platform', bound: 'notifications-list-bound' };
  const cpuSeconds = (pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch { return 0; }
  };
  const backendsCpu = async (name) => {
    const rows = await monitor`select pid from pg_stat_activity where datname = current_database() and application_name = ${applicationName[name]}`;
    return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)]));
  };
  const headers = { authorization };
  // As lib.mjs measureLoad, but the warm-up is a number of requests (two a connection), not 2 s:
  // on a loaded host a 2 s warm-up of these 0.7 MB answers could end before any answer came.
  const load = async (name, list) => {
    const label = `${name} ${list}`;
    const url = `${servers[name].base}${paths[list]}`;
    assertAll2xx(`${label} warm-up`, await autocannon({ url, connections, amount: connections * 2, headers }));
    const cpu = cpuMeter(servers[name].pid);
    const backendsBefore = await backendsCpu(name);
    const r = await autocannon({ url, connections, duration: seconds, headers });
    const coresUsed = cpu();
    const backendsAfter = await backendsCpu(name);
    assertAll2xx(label, r);
    const requestsPerSecond = Number((r.requests.total / r.duration).toFixed(1));
    let backendSeconds = 0;
    for (const [pid, after] of backendsAfter) backendSeconds += after - (backendsBefore.get(pid) ?? 0);
    const cpuMsPerRequest = Number(((coresUsed.service * 1000) / requestsPerSecond).toFixed(2));
    const pgCpuMsPerRequest = Number(((backendSeconds * 1000) / r.requests.total).toFixed(2));
    return {
      requestsPerSecond, latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed,
      // CPU per request of the serving process, of its PostgreSQL backends, and both: less
      // sensitive to other load on a shared host than req/s.
      cpuMsPerRequest, pgCpuMsPerRequest, totalCpuMsPerRequest: Number((cpuMsPerRequest + pgCpuMsPerRequest).toFixed(2)),
    };
  };
  const both = async (name) => ({ notifications: await load(name, 'notifications'), data: await load(name, 'data') });
  const results = await alternatingRounds(rounds, { ours: () => both('ours'), bound: () => both('bound') });
  const ratio = (a, b) => Number((a / b).toFixed(2));
  for (const r of results) {
    r.oursVsBound = {
      notifications: ratio(r.ours.notifications.requestsPerSecond, r.bound.notifications.requestsPerSecond),
      data: ratio(r.ours.data.requestsPerSecond, r.bound.data.requestsPerSecond),
    };
  }
  const medianOf = (f, digits = 1) => Number(median(results.map(f)).toFixed(digits));
  const perList = (name, list) => ({
    requestsPerSecond: medianOf((r) => r[name][list].requestsPerSecond),
    cpuMsPerRequest: medianOf((r) => r[name][list].cpuMsPerRequest, 2),
    pgCpuMsPerRequest: medianOf((r) => r[name][list].pgCpuMsPerRequest, 2),
    totalCpuMsPerRequest: medianOf((r) => r[name][list].totalCpuMsPerRequest, 2),
  });
  const per = (name) => ({ notifications: perList(name, 'notifications'), data: perList(name, 'data') });
  summary = {
    bench: 'notifications-list', date: new Date().toISOString().slice(0, 10), machine: machine(), messages: count, poolSize: POOL_SIZE,
    connections, seconds, lists: probes, rounds: results,
    median: {
      ours: per('ours'), bound: per('bound'),
      oursVsBound: { notifications: medianOf((r) => r.oursVsBound.notifications, 2), data: medianOf((r) => r.oursVsBound.data, 2) },
      // The bound's CPU per request over ours (the serving process; it and its PostgreSQL
      // backends): the ratio the work itself allows, whatever else runs on the host.
      boundCpuVsOurs: {
        notifications: medianOf((r) => r.bound.notifications.cpuMsPerRequest / r.ours.notifications.cpuMsPerRequest, 2),
        data: medianOf((r) => r.bound.data.cpuMsPerRequest / r.ours.data.cpuMsPerRequest, 2),
      },
      boundTotalCpuVsOurs: {
        notifications: medianOf((r) => r.bound.notifications.totalCpuMsPerRequest / r.ours.notifications.totalCpuMsPerRequest, 2),
        data: medianOf((r) => r.bound.data.totalCpuMsPerRequest / r.ours.data.totalCpuMsPerRequest, 2),
      },
    },
    target: { oursVsBound: 0.7 },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
