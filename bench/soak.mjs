// Soak (issue 22 item 10, issue 30 item 8): `npm run soak` (tsx: the FCM stub is test/helpers/fcm-stub.ts).
// The built service, prod profile on a fresh PostgreSQL database, FCM through firebase-admin to a
// stub in this process. A mixed workload, one operation after the other in each lane, in turn:
//   client_credentials token grant (radar_restapi) → GET /projects/soak/users/{u} →
//   POST …/users/{u}/messaging/notifications/batch of NOTIFICATIONS due now (the scheduler sends
//   them) → GET …/users/{u}/messaging/notifications (the user's whole list, as the app reads it) →
//   refresh_token grant (ManagementPortalapp; REFRESH_CHAINS chains of the admin's tokens, each
//   followed with its newest token) → GET /managementportal/api/projects/radar/subjects?size=20
//   (SUBJECTS participants, with the newest access token) → GET /actuator/health.
// The app users {u} go round USERS (default 1,000) participants, so a user's list grows as a
// study's would, by a few notifications a minute, not by thousands.
// First CAPACITY_SECONDS (default 15) closed-loop with LANES (default 8) lanes: operations/s is the
// capacity. Then SOAK_SECONDS (default 600) open-loop at SOAK_LOAD (default 0.5) × that capacity.
// Reports: errors (any non-2xx or request error: bound 0), p99 per minute overall and per kind of
// operation (the last minute's within 20 % of the first, for each), the service's RSS (VmRSS,
// sampled every 5 s; the last minute's mean within 10 % of minute 5's, once the caches are full,
// and at most RSS_MAX_MIB, default 300), and nothing lost (every notification created in the run
// received exactly once at the stub). HEAP_SNAPSHOTS=1 starts the service with
// --heapsnapshot-signal=SIGWINCH (not SIGUSR2: close-with-grace shuts the service down on it) and asks for a heap snapshot (written in the working directory) at
// minute 5 and at the end: `node bench/heap-summary.mjs a.heapsnapshot b.heapsnapshot` says what
// grew. Prints one JSON result, then a markdown row for docs/reliability.md; exits 1 when a bound
// fails. SOAK_BOUNDS=errors,lost checks only those two (the test suite's short run: no timing
// bounds there).
import http from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startFcmStub } from '../test/helpers/fcm-stub.ts';
import { clusterAvailable, createCluster } from '../test/helpers/postgres-cluster.ts';
import { freshDatabase, machine, prodEnv, seedBigProject, startService } from './lib.mjs';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CAPACITY_SECONDS = Number(process.env.CAPACITY_SECONDS ?? 15);
const LANES = Number(process.env.LANES ?? 8);
const LOAD = Number(process.env.SOAK_LOAD ?? 0.5);
const NOTIFICATIONS = 10;
const USERS = Number(process.env.USERS ?? 1000);
const SUBJECTS = Number(process.env.SUBJECTS ?? 1000);
const REFRESH_CHAINS = Number(process.env.REFRESH_CHAINS ?? 64);
const RSS_MAX_MIB = Number(process.env.RSS_MAX_MIB ?? 300);
const HEAP_SNAPSHOTS = process.env.HEAP_SNAPSHOTS === '1';
const ADMIN_PASSWORD = 'soak-admin-password';
const BOUNDS = (process.env.SOAK_BOUNDS ?? 'errors,lost,p99,rss').split(',');
const KEYSTORE = fileURLToPath(new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url));

let created = 0; // notifications created (answered 201/200) in the run
/**
 * Which notifications (by sequence number) reached the stub, and how many arrived once and again.
 * A typed array, not a Map: the load generator shares the machine and its measurements with what
 * it measures, and a Map of half a million keys makes its own garbage collection slower minute by
 * minute.
 */
