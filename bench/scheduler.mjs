// Notification dispatch on PostgreSQL (prod profile) through the real firebase-admin client to the
// local FCM stub (FCM_EMULATOR_HOST), in one run:
//  1. the stub's own raw limit: POST …/messages:send from this process, 32 keep-alive sockets;
//  2. throughput: 100,000 due notifications, one service process, until the stub has them all
//     (target ≥ 5,000/s sustained);
//  3. lateness: 10,000 notifications all due in the same second, receipt time at the stub minus
//     scheduledTime (target p99 ≤ SCHEDULER_TICK_MS + 500 ms).
// The run fails (exit 1) on a non-2xx answer of the stub in step 1, and when a message of steps
// 2–3 ends other than EXECUTED (a failed send is not a delivery).
//   npx tsx bench/scheduler.mjs [throughputCount=100000] [latenessCount=10000]
// (tsx: the stub is test/helpers/fcm-stub.ts.)
import { Agent, request } from 'node:http';
import postgres from 'postgres';
import { startFcmStub } from '../test/helpers/fcm-stub.ts';
import { cpuMeter } from './cpu-usage.mjs';
import { BenchFailure, exitOnBenchFailure, freshDatabase, machine, startService } from './lib.mjs';

exitOnBenchFailure();

const throughputCount = Number(process.argv[2] ?? 100_000);
const latenessCount = Number(process.argv[3] ?? 10_000);
const TICK_MS = 1000;
const KEYSTORE = new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url).pathname;

const receivedAt = new Map(); // n → first receipt time
const stub = await startFcmStub({
  record: false,
  onMessage: (r) => { const n = r.message.data?.n; if (n !== undefined && !receivedAt.has(n)) receivedAt.set(n, r.at); },
});

async function rawLimit(total) {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const body = JSON.stringify({ message: { token: 'raw', notification: { title: 't', body: 'b' } } });
  const one = () => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: stub.port, path: '/v1/projects/raw/messages:send', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode >= 200 && res.statusCode <= 299 ? resolve() : reject(new BenchFailure(`stub raw limit: answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 64 }, async () => { while (next++ < total) await one(); }));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return Math.round(total / seconds);
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

const raw = await rawLimit(20_000);
const db = await freshDatabase('radar_bench_scheduler');
const base = {
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: '8',
  MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin-1',
  FCMSERVER_FCMSENDER: 'rest', FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: String(TICK_MS),
};
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const results = { stubRawLimitPerSecond: raw };
try {
  // Migrate with a scheduler-less process, insert the backlog, then start the sending process.
  const migrator = await startService({ ...base, SCHEDULER_ENABLED: 'false' });
  await migrator.stop();
  await insertDue(sql, throughputCount, new Date(Date.now() - 1000), 0);
  const service = await startService(base);
  try {
    await waitFor(() => receivedAt.size >= 1, 60);
    const cpu = cpuMeter(service.pid);
    await waitFor(() => receivedAt.size >= throughputCount, 600);
    const coresUsed = cpu();
    const times = [...receivedAt.values()];
    const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
    results.throughput = { notifications: throughputCount, seconds: Number(seconds.toFixed(2)), perSecond: Math.round(throughputCount / seconds), rssMiB: Math.round(service.rssMiB()), coresUsed };
    await settled(sql, 'throughput');

    // Lateness: all due in the same second, 2 s from now.
    receivedAt.clear();
    const due = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    await insertDue(sql, latenessCount, due, 1_000_000);
    await waitFor(() => receivedAt.size >= latenessCount, 120);
    const lateness = [...receivedAt.values()].map((t) => t - due.getTime()).sort((a, b) => a - b);
    const pct = (p) => lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))];
    results.lateness = { notifications: latenessCount, tickMs: TICK_MS, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: lateness.at(-1) };
    await settled(sql, 'lateness');
  } finally {
    await service.stop();
  }
} finally {
  await sql.end();
  await db.drop();
  await stub.close();
}
console.log(JSON.stringify({ bench: 'scheduler', date: new Date().toISOString().slice(0, 10), machine: machine(), results }, null, 2));
