// The admin UI's subject page (issue 31 item 6): GET /managementportal/projects/radar/subjects/{login}
// of a subject with 50 revisions (made through the "Edit subject" form) against the API calls it is
// built on, GET /managementportal/api/subjects/{login} plus GET …/{login}/revisions?size=101&sort=id,desc
// (one page view = these two calls: the API's req/s are halved), in the same run; prod profile on
// PostgreSQL, `SESSIONS` signed-in sessions (default 20, one per connection) presented in turn by
// both (the session cookie authenticates the API too). Alternating rounds (each round starts with
// the other); medians of req/s and of page / API (target ≥ 0.70). Any non-2xx answer fails the run
// (exit 1), and so does a page that does not show the 50 revisions or is over 150 KB with its CSS and JS.
//   node bench/ui-subject-page.mjs [seconds=10] [connections=20] [rounds=ROUNDS or 3]
import {
  alternatingRounds, BenchFailure, csrfOf, expect2xx, exitOnBenchFailure, freshDatabase, machine, measureLoad, median, prodEnv, roundsArg, seedBigProject, signInSessions, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 20);
const rounds = roundsArg(4);
const sessions = Number(process.env.SESSIONS ?? connections);
const REVISIONS = 50;
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE
const ADMIN_PASSWORD = 'bench-admin';
const MAX_PAGE_BYTES = 150 * 1024;
const TARGET = 0.7;

const db = await freshDatabase('radar_bench_ui_subject');
const stops = [];
let summary;
try {
  const service = await startService(prodEnv(db.url, POOL_SIZE, ADMIN_PASSWORD));
  stops.push(() => service.stop());
  // The project `radar` with a few subjects; the first one gets the history.
  await seedBigProject(db.url, 100);
  const login = 'bench-0000001';

  const base = `${service.base}/managementportal`;
  const cookies = await signInSessions(base, ADMIN_PASSWORD, sessions);
  const get = (path) => expect2xx(path, fetch(`${base}${path}`, { headers: { cookie: cookies[0] } }));

  // 50 revisions, each an edit through the "Edit subject" form (external ID and an attribute).
  const pagePath = `/projects/radar/subjects/${login}`;
  const edited = performance.now();
  for (let n = 1; n <= REVISIONS; n++) {
    const csrf = csrfOf(await (await get(`${pagePath}/edit`)).text());
    const res = await fetch(`${base}${pagePath}/edit`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies[0] },
      body: new URLSearchParams({ _csrf: csrf, externalId: `EXT-${n}`, personName: `Person ${n}`, attributes: `visit=${n}\nsite=bench` }),
    });
    if (res.status !== 303) throw new BenchFailure(`edit ${n} answered ${res.status}`);
  }
  const editMs = Math.round(performance.now() - edited);

  const apiPaths = [`/api/subjects/${login}`, `/api/subjects/${login}/revisions?size=101&sort=id,desc`];
  const revisions = await (await get(apiPaths[1])).json();
  if (revisions.length !== REVISIONS) throw new BenchFailure(`the API lists ${revisions.length} revisions, not ${REVISIONS}`);
  const assets = (await (await get('/content/ui.css')).arrayBuffer()).byteLength + (await (await get('/content/ui.js')).arrayBuffer()).byteLength;
  const html = await (await get(pagePath)).text();
  const rows = (html.match(/<ul class="changes">/g) ?? []).length;
  if (rows !== REVISIONS || !html.includes(`${REVISIONS} revisions`)) throw new BenchFailure(`the page shows ${rows} changed revisions, not ${REVISIONS}`);
  const bytes = Buffer.byteLength(html) + assets;
  if (bytes > MAX_PAGE_BYTES) throw new BenchFailure(`the subject page is ${bytes} bytes with its CSS and JS (> 150 KB)`);
  const probe = { revisions: rows, htmlBytes: Buffer.byteLength(html), withCssAndJsBytes: bytes };

  const withCookie = (path) => {
    let next = 0;
    return { setupRequest: (req) => ({ ...req, ...(path ? { path: path(next) } : {}), headers: { ...req.headers, cookie: cookies[next++ % cookies.length] } }) };
  };
  const page = () => measureLoad({ label: 'subject page', url: `${base}${pagePath}`, connections, seconds, request: withCookie(), pid: service.pid });
  // The API pair: each connection's requests alternate between the subject and its revisions.
  const api = async () => {
    const r = await measureLoad({
      label: 'subject API + revisions', url: `${base}${apiPaths[0]}`, connections, seconds,
      request: withCookie((n) => `/managementportal${apiPaths[n % 2]}`), pid: service.pid,
    });
    return { ...r, requestsPerSecond: r.requestsPerSecond, pageViewsPerSecond: Math.round(r.requestsPerSecond / 2) };
  };

  const results = await alternatingRounds(rounds, { page, api });
  for (const r of results) r.pageVsApi = Number((r.page.requestsPerSecond / r.api.pageViewsPerSecond).toFixed(2));
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  const ratio = medianOf((r) => r.pageVsApi, 2);
  summary = {
    bench: 'ui-subject-page', date: new Date().toISOString().slice(0, 10), machine: machine(), revisions: REVISIONS, editMs, sessions, poolSize: POOL_SIZE,
    connections, seconds, page: probe, rounds: results,
    median: {
      page: medianOf((r) => r.page.requestsPerSecond),
      api: { requestsPerSecond: medianOf((r) => r.api.requestsPerSecond), pageViewsPerSecond: medianOf((r) => r.api.pageViewsPerSecond) },
      pageVsApi: ratio,
    },
    target: { pageVsApi: TARGET, met: ratio >= TARGET, pageBytes: MAX_PAGE_BYTES },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