let seen = new Uint8Array(1 << 20);
let received = 0;
let duplicates = 0;
function receive(seq) {
  if (seq >= seen.length) { const grown = new Uint8Array(Math.max(seen.length * 2, seq + 1)); grown.set(seen); seen = grown; }
  if (seen[seq]) duplicates++;
  else { seen[seq] = 1; received++; }
}
const stub = await startFcmStub({
  record: false,
  onMessage: (r) => {
    const key = r.message.data?.soak;
    if (key !== undefined) receive(Number(key));
  },
});
// The database: by default a private cluster with PostgreSQL's stock settings (initdb's, autovacuum
// on), as a fresh installation runs it. This machine's shared server runs with autovacuum off (a
// CI setting), under which the queue table's dead rows are never cleared and p99 climbs with them.
// SOAK_DATABASE=shared measures on BENCH_DATABASE_URL's server instead.
const cluster = process.env.SOAK_DATABASE === 'shared' || !clusterAvailable ? undefined : await createCluster({ stock: true });
// On every way out (a failed start-up, a failed bound): never leave a PostgreSQL server running.
process.on('exit', () => cluster?.destroy());
const db = await freshDatabase('radar_soak', cluster?.url);
if (HEAP_SNAPSHOTS) process.env.BENCH_NODE_ARGS = `${process.env.BENCH_NODE_ARGS ?? ''} --heapsnapshot-signal=SIGWINCH`;
const service = await startService({
  ...prodEnv(db.url, 10, ADMIN_PASSWORD), MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE,
  SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false', FCMSERVER_FCMSENDER: 'rest', FCM_EMULATOR_HOST: stub.host,
});
const heapSnapshots = [];
const heapSnapshot = (label) => {
  if (!HEAP_SNAPSHOTS) return;
  process.kill(service.pid, 'SIGWINCH');
  heapSnapshots.push({ label, at: new Date().toISOString() });
};
// Idle sockets close after 60 s, before the service's keep-alive timeout (Fastify's 72 s) would:
// a request sent on a socket the server is closing at that moment fails with ECONNRESET (the
// keep-alive race every HTTP client has; the apps' OkHttp retries it, this loop counts it).
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 60_000 });
const base = new URL(service.base);

/** One request; its status and latency. `onBody` gets the response body as text (otherwise it is discarded). */
function request(method, path, headers, body, onBody) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request({ agent, host: base.hostname, port: base.port, method, path, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      if (onBody) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { text += d; });
        res.on('end', () => { onBody(text); resolve({ status: res.statusCode, ms: performance.now() - started }); });
        return;
      }
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, error: err.message, ms: performance.now() - started }));
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = `Basic ${Buffer.from('radar_restapi:secret').toString('base64')}`;
let seq = 0;
const batchBody = () => JSON.stringify({
  notifications: Array.from({ length: NOTIFICATIONS }, () => {
    seq += 1;
    return {
      title: 'Soak', body: 'Please complete your questionnaire', ttlSeconds: 3600, sourceId: `src-${seq}`, type: 'PHQ8',
      sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt', scheduledTime: Math.floor(Date.now() / 1000),
      additionalData: { soak: String(seq) },
    };
  }),
});
/** Round-robin over the app users, one counter per operation that names a user. */
const userCounters = { get: 0, batch: 0, list: 0 };
const nextUser = (op) => `/projects/soak/users/sub-${(userCounters[op]++ % USERS) + 1}`;

/**
 * Refresh chains: each holds its newest refresh token; an operation takes one, refreshes it and
 * puts the successor back (tokens are single-use). When every chain is in flight, the operation
 * waits for the next one to come back, as an app waits for its own refresh (the wait counts in its
 * latency). It does not start a password grant instead: each is a bcrypt hash, and under a slow
 * patch those grants multiplied until they took both cores and the run never recovered (the
 * generator's feedback, not the service's). A chain whose refresh failed is replaced by a fresh
 * password grant. The newest access token serves the subject list.
 */
