// The admin UI's project page (issue 19): GET /managementportal/projects/radar (the subjects tab,
// 20 of 100,000 subjects) against the API call it is built on, GET
// /managementportal/api/projects/radar/subjects?size=20, in the same run; prod profile on
// PostgreSQL, `SESSIONS` signed-in sessions (default 20, one per connection) presented in turn by
// both (the session cookie authenticates the API too, so both pay the same authentication). The
// first page, and the last one through the keyset cursor of "Load more" (`last.id`/`last.login`,
// `shown`), which must be as fast as the first. Alternating rounds (each round starts with the
// other); medians of req/s and of page / API. Any non-2xx answer fails the run (exit 1), and so
// does a page that does not list the API's 20 subjects or is over 150 KB with its CSS and JS.
//   node bench/ui-project-page.mjs [seconds=10] [connections=20] [subjects=100000] [rounds=ROUNDS or 3]
import {
  alternatingRounds, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, measureLoad, median, prodEnv, roundsArg, seedBigProject, signInSessions, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 20);
const count = Number(process.argv[4] ?? 100_000);
const rounds = roundsArg(5);
const sessions = Number(process.env.SESSIONS ?? connections);
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE
const ADMIN_PASSWORD = 'bench-admin';
const MAX_PAGE_BYTES = 150 * 1024;

const db = await freshDatabase('radar_bench_ui_project');
const stops = [];
let summary;
try {
  const service = await startService(prodEnv(db.url, POOL_SIZE, ADMIN_PASSWORD));
  stops.push(() => service.stop());

  const { seedMs, lastCursor: cursor } = await seedBigProject(db.url, count);

  // Signed-in sessions, as `sessions` browsers would get them at /login.
  const base = `${service.base}/managementportal`;
  const cookies = await signInSessions(base, ADMIN_PASSWORD, sessions);

  const lastCursor = `last.id=${cursor.id}&last.login=${encodeURIComponent(cursor.login)}`;
  const paths = {
    page: { first: '/projects/radar', last: `/projects/radar?${lastCursor}&shown=${count - 20}` },
    api: { first: '/api/projects/radar/subjects?size=20', last: `/api/projects/radar/subjects?size=20&${lastCursor}` },
  };

  // The page lists what the API answers (the same 20 logins) and stays under 150 KB with its CSS and JS.
  const get = (path) => expect2xx(path, fetch(`${base}${path}`, { headers: { cookie: cookies[0] } }));
  const assets = (await (await get('/content/ui.css')).arrayBuffer()).byteLength + (await (await get('/content/ui.js')).arrayBuffer()).byteLength;
  const probes = {};
  for (const which of ['first', 'last']) {
    const api = await (await get(paths.api[which])).json();
    const html = await (await get(paths.page[which])).text();
    const listed = [...html.matchAll(/<tr>\s*<td>(?:<a [^>]*>)?([^<]+)(?:<\/a>)?<\/td>/g)].map((m) => m[1]);
    if (JSON.stringify(listed) !== JSON.stringify(api.map((s) => s.login))) {
      throw new BenchFailure(`${which} page lists ${listed.length} subjects (${listed[0]}…), the API ${api.length} (${api[0]?.login}…)`);
    }
    const bytes = Buffer.byteLength(html) + assets;
    if (bytes > MAX_PAGE_BYTES) throw new BenchFailure(`${which} page is ${bytes} bytes with its CSS and JS (> 150 KB)`);
    probes[which] = { subjects: listed.length, htmlBytes: Buffer.byteLength(html), withCssAndJsBytes: bytes, count: /id="subjects-count"[^>]*>([^<]+)</.exec(html)[1] };
  }

  let next = 0;
  const request = { setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[next++ % cookies.length] } }) };
  const load = (label, url) => measureLoad({ label, url, connections, seconds, request, pid: service.pid });
  const bothPages = async (kind) => ({
    firstPage: await load(`${kind} first page`, `${base}${paths[kind].first}`),
    lastPage: await load(`${kind} last page`, `${base}${paths[kind].last}`),
  });

  const results = await alternatingRounds(rounds, { page: () => bothPages('page'), api: () => bothPages('api') });
  const ratio = (a, b) => Number((a / b).toFixed(2));
  for (const r of results) {
    r.pageVsApi = {
      firstPage: ratio(r.page.firstPage.requestsPerSecond, r.api.firstPage.requestsPerSecond),
      lastPage: ratio(r.page.lastPage.requestsPerSecond, r.api.lastPage.requestsPerSecond),
    };
    r.pageLastVsFirst = ratio(r.page.lastPage.requestsPerSecond, r.page.firstPage.requestsPerSecond);
  }
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'ui-project-page', date: new Date().toISOString().slice(0, 10), machine: machine(), subjects: count, seedMs, sessions, poolSize: POOL_SIZE,
    connections, seconds, pages: probes, rounds: results,
    median: {
      page: { firstPage: medianOf((r) => r.page.firstPage.requestsPerSecond), lastPage: medianOf((r) => r.page.lastPage.requestsPerSecond) },
      api: { firstPage: medianOf((r) => r.api.firstPage.requestsPerSecond), lastPage: medianOf((r) => r.api.lastPage.requestsPerSecond) },
      pageVsApi: { firstPage: medianOf((r) => r.pageVsApi.firstPage, 2), lastPage: medianOf((r) => r.pageVsApi.lastPage, 2) },
      pageLastVsFirst: medianOf((r) => r.pageLastVsFirst, 2),
    },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
