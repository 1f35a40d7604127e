// Shared helpers of the benchmarks: start the built service (dist/main.js) and wait for it.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';

export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Creates a fresh database on `serverUrl`'s server (BENCH_DATABASE_URL's by default); returns its URL and a drop function. */
export async function freshDatabase(name, serverUrl = BENCH_DATABASE_URL) {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Spawns dist/main.js (or `script`, a bound of bench/ started the same way) with `env`; resolves once
 * /actuator/health answers, with the time it took and the CPU time the process had used by then.
 */
export async function startService(env, script = 'dist/main.js') {
  const port = await freePort();
  const started = performance.now();
  // BENCH_NODE_ARGS passes flags to the service's node (e.g. --cpu-prof to profile under load).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, script], {
    // The prod profile needs a keystore and an admin password: the test fixtures serve here.
    env: {
      ...process.env, LOG_LEVEL: 'warn', FCMSERVER_FCMSENDER: 'disabled',
      MANAGEMENTPORTAL_OAUTH_KEY_STORE: 'test/fixtures/keystores/keytool-ec.p12', MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: 'radarbase',
      MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin-password', MANAGEMENTPORTAL_MAIL_FROM: 'bench@localhost', ...env, PORT: String(port),
    },
    // BENCH_SERVICE_LOG=file keeps the service's log (its stdout; LOG_LEVEL warn unless set) there.
    stdio: ['ignore', process.env.BENCH_SERVICE_LOG ? openSync(process.env.BENCH_SERVICE_LOG, 'a') : 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  const refusedHealth = []; // statuses other than 200 before the first 200
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/actuator/health`);
      if (res.status === 200) break;
      refusedHealth.push(res.status);
      await res.arrayBuffer();
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('service did not start within 60 s');
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = performance.now() - started;
  // CPU time (user + system, all threads) at the first 200: on a loaded host it says more than the wall time.
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const startupCpuMs = (Number(stat[11]) + Number(stat[12])) * 10;
  // BENCH_PERF=file: record the service with Linux perf (cpu-clock, call graphs) until it stops,
  // from BENCH_PERF_DELAY_MS after start-up on (skip the warm-up); BENCH_NODE_ARGS=--perf-basic-prof names JS frames.
  const perf = process.env.BENCH_PERF
    ? spawn('perf', ['record', '-F', '999', '-g', '-D', process.env.BENCH_PERF_DELAY_MS ?? '0', '-o', process.env.BENCH_PERF, '-p', String(child.pid)], { stdio: 'ignore' })
    : undefined;
  return {
    base,
    startupMs,
    startupCpuMs,
    refusedHealth,
    pid: child.pid,
    /** Resident set size in MiB, from /proc. */
    rssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
    },
    async stop() {
      if (perf) {
        perf.kill('SIGINT');
        await new Promise((r) => perf.once('exit', r));
      }
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export const machine = () => {
  const cpus = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/g) ?? [];
  return `${cpus.length} × ${(cpus[0] ?? '').replace(/model name\s*:\s*/, '')}, Node ${process.version}`;
};

/**
 * Starts a server script of bench/ that prints its port once listening; `path` is its endpoint.
 * `args` follow the port on its command line.
 */
export async function startScript(script, path, ...args) {
  const port = await freePort();
  // BENCH_SCRIPT_NODE_ARGS: flags for these scripts' node (e.g. --cpu-prof, to profile a bound beside the service).
  const nodeArgs = (process.env.BENCH_SCRIPT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL(script, import.meta.url)), String(port), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  return { url: `http://127.0.0.1:${port}${path}`, pid: child.pid, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

/** A benchmark whose measured requests failed: its figure would measure something else. */
export class BenchFailure extends Error {}

/**
 * Throws a BenchFailure unless every request of an autocannon result answered 2xx without error
 * (connection errors and timeouts included); `label` names the run in the message.
 */
export function assertAll2xx(label, result) {
  const problems = [];
  if (result.non2xx > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2')).map(([status, { count }]) => `${count} × ${status}`).join(', ');
    problems.push(`${result.non2xx} non-2xx answers (${statuses})`);
  }
  if (result.errors > 0) problems.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result['2xx'] === 0) problems.push('no 2xx answer at all');
  if (problems.length > 0) throw new BenchFailure(`${label}: ${problems.join('; ')}`);
}

/** The response if it is 2xx, else a BenchFailure naming `what` with the status and body. */
export async function expect2xx(what, response) {
  const res = await response;
  if (res.status < 200 || res.status > 299) throw new BenchFailure(`${what}: ${res.status} ${await res.text()}`);
  return res;
}

/**
 * A failed benchmark prints one line and exits with 1, not a stack trace: call once at the top of
 * a script. Other errors keep their stack.
 */
export function exitOnBenchFailure() {
  process.on('uncaughtException', (err) => {
    if (err instanceof BenchFailure) console.error(`benchmark failed: ${err.message}`);
    else console.error(err);
    process.exit(1);
  });
}

export const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Runs `rounds` rounds of the named contestants (`{ name: () => Promise<result> }`), one after the
 * other; each round starts one later in the list, so none always runs first or right after
 * another. On a shared 2-core host one sequential pass swings by ±20 %; the medians over rounds
 * are the figures. Returns the results per round, `{ round, order, [name]: result }`.
 */
export async function alternatingRounds(rounds, contestants) {
  const names = Object.keys(contestants);
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    const result = { round: round + 1, order };
    for (const name of order) result[name] = await contestants[name]();
    results.push(result);
  }
  return results;
}

/** The rounds argument: argv at `index`, else ROUNDS, else 3. */
export function roundsArg(index) {
  const rounds = Number(process.argv[index] ?? process.env.ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new BenchFailure(`rounds must be a positive integer, not ${process.argv[index] ?? process.env.ROUNDS}`);
  return rounds;
}

/** The service's settings for a prod run on PostgreSQL `url`: pool `poolSize`, admin password `adminPassword`, the reference's OAuth clients. */
export const prodEnv = (url, poolSize, adminPassword) => ({
  PROFILE: 'prod', DATABASE_URL: url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: String(poolSize),
  MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: adminPassword,
  MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url)),
});