const chains = [];
/** Operations waiting for a chain, oldest first. */
const chainWaiters = [];
const putChain = (token) => {
  const waiter = chainWaiters.shift();
  if (waiter) waiter(token);
  else chains.push(token);
};
const takeChain = () => (chains.length > 0 ? Promise.resolve(chains.shift()) : new Promise((resolve) => chainWaiters.push(resolve)));
let accessToken;
/** A password grant of the admin: a new chain's first refresh token (undefined when refused). */
async function passwordGrant() {
  let text;
  const res = await request('POST', '/managementportal/oauth/token', form,
    new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }).toString(), (body) => { text = body; });
  if (res.status !== 200) return { res };
  const body = JSON.parse(text);
  accessToken = body.access_token;
  return { res, token: body.refresh_token };
}
/** Starts a chain again with a password grant, retried until it is granted. */
async function replaceChain() {
  for (;;) {
    const started = await passwordGrant();
    if (started.token !== undefined) { putChain(started.token); return; }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
async function refresh() {
  const startedAt = performance.now();
  const token = await takeChain();
  let refreshed;
  const res = await request('POST', '/managementportal/oauth/token', form, `grant_type=refresh_token&client_id=ManagementPortalapp&refresh_token=${token}`, (body) => { refreshed = body; });
  if (res.status === 200) {
    const body = JSON.parse(refreshed);
    accessToken = body.access_token;
    putChain(body.refresh_token);
  } else {
    void replaceChain();
  }
  return { ...res, ms: performance.now() - startedAt };
}

/** The mixed workload, in turn; each operation named, for its own p99 per minute. */
const OPS = [
  () => request('POST', '/managementportal/oauth/token', { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials'),
  () => request('GET', nextUser('get'), {}),
  async () => {
    const res = await request('POST', `${nextUser('batch')}/messaging/notifications/batch`, json, batchBody());
    if (res.status >= 200 && res.status < 300) created += NOTIFICATIONS;
    return res;
  },
  () => request('GET', `${nextUser('list')}/messaging/notifications`, {}),
  refresh,
  () => request('GET', '/managementportal/api/projects/radar/subjects?size=20', { authorization: `Bearer ${accessToken}` }),
  () => request('GET', '/actuator/health', {}),
];
const OP_NAMES = ['grant', 'userGet', 'batchCreate', 'notificationList', 'refresh', 'subjectList', 'health'];

/** The outcome of every operation: its status and latency, and the minute of the run it started in. */
function recorder(startedAt) {
  const minutes = [];
  /** Latencies by operation index, then by minute. */
  const byOp = OPS.map(() => []);
  const failures = new Map();
  let ops = 0;
  return {
    ops: () => ops,
    failures,
    minutes,
    byOp,
    async run(i) {
      const minute = Math.floor((performance.now() - startedAt) / 60_000);
      const res = await OPS[i]();
      ops++;
      (minutes[minute] ??= []).push(res.ms);
      (byOp[i][minute] ??= []).push(res.ms);
      if (!(res.status >= 200 && res.status < 300)) {
        const key = res.error ?? String(res.status);
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    },
  };
}

const p99 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] * 10) / 10 : undefined; };
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

let result;
let failed = [];
try {
  const setUp = async (what, res) => { if (!((await res).status < 300)) throw new Error(`set-up failed: ${what}`); };
  await setUp('project', request('POST', '/projects', json, JSON.stringify({ projectId: 'soak' })));
  for (let i = 1; i <= USERS; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, USERS - i + 1) }, (_, k) => setUp('user', request('POST', '/projects/soak/users', json,
      JSON.stringify({ subjectId: `sub-${i + k}`, fcmToken: `soak-token-${i + k}`, enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'UTC', language: 'en' })))));
  }
  await seedBigProject(db.url, SUBJECTS);
  for (let i = 0; i < REFRESH_CHAINS; i++) {
    const started = await passwordGrant();
    if (started.token === undefined) throw new Error(`set-up failed: password grant ${started.res.status}`);
    chains.push(started.token);
  }

  // Capacity: LANES closed loops for CAPACITY_SECONDS.
  const capStart = performance.now();
  const cap = recorder(capStart);
  await Promise.all(Array.from({ length: LANES }, async (_, lane) => {
    for (let i = lane; performance.now() - capStart < CAPACITY_SECONDS * 1000; i++) await cap.run(i % OPS.length);
  }));
  const capacity = cap.ops() / ((performance.now() - capStart) / 1000);
  const rate = capacity * LOAD;

  // Soak: open loop at `rate` operations/s (a tick every 10 ms starts the operations now due).
  const rss = [];
  const soakStart = performance.now();
  const soak = recorder(soakStart);
  const pending = new Set();
  let started = 0;
  const sampleRss = () => rss.push({ at: performance.now() - soakStart, mib: service.rssMiB() });
  sampleRss();
  const rssTimer = setInterval(sampleRss, 5000);
  const snapshotTimer = SOAK_SECONDS > 360 ? setTimeout(() => heapSnapshot('minute 5'), 300_000) : undefined;
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - soakStart;
      if (elapsed >= SOAK_SECONDS * 1000) { clearInterval(tick); resolve(); return; }
      while (started < (elapsed / 1000) * rate) {
        const p = soak.run(started++ % OPS.length);
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
    }, 10);
  });
  await Promise.all(pending);
  clearInterval(rssTimer);
  clearTimeout(snapshotTimer);
  sampleRss();
  heapSnapshot('end');

  // Nothing lost: every created notification reaches the stub, exactly once.
  const waitUntil = Date.now() + 120_000;
  while (received < created && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 2000)); // late duplicates would arrive now
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const states = Object.fromEntries((await sql`select state, count(*)::int as n from appserver.messages group by state`).map((r) => [r.state, r.n]));
  // Dead rows left by the run (each notification is inserted, then updated when claimed and when sent): bloat shows here.
  const tables = (await sql`select relname, n_live_tup::int as live, n_dead_tup::int as dead, autovacuum_count::int as autovacuums
    from pg_stat_user_tables where schemaname = 'appserver' and relname in ('messages', 'message_state_events') order by relname`).map((r) => ({ ...r }));
  const [{ autovacuum }] = await sql`show autovacuum`;
  await sql.end();

  const perMinute = soak.minutes.map((ms) => ({ requests: ms.length, p99Ms: p99(ms) })).filter((m) => m.requests > 0);
  const minuteMs = 60_000;
  // RSS once the caches are full: minute 5 (or the first minute of a shorter run) against the last.
  const settledFrom = SOAK_SECONDS >= 600 ? 4 * minuteMs : 0;
  const firstRss = rss.filter((s) => s.at >= settledFrom && s.at < settledFrom + minuteMs).map((s) => s.mib);
  const lastRss = rss.filter((s) => s.at >= Math.max(0, SOAK_SECONDS * 1000 - minuteMs)).map((s) => s.mib);
  const rssGrowth = mean(lastRss) / mean(firstRss) - 1;
  const errors = [...soak.failures.values()].reduce((a, b) => a + b, 0) + [...cap.failures.values()].reduce((a, b) => a + b, 0);
  const lost = created - received;
  const p99Ratio = perMinute.length >= 2 ? perMinute.at(-1).p99Ms / perMinute[0].p99Ms : 1;
  const p99ByOp = Object.fromEntries(OP_NAMES.map((name, i) => [name, soak.byOp[i].map((ms) => (ms ? p99(ms) : undefined))]));
  /** Per kind of operation, the last minute's p99 over the first's. */
  const p99RatioByOp = Object.fromEntries(Object.entries(p99ByOp).map(([name, ms]) => [name, ms.length >= 2 && ms[0] && ms.at(-1) ? Math.round((ms.at(-1) / ms[0]) * 100) / 100 : 1]));
  const rssMax = Math.max(...rss.map((s) => s.mib));
  result = {
    bench: 'soak', date: new Date().toISOString(), machine: machine(),
    database: { server: cluster ? 'private initdb cluster, stock settings' : 'BENCH_DATABASE_URL', autovacuum }, loadAverageAtEnd: loadavg().map((l) => Math.round(l * 10) / 10),
    capacity: { seconds: CAPACITY_SECONDS, lanes: LANES, opsPerSecond: Math.round(capacity), p99Ms: p99(cap.minutes.flat()) },
    soak: { seconds: SOAK_SECONDS, load: LOAD, targetOpsPerSecond: Math.round(rate), operations: soak.ops(), opsPerSecond: Math.round(soak.ops() / SOAK_SECONDS) },
    errors, failures: Object.fromEntries([...cap.failures, ...soak.failures]),
    perMinute, p99LastOverFirst: Math.round(p99Ratio * 100) / 100,
    p99PerMinuteByOperation: p99ByOp, p99LastOverFirstByOperation: p99RatioByOp,
    tables,
    rssMiB: { settledMinute: settledFrom / minuteMs + 1, first: Math.round(mean(firstRss)), last: Math.round(mean(lastRss)), max: Math.round(rssMax) }, rssGrowth: Math.round(rssGrowth * 1000) / 1000,
    heapSnapshots,
    // A leak climbs minute after minute; a heap settling at its working size levels off.
    rssMiBPerMinute: perMinute.map((_, m) => Math.round(mean(rss.filter((s) => s.at >= m * minuteMs && s.at < (m + 1) * minuteMs).map((s) => s.mib)))),
    notifications: { created, received, lost, duplicates, states },
  };
  if (BOUNDS.includes('errors') && errors > 0) failed.push(`${errors} errors`);
  if (BOUNDS.includes('lost') && (lost !== 0 || duplicates !== 0)) failed.push(`${lost} notifications lost, ${duplicates} duplicates`);
  if (BOUNDS.includes('p99') && p99Ratio > 1.2) failed.push(`p99 of the last minute ${p99Ratio.toFixed(2)} × the first`);
  for (const [name, ratio] of Object.entries(p99RatioByOp)) if (BOUNDS.includes('p99') && ratio > 1.2) failed.push(`${name}: p99 of the last minute ${ratio} × the first`);
  if (BOUNDS.includes('rss') && rssGrowth > 0.1) failed.push(`RSS grew ${(rssGrowth * 100).toFixed(1)} % from minute ${settledFrom / minuteMs + 1}`);
  if (BOUNDS.includes('rss') && rssMax > RSS_MAX_MIB) failed.push(`RSS reached ${Math.round(rssMax)} MiB (bound ${RSS_MAX_MIB})`);
} finally {
  agent.destroy();
  await service.stop();
  await db.drop();
  await stub.close();
}

console.log(JSON.stringify(result, null, 2));
console.log(`| ${result.date.slice(0, 16).replace('T', ' ')} | soak (\`SOAK_SECONDS=${SOAK_SECONDS} npm run soak\`), prod profile on PostgreSQL (${result.database.server}, autovacuum ${result.database.autovacuum}), load average at the end ${result.loadAverageAtEnd.join(' / ')} | capacity ${result.capacity.opsPerSecond} ops/s (${LANES} lanes); soak at ${result.soak.targetOpsPerSecond} ops/s for ${SOAK_SECONDS} s: **${result.errors} errors**, p99 per minute ${result.perMinute.map((m) => m.p99Ms).join(' → ')} ms (last / first ${result.p99LastOverFirst}), RSS ${result.rssMiB.first} → ${result.rssMiB.last} MiB (**${(result.rssGrowth * 100).toFixed(1)} %**), ${result.notifications.created} notifications created, ${result.notifications.received} received once, **${result.notifications.lost} lost, ${result.notifications.duplicates} duplicates** |`);
if (failed.length > 0) {
  console.error(`soak failed: ${failed.join('; ')}`);
  process.exit(1);
}
