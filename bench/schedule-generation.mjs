// Questionnaire schedule generation for many users on PostgreSQL (issue 20's performance items):
//  1. the first generation for `users` users (default 10,000) of a 3-assessment daily protocol
//     (the interval run that finds them all new), target ≤ 60 s;
//  2. the next interval run with nothing changed (no repeat entered the window, inputs
//     unchanged), target ≤ 5 s and no writes: the run fails unless
//     the schedule tables (row counts, latest updated_at, schedule inputs) are exactly as before.
// Users are seeded by SQL. The generation runs in this process through the built service's own
// modules (dist/appserver/schedules/service.js on dist/platform/database.js's postgres.js pool,
// pool size DATABASE_POOL_SIZE, default 10) with a fixed protocol source: until the GitHub-backed
// protocol source is merged, `dist/main.js` has no protocols to generate from. Tasks and their
// notifications are checked after the first run (count per user).
//   npm run build && node bench/schedule-generation.mjs [users=10000] [concurrency=8]
import { createHash } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import { BenchFailure, exitOnBenchFailure, freshDatabase, machine } from './lib.mjs';

exitOnBenchFailure();
const users = Number(process.argv[2] ?? 10_000);
const concurrency = Number(process.argv[3] ?? 8);
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);
const HOUR = 3_600_000;

const { openDatabase } = await import('../dist/platform/database.js');
const { EventBus } = await import('../dist/platform/events.js');
const { createScheduleService } = await import('../dist/appserver/schedules/service.js');

/** A daily assessment at `hour` local time, one-hour window, one reminder after 30 minutes. */
const assessment = (name, hour, order) => ({
  name, type: 'scheduled', estimatedCompletionTime: 5, order, nQuestions: 8,
  protocol: {
    repeatProtocol: { unit: 'day', amount: 1 },
    repeatQuestionnaire: { unit: 'hour', unitsFromZero: [hour] },
    reminders: { unit: 'min', amount: 30, repeat: 1 },
    completionWindow: { unit: 'hour', amount: 1 },
    notification: { mode: 'standard', title: { en: `${name} time` }, text: { en: `Please fill in ${name}` } },
  },
});
const protocol = { version: '1.0.0', name: 'bench', protocols: [assessment('PHQ8', 9, 0), assessment('ESM', 12, 1), assessment('RSES', 18, 2)] };
const json = JSON.stringify(protocol);
const version = createHash('sha256').update(json).digest('hex').slice(0, 16);
const protocols = { forUser: async () => ({ protocol: JSON.parse(json), version }), onChange: () => () => {} };

const db = await freshDatabase('radar_bench_schedules');
const log = pino({ level: 'warn' });
let handle;
try {
  handle = await openDatabase({ kind: 'postgres', url: db.url, poolSize: POOL_SIZE }, { log, bootWaitSeconds: 10 });
  await handle.migrate();
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  await sql`insert into appserver.projects (project_id) values ('radar')`;
  await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone, language)
    select p.id, 'sub-' || g, 'tok-' || g, now() - interval '30 days', 'Europe/London', 'en'
    from generate_series(1, ${users}) g, appserver.projects p`;
  await sql`analyze`;

  // Runs at 12:00Z and 12:01Z (no London midnight enters the window in between): the second changes nothing.
  let now = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR + 12 * HOUR);
  const schedules = createScheduleService({ db: handle.db, events: new EventBus(log), protocols, log, concurrency, clock: () => now });
  const cpu = cpuMeter(process.pid); // generation runs in this process: `service` and `driver` are the same

  let started = performance.now();
  const first = await schedules.runInterval('bench', HOUR);
  const firstMs = Math.round(performance.now() - started);
  const firstCpu = cpu();
  const [counts] = await sql`select (select count(*)::int from appserver.tasks) as tasks, (select count(*)::int from appserver.messages) as notifications,
    (select count(*)::int from appserver.message_state_events) as events`;
  if (first?.failed !== 0 || first.generated !== users || counts.tasks !== users * 42) {
    throw new BenchFailure(`first run: ${JSON.stringify(first)}, ${counts.tasks} tasks (want ${users * 42})`);
  }

  const snapshot = async () => (await sql`select
    (select count(*) from appserver.tasks) as tasks, (select max(updated_at) from appserver.tasks)::text as tasks_updated,
    (select count(*) from appserver.messages) as messages, (select max(updated_at) from appserver.messages)::text as messages_updated,
    (select count(*) from appserver.message_state_events) as events,
    (select md5(string_agg(user_id || covered_until::text || generated_at::text, ',' order by user_id)) from appserver.schedule_inputs) as inputs`)[0];
  const before = await snapshot();
  now = new Date(now.getTime() + 60_000);
  // The lease keeps a run from repeating within the interval: this measures the next one.
  await sql`update appserver.job_leases set last_started_at = null`;
  started = performance.now();
  const second = await schedules.runInterval('bench', HOUR);
  const secondMs = Math.round(performance.now() - started);
  const after = await snapshot();
  if (second?.generated !== 0 || JSON.stringify(after) !== JSON.stringify(before)) {
    throw new BenchFailure(`unchanged run wrote: ${JSON.stringify(second)} ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  }
  await sql.end();
  console.log(JSON.stringify({
    benchmark: 'schedule-generation', machine: machine(), users, concurrency, poolSize: POOL_SIZE,
    firstGeneration: { ms: firstMs, usersPerSecond: Math.round(users / (firstMs / 1000)), ...counts, coresUsed: firstCpu },
    unchangedRun: { ms: secondMs, writes: 0 },
    targets: { firstGenerationMs: 60_000, unchangedRunMs: 5_000 },
  }, null, 2));
} finally {
  await handle?.close();
  await db.drop();
}