/**
 * Seeds a project `radar` with `count` participants straight into the tables (the service has
 * migrated them), analyzes, and returns how long it took and the cursor of the last page of 20
 * (the 20th-last subject in id order, as a `Link: rel="next"` or "Load more" would carry it).
 */
export async function seedBigProject(url, count) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const seeded = performance.now();
    await sql.begin(async (tx) => {
      const [project] = await tx`insert into management.projects (project_name, description, location, organization_id)
        select 'radar', 'bench', 'here', id from management.organizations where name = 'main' returning id`;
      const [role] = await tx`insert into management.roles (authority_name, project_id) values ('ROLE_PARTICIPANT', ${project.id}) returning id`;
      await tx`insert into management.users (login, activated, lang_key, email)
        select 'bench-' || lpad(g::text, 7, '0'), true, 'en', null from generate_series(1, ${count}) g`;
      await tx`insert into management.role_users (user_id, role_id) select id, ${role.id} from management.users where login like 'bench-%'`;
      await tx`insert into management.subjects (user_id, external_id, person_name, enrollment_date, attributes)
        select id, 'EXT-' || login, 'Person ' || login, now(), '{}'::jsonb from management.users where login like 'bench-%'`;
    });
    // The seeded tables only. An `analyze` of the whole database also recorded the notification
    // queue as (nearly) empty, and each pooled connection then kept a sequential-scan plan for the
    // foreign-key check of every state event it inserted (`SELECT 1 FROM messages WHERE id = $1
    // FOR KEY SHARE`, planned once per connection): ~2 ms per row by 30,000 messages, and with
    // autovacuum off nothing analyzed the table again. That was the short soak's collapse and 503s.
    await sql`analyze management.projects, management.roles, management.users, management.role_users, management.subjects`;
    const seedMs = Math.round(performance.now() - seeded);
    const [cursor] = await sql`select s.id, u.login from management.subjects s join management.users u on u.id = s.user_id order by s.id desc offset 20 limit 1`;
    return { seedMs, lastCursor: { id: cursor.id, login: cursor.login } };
  } finally {
    await sql.end();
  }
}

/**
 * One measured autocannon run of `url` (after a 2 s warm-up), each request prepared by `request`;
 * any non-2xx answer fails the benchmark. Returns req/s, p50/p99 latency and the cores `pid` used.
 */
export async function measureLoad({ label, url, connections, seconds, request, pid }) {
  assertAll2xx(`${label} warm-up`, await autocannon({ url, connections, duration: 2, requests: [request] }));
  const cpu = cpuMeter(pid);
  const r = await autocannon({ url, connections, duration: seconds, requests: [request] });
  const coresUsed = cpu();
  assertAll2xx(label, r);
  return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
}

/** The `_csrf` token of an admin UI form page. */
export const csrfOf = (html) => /name="_csrf" value="([^"]+)"/.exec(html)[1];

/**
 * `count` signed-in admin UI sessions, as that many browsers would get them at `base`/login (base:
 * the management context, e.g. `${service.base}/managementportal`); their session cookies
 * (`name=value`), each distinct. Any other answer than the sign-in's 303 fails the run.
 */
export async function signInSessions(base, password, count) {
  const cookieOf = (res) => res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.includes('=')) ?? '';
  const cookies = [];
  for (let i = 0; i < count; i++) {
    const form = await expect2xx('login page', fetch(`${base}/login`));
    const res = await fetch(`${base}/login`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form) },
      body: new URLSearchParams({ _csrf: csrfOf(await form.text()), username: 'admin', password }),
    });
    if (res.status !== 303) throw new BenchFailure(`sign-in answered ${res.status}`);
    cookies.push(cookieOf(res));
  }
  if (new Set(cookies).size !== count) throw new BenchFailure(`the ${count} sign-ins gave only ${new Set(cookies).size} distinct sessions`);
  return cookies;
}
