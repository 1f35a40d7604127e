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
import { isDeepStrictEqual } from 'node:util';
import {
  alternatingRounds, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, measureLoad, median, prodEnv, roundsArg, seedBigProject, startScript, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const count = Number(process.argv[4] ?? 100_000);
const rounds = roundsArg(5);
const tokens = Number(process.env.TOKENS ?? connections);
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE, given to both
const ADMIN_PASSWORD = 'bench-admin';
const PATH = '/managementportal/api/projects/radar/subjects?size=20';

const db = await freshDatabase('radar_bench_subjects');
const stops = [];
let summary;
try {
  const service = await startService(prodEnv(db.url, POOL_SIZE, ADMIN_PASSWORD));
  stops.push(() => service.stop());

  const { seedMs, lastCursor: cursor } = await seedBigProject(db.url, count);

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
  const load = (label, url, pid) => measureLoad({ label, url, connections, seconds, request, pid: pid });
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
