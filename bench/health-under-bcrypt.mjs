// `/actuator/health` latency while password grants of unknown users keep 40 bcrypt comparisons
// pending at once (issue 17 item 6), prod profile on PostgreSQL. Each grant is a new unknown
// username: it costs one comparison against the dummy hash and answers 400 invalid_grant. The
// failed-attempt limits are raised so the flood is not cut short by 429s. The probe asks for
// health one request at a time, every 50 ms, first idle and then during the flood. The run fails
// (exit code 1) on any non-2xx probe answer, on a grant answered other than 400, and on any
// request error.
//   node bench/health-under-bcrypt.mjs [seconds=10] [concurrent=40]
// Run from the checkout whose dist/ is measured (it starts `dist/main.js` of the working directory).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { cpuMeter } from './cpu-usage.mjs';
import { freshDatabase, machine, startService } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 10);
const concurrent = Number(process.argv[3] ?? 40);
const TARGET_MS = 250;
const PROBE_EVERY_MS = 50;
const KEYSTORE = fileURLToPath(new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url));
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));

// The driver shares the cores with the service: node:http with keep-alive, not fetch.
const agent = new Agent({ keepAlive: true, maxSockets: concurrent + 2 });
function send(base, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, agent, headers: { ...headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 10) / 10;
  return { probes: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)) };
}

/** Health probes, one at a time, until `until()` is false; returns their latencies and any non-2xx answers. */
async function probe(base, until) {
  const latencies = [];
  const failures = [];
  while (until()) {
    const started = performance.now();
    const status = await send(base, 'GET', '/actuator/health');
    const ms = performance.now() - started;
    latencies.push(ms);
    if (status < 200 || status > 299) failures.push(status);
    await sleep(Math.max(0, PROBE_EVERY_MS - ms));
  }
  return { latencies, failures };
}

/** Keeps `concurrent` password grants of new unknown users in flight until `until()` is false. */
async function flood(base, until) {
  const statuses = {};
  let grants = 0;
  const prefix = randomBytes(4).toString('hex');
  async function lane(lane) {
    for (let i = 0; until(); i++) {
      const body = new URLSearchParams({
        grant_type: 'password', client_id: 'ManagementPortalapp', username: `nobody-${prefix}-${lane}-${i}`, password: 'Not-the-passw0rd',
      }).toString();
      const status = await send(base, 'POST', '/managementportal/oauth/token', body, { 'content-type': 'application/x-www-form-urlencoded' });
      statuses[status] = (statuses[status] ?? 0) + 1;
      grants++;
    }
  }
  await Promise.all(Array.from({ length: concurrent }, (_, i) => lane(i)));
  return { grants, statuses };
}

const db = await freshDatabase('radar_bench_health');
const service = await startService({
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE,
  MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin',
  MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  // The flood is the load, not an attack to stop: no 429s from the failed-attempt limits.
  MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '1000000', MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '1000000',
});
let result;
try {
  // Warm-up: JIT, the database pool, the first grant.
  await flood(service.base, (() => { const end = Date.now() + 1000; return () => Date.now() < end; })());
  const idleEnd = Date.now() + 2000;
  const idle = await probe(service.base, () => Date.now() < idleEnd);

  const floodEnd = Date.now() + seconds * 1000;
  const cpu = cpuMeter(service.pid);
  const flooding = flood(service.base, () => Date.now() < floodEnd);
  flooding.catch(() => {}); // a request error is thrown below, after the probes, with the service stopped
  await sleep(200); // every lane has a comparison pending
  const loaded = await probe(service.base, () => Date.now() < floodEnd);
  const grants = await flooding;
  const coresUsed = cpu();

  const failures = [...idle.failures, ...loaded.failures];
  const health = summary(loaded.latencies);
  // Every grant must cost its bcrypt comparison and answer 400 invalid_grant; a 429 or a 5xx would make the flood lighter than it says.
  const otherGrantAnswers = Object.entries(grants.statuses).filter(([status]) => status !== '400').map(([status, n]) => `${n} × ${status}`);
  result = {
    bench: 'health-under-bcrypt', date: new Date().toISOString().slice(0, 16), machine: machine(), seconds, concurrent,
    healthIdleMs: summary(idle.latencies),
    healthUnderFloodMs: health,
    grants: { total: grants.grants, perSecond: Math.round(grants.grants / seconds), statuses: grants.statuses },
    coresUsed,
    healthNon2xx: failures,
    otherGrantAnswers,
    targetMs: TARGET_MS,
    pass: failures.length === 0 && otherGrantAnswers.length === 0 && health.max <= TARGET_MS,
  };
} finally {
  agent.destroy();
  await service.stop();
  await db.drop();
}
console.log(JSON.stringify(result, null, 2));
if (result.healthNon2xx.length > 0 || result.otherGrantAnswers.length > 0) {
  console.error(`benchmark failed: health answered ${result.healthNon2xx.join(', ') || 'only 2xx'}; grants answered other than 400: ${result.otherGrantAnswers.join(', ') || 'none'}`);
  process.exitCode = 1;
}
