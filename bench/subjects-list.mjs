// Subject list of a big project: GET /managementportal/api/projects/radar/subjects?size=20 with
// 100,000 subjects on PostgreSQL (prod profile), 50 concurrent clients; the first page, and the
// last page reached by the keyset cursor (last.id / last.login) as the Link header gives it.
// The requests present a pool of distinct bearer tokens (one password grant of the admin each,
// `TOKENS`, default one per connection), in turn, as that many clients would; with one token
// every request would hit the same entry of the verified-token cache.
// The bound, in the same run: a bare Fastify route running the same statements with postgres.js
// against the same database, with the same pool size (bench/subjects-list-bound-server.mjs). Both
// run for the whole benchmark; the load alternates between them in rounds (each round starts with
// the other), because one sequential pass swings by ±20 % on a shared 2-core host. It prints every
// round and the medians over the rounds, of req/s and of ours / bound. Any non-2xx answer or
// request error fails the run (exit 1), and so does a bound whose answer differs from ours.
//   node bench/subjects-list.mjs [seconds=10] [connections=50] [subjects=100000] [rounds=ROUNDS or 3]
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startScript, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const count = Number(process.argv[4] ?? 100_000);
const rounds = roundsArg(5);
const tokens = Number(process.env.TOKENS ?? connections);
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE, given to both
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));
const ADMIN_PASSWORD = 'bench-admin';
const PATH = '/managementportal/api/projects/radar/subjects?size=20';

const db = await freshDatabase('radar_bench_subjects');
const stops = [];
let summary;
try {
  const service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: String(POOL_SIZE),
    MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  });
  stops.push(() => service.stop());

  // Seed straight into the tables (the service has migrated them): one project, `count` participants.
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
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
  await sql`analyze`;
  const seedMs = Math.round(performance.now() - seeded);

  const tokenPool = [];
  for (let i = 0; i < tokens; i++) {
    const res = await expect2xx('password grant', fetch(`${service.base}/managementportal/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }),
    }));
    tokenPool.push(`Bearer ${(await res.json()).access_token}`);
  }
  if (new Set(tokenPool).size !== tokens) throw new BenchFailure(`the ${tokens} password grants gave only ${new Set(tokenPool).size} distinct tokens`);

  const boundServer = await startScript('subjects-list-bound-server.mjs', '', db.url, String(POOL_SIZE));
  stops.push(() => boundServer.stop());
  const bases = { ours: service.base, bound: boundServer.url };

  // The cursor of the last page: the 20th-last subject in id order, as a Link "next" would carry it.
  const [cursor] = await sql`select s.id, u.login from management.subjects s join management.users u on u.id = s.user_id order by s.id desc offset 20 limit 1`;
  await sql.end();
  const pages = { first: PATH, last: `${PATH}&last.id=${cursor.id}&last.login=${encodeURIComponent(cursor.login)}` };

  // Both give each page the same answer: the same subjects as the same JSON, the same total.
  const probes = {};
  for (const [page, path] of Object.entries(pages)) {
    const answers = {};
    for (const [server, base] of Object.entries(bases)) {
      const res = await expect2xx(`${server} ${page} page`, fetch(`${base}${path}`, { headers: { authorization: tokenPool[0] } }));
      const text = await res.text();
      answers[server] = { body: JSON.parse(text), total: res.headers.get('x-total-count'), bytes: Buffer.byteLength(text) };
    }
    if (!isDeepStrictEqual(answers.ours.body, answers.bound.body) || answers.ours.total !== answers.bound.total) {
      throw new BenchFailure(`${page} page: the bound's answer differs from ours: ours ${JSON.stringify(answers.ours.body[0])}… (${answers.ours.body.length} items, total ${answers.ours.total}), `
        + `the bound ${JSON.stringify(answers.bound.body[0])}… (${answers.bound.body.length} items, total ${answers.bound.total})`);
    }
    probes[page] = { items: answers.ours.body.length, xTotalCount: Number(answers.ours.total), bodyBytes: { ours: answers.ours.bytes, bound: answers.bound.bytes } };
  }

  let next = 0;
  const request = { setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: tokenPool[next++ % tokenPool.length] } }) };
  async function load(label, url, pid) {
    assertAll2xx(`${label} warm-up`, await autocannon({ url, connections, duration: 2, requests: [request] }));
    const cpu = cpuMeter(pid);
    const r = await autocannon({ url, connections, duration: seconds, requests: [request] });
    const coresUsed = cpu();
    assertAll2xx(label, r);
    return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
  }
  const bothPages = async (server, pid) => ({
    firstPage: await load(`${server} first page`, `${bases[server]}${pages.first}`, pid),
    lastPage: await load(`${server} last page`, `${bases[server]}${pages.last}`, pid),
  });

  const results = await alternatingRounds(rounds, { ours: () => bothPages('ours', service.pid), bound: () => bothPages('bound', boundServer.pid) });
  const ratio = (a, b) => Number((a / b).toFixed(2));
  for (const r of results) {
    r.oursVsBound = {
      firstPage: ratio(r.ours.firstPage.requestsPerSecond, r.bound.firstPage.requestsPerSecond),
      lastPage: ratio(r.ours.lastPage.requestsPerSecond, r.bound.lastPage.requestsPerSecond),
    };
  }
  // Ratios to two decimals, rates to whole requests.
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'subjects-list', date: new Date().toISOString().slice(0, 10), machine: machine(), subjects: count, seedMs, tokens, poolSize: POOL_SIZE,
    connections, seconds, pages: probes, rounds: results,
    median: {
      ours: { firstPage: medianOf((r) => r.ours.firstPage.requestsPerSecond), lastPage: medianOf((r) => r.ours.lastPage.requestsPerSecond) },
      bound: { firstPage: medianOf((r) => r.bound.firstPage.requestsPerSecond), lastPage: medianOf((r) => r.bound.lastPage.requestsPerSecond) },
      oursVsBound: { firstPage: medianOf((r) => r.oursVsBound.firstPage, 2), lastPage: medianOf((r) => r.oursVsBound.lastPage, 2) },
    },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
