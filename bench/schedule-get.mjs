// Windowed `GET /projects/{p}/users/{s}/questionnaire/schedule?startTime&endTime` (as aRMT asks
// for the tasks around now) against `GET /projects/{p}/users/{s}` in the same run, prod profile on
// PostgreSQL: `users` users (default 1,000) with 14 days of a 3-assessment daily schedule each
// (42 tasks, seeded by SQL), each request for the next user in turn. Alternating rounds (default
// 3); medians of req/s and of schedule / user. Target: the schedule GET at ≥ 70 % of the user GET.
// Any non-2xx answer or request error fails the run; so does a schedule answer without tasks.
// Prod's app-server security is on: both routes present one client-credentials token of the app
// server's own client (`radar_appserver_client`, scope SUBJECT.READ) from the dev clients file.
//   npm run build && node bench/schedule-get.mjs [seconds=10] [connections=50] [users=1000] [rounds=ROUNDS or 3]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import { alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startService } from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const users = Number(process.argv[4] ?? 1000);
const rounds = roundsArg(5);
const DAY = 86_400_000;

const db = await freshDatabase('radar_bench_schedule_get');
const stops = [];
let summary;
try {
  const service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0', SCHEDULER_ENABLED: 'false',
    MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url)),
  });
  stops.push(() => service.stop());
  const granted = await expect2xx('client credentials grant', fetch(`${service.base}/managementportal/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('radar_appserver_client:secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }));
  const headers = { authorization: `Bearer ${(await granted.json()).access_token}` };

  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  await sql`insert into appserver.projects (project_id) values ('radar')`;
  await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone, language)
    select p.id, 'sub-' || g, 'tok-' || g, now() - interval '30 days', 'Europe/London', 'en' from generate_series(1, ${users}) g, appserver.projects p`;
  // Tasks at 09:00, 12:00 and 18:00 UTC of the 14 days around now, one-hour windows.
  await sql`insert into appserver.tasks (user_id, name, type, timestamp, completion_window, estimated_completion_time, priority, n_questions)
    select u.id, a.name, 'scheduled', date_trunc('day', now()) + (d || ' days')::interval + (a.hour || ' hours')::interval, 3600000, 5, a.priority, 8
    from appserver.users u, generate_series(-7, 6) d, (values ('PHQ8', 9, 0), ('ESM', 12, 1), ('RSES', 18, 2)) a(name, hour, priority)`;
  await sql`analyze`;
  await sql.end();

  const now = Date.now();
  const window = `startTime=${new Date(now - DAY).toISOString()}&endTime=${new Date(now + DAY).toISOString()}`;
  const paths = {
    schedule: (i) => `/projects/radar/users/sub-${i}/questionnaire/schedule?${window}`,
    user: (i) => `/projects/radar/users/sub-${i}`,
  };
  const probe = await (await expect2xx('schedule probe', fetch(`${service.base}${paths.schedule(1)}`, { headers }))).json();
  if (!Array.isArray(probe) || probe.length < 5) throw new BenchFailure(`the windowed schedule has ${probe.length} tasks, expected 6 or 7`);

  async function load(label) {
    let next = 0;
    const request = { setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...headers }, path: paths[label]((next++ % users) + 1) }) };
    const url = service.base;
    assertAll2xx(`${label} warm-up`, await autocannon({ url, connections, duration: 2, requests: [request] }));
    const cpu = cpuMeter(service.pid);
    const r = await autocannon({ url, connections, duration: seconds, requests: [request] });
    const coresUsed = cpu();
    assertAll2xx(label, r);
    return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
  }
  const results = await alternatingRounds(rounds, { schedule: () => load('schedule'), user: () => load('user') });
  for (const r of results) r.scheduleVsUser = Number((r.schedule.requestsPerSecond / r.user.requestsPerSecond).toFixed(2));
  summary = {
    bench: 'schedule-get', date: new Date().toISOString().slice(0, 10), machine: machine(), users, tasksPerUser: 42, tasksInWindow: probe.length,
    connections, seconds, rounds: results,
    median: {
      schedule: median(results.map((r) => r.schedule.requestsPerSecond)),
      user: median(results.map((r) => r.user.requestsPerSecond)),
      scheduleVsUser: median(results.map((r) => r.scheduleVsUser)),
    },
    target: { scheduleVsUser: 0.7 },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
