// Notification dispatch on PostgreSQL (prod profile) through the real firebase-admin client to the
// local FCM stub (FCM_EMULATOR_HOST, in this process), in one run:
//  1. the stub's raw limit: a client process of its own (bench/fcm-raw-client.mjs) POSTs
//     …/messages:send straight at the stub with the concurrency the service sends with (the
//     emulator agent's 128 sockets, each with a request in flight), for 5 s after a 1 s warm-up;
//  2. throughput: 100,000 due notifications sent by `--instances` service processes (default 1;
//     each a `dist/main.js` of its own, all on the same database), from the first to the last
//     receipt at the stub; printed with its ratio to the raw limit (issue 30 item 4: one instance
//     ≥ 0.25 ×; N instances ≥ one instance's figure);
//  3. lateness: 10,000 notifications all due in the same second, receipt time at the stub minus
//     scheduledTime (target p99 ≤ SCHEDULER_TICK_MS + 500 ms, or where throughput bounds it
//     ≤ 10,000 / the measured rate + the tick; both printed).
// The run fails (exit 1) on a non-2xx answer of the stub in step 1, and when a message of steps
// 2–3 ends other than EXECUTED (a failed send is not a delivery) or reaches the stub twice.
//   npx tsx bench/scheduler.mjs [throughputCount=100000] [latenessCount=10000] [--instances N]
// (tsx: the stub is test/helpers/fcm-stub.ts.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startFcmStub } from '../test/helpers/fcm-stub.ts';
import { cpuMeter } from './cpu-usage.mjs';
import { BenchFailure, exitOnBenchFailure, freshDatabase, machine, startService } from './lib.mjs';

exitOnBenchFailure();

const args = process.argv.slice(2);
const flag = args.indexOf('--instances');
const instances = flag >= 0 ? Number(args.splice(flag, 2)[1]) : 1;
if (!Number.isInteger(instances) || instances < 1) throw new BenchFailure('--instances must be a positive integer');
const throughputCount = Number(args[0] ?? 100_000);
const latenessCount = Number(args[1] ?? 10_000);
/** The service's sockets to the emulator host (transmit/fcm.ts `EmulatorAgent`): the raw client's concurrency. */
const SOCKETS = 128;
const TICK_MS = 1000;
const KEYSTORE = new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url).pathname;

const receivedAt = new Map(); // n → first receipt time
let duplicates = 0;
const stub = await startFcmStub({
  record: false,
  onMessage: (r) => {
    const n = r.message.data?.n;
    if (n === undefined || n === 'raw') return;
    if (receivedAt.has(n)) duplicates++;
    else receivedAt.set(n, r.at);
  },
});

/** The raw limit, from a client process of its own (its CPU is not this process's, which serves the stub). */
async function rawLimit(seconds) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./fcm-raw-client.mjs', import.meta.url)), String(stub.port), String(seconds), String(SOCKETS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new BenchFailure(`stub raw limit: the client exited with ${code}`);
  return JSON.parse(out).perSecond;
}

async function insertDue(sql, count, at, offset) {
  const [project] = await sql`insert into appserver.projects (project_id) values (${`bench-${offset}`}) returning id`;
  await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone)
    select ${project.id}, ${`b${offset}-sub-`} || g, ${`b${offset}-tok-`} || g, now(), 'UTC' from generate_series(1, 1000) g`;
  await sql`insert into appserver.messages (kind, user_id, source_id, scheduled_time, ttl_seconds, fcm_message_id, app_package, source_type, title, body, type, state, dedupe_key, data)
    select 'notification', u.id, 'src', ${at}, 3600, 'm-' || g, 'org.phidatalab.radar_armt', 'aRMT', 'Questionnaire time', 'Please complete your questionnaire', 'PHQ8', 'SCHEDULED', 'k-' || g, jsonb_build_object('n', (g + ${offset})::text)
    from generate_series(1, ${count}) g join appserver.users u on u.subject_id = ${`b${offset}-sub-`} || (g % 1000 + 1)`;
}

/**
 * Waits (up to 30 s) until the service has recorded every outcome, and fails unless every message
 * is EXECUTED: ERRORED ones were refused, SCHEDULED ones are still waiting for a retry.
 */
async function settled(sql, phase) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const states = await sql`select state, count(*)::int as n from appserver.messages group by state order by state`;
    const other = states.filter((s) => s.state !== 'EXECUTED');
    if (other.length === 0) return;
    if (other.some((s) => s.state !== 'SCHEDULED') || Date.now() > deadline) {
      throw new BenchFailure(`${phase}: messages not EXECUTED: ${other.map((s) => `${s.n} ${s.state}`).join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(check, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const raw = await rawLimit(5);
const db = await freshDatabase('radar_bench_scheduler');
const base = {
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: '8',
  MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin-1',
  FCMSERVER_FCMSENDER: 'rest', FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: String(TICK_MS),
};
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const results = { instances, stubRawLimitPerSecond: raw, rawClientSockets: SOCKETS };
try {
  // Migrate with a scheduler-less process, insert the backlog, then start the sending processes.
  const migrator = await startService({ ...base, SCHEDULER_ENABLED: 'false' });
  await migrator.stop();
  await insertDue(sql, throughputCount, new Date(Date.now() - 1000), 0);
  const services = await Promise.all(Array.from({ length: instances }, () => startService(base)));
  try {
    await waitFor(() => receivedAt.size >= 1, 60);
    const cpus = services.map((s) => cpuMeter(s.pid));
    await waitFor(() => receivedAt.size >= throughputCount, 600);
    const cores = cpus.map((c) => c());
    const times = [...receivedAt.values()];
    const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
    const perSecond = Math.round(throughputCount / seconds);
    const serviceCores = cores.reduce((a, c) => a + c.service, 0);
    results.throughput = {
      notifications: throughputCount, seconds: Number(seconds.toFixed(2)), perSecond, ratioToRawLimit: Number((perSecond / raw).toFixed(3)),
      rssMiB: services.map((s) => Math.round(s.rssMiB())),
      coresUsed: { services: Number(serviceCores.toFixed(2)), postgres: cores[0].postgres, driverAndStub: cores[0].driver },
      serviceCpuUsPerMessage: Math.round((serviceCores * seconds * 1e6) / throughputCount),
    };
    await settled(sql, 'throughput');

    // Lateness: all due in the same second, 2 s from now.
    receivedAt.clear();
    const due = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    await insertDue(sql, latenessCount, due, 1_000_000);
    await waitFor(() => receivedAt.size >= latenessCount, 120);
    const lateness = [...receivedAt.values()].map((t) => t - due.getTime()).sort((a, b) => a - b);
    const pct = (p) => lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))];
    results.lateness = {
      notifications: latenessCount, tickMs: TICK_MS, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: lateness.at(-1),
      // The p99 bound: tick + 500 ms, or, when throughput bounds it, the time to send them all at the measured rate + the tick.
      boundMs: Math.round(Math.max(TICK_MS + 500, (latenessCount / perSecond) * 1000 + TICK_MS)),
    };
    await settled(sql, 'lateness');
    if (duplicates > 0) throw new BenchFailure(`${duplicates} messages reached the stub more than once`);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
  }
} finally {
  await sql.end();
  await db.drop();
  await stub.close();
}
console.log(JSON.stringify({ bench: 'scheduler', date: new Date().toISOString().slice(0, 10), machine: machine(), results }, null, 2));
