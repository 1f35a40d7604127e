// The admin UI's audit page (issue 31, performance): GET /managementportal/audits filtered by one
// target (a subject: its 20 newest events of 100) over AUDIT_EVENTS events (default 1,000,000,
// seeded by SQL over the last 25 days, 10,000 targets) against the management audits endpoint it
// stands beside, GET /managementportal/management/audits with the same filter and page size, in
// the same run; prod profile on PostgreSQL, pool 10, `SESSIONS` signed-in sessions (default one
// per connection, 20) presented in turn by both (the session cookie authenticates the API too).
// Checks first that the page lists the API's 20 events and is ≤ 150 KB with its CSS and JS.
// Alternating rounds (each round starts with the other); medians of req/s and of page / API
// (target ≥ 0.70). Any non-2xx answer fails the run (exit 1).
//   node bench/ui-audit-page.mjs [seconds=10] [connections=20] [rounds=ROUNDS or 3]
import postgres from 'postgres';
import {
  alternatingRounds, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, measureLoad, median, prodEnv, roundsArg, signInSessions, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 20);
const rounds = roundsArg(4);
const sessions = Number(process.env.SESSIONS ?? connections);
const EVENTS = Number(process.env.AUDIT_EVENTS ?? 1_000_000);
const TARGETS = 10_000;
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE
const ADMIN_PASSWORD = 'bench-admin';
const MAX_PAGE_BYTES = 150 * 1024;
const TARGET = 0.7;

const db = await freshDatabase('radar_bench_ui_audit');
const stops = [];
let summary;
try {
  const service = await startService(prodEnv(db.url, POOL_SIZE, ADMIN_PASSWORD));
  stops.push(() => service.stop());

  // The events, straight into the table the service migrated: kinds and actors in turn, a target
  // each of TARGETS subjects, one every ~2 s back from now, a changed field on the updates.
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const seeded = performance.now();
  try {
    await sql`insert into management.audit_events (principal, event_date, event_type, data, actor_address, target_type, target_id, changes)
      select case when g % 3 = 0 then 'admin' else 'coordinator-' || (g % 50) end,
        now() - make_interval(secs => g * 2.0),
        (array['ENTITY_CREATED', 'ENTITY_UPDATED', 'ENTITY_UPDATED', 'ENTITY_DELETED'])[1 + g % 4],
        jsonb_build_object('entityType', 'subject', 'target', 'bench-' || lpad((g % ${TARGETS})::text, 7, '0')),
        '192.0.2.' || (g % 250), 'subject', 'bench-' || lpad((g % ${TARGETS})::text, 7, '0'),
        case when g % 4 in (1, 2) then jsonb_build_object('externalId', jsonb_build_object('old', 'EXT-' || g, 'new', 'EXT-' || (g + 1))) end
      from generate_series(1, ${EVENTS}) g`;
    await sql`analyze management.audit_events`;
  } finally {
    await sql.end();
  }
  const seedMs = Math.round(performance.now() - seeded);

  const base = `${service.base}/managementportal`;
  const cookies = await signInSessions(base, ADMIN_PASSWORD, sessions);
  const get = (path) => expect2xx(path, fetch(`${base}${path}`, { headers: { cookie: cookies[0] } }));

  // The same filter for both: one subject, the seeded days.
  const day = (ms) => new Date(ms).toISOString().slice(0, 10);
  const filter = new URLSearchParams({ targetType: 'subject', target: 'bench-0000001', fromDate: day(Date.now() - 26 * 86_400_000), toDate: day(Date.now()) });
  const pagePath = `/audits?${filter}`;
  const apiPath = `/management/audits?${filter}&size=20`;
  const expected = Math.min(20, Math.floor(EVENTS / TARGETS));
  const apiEvents = await (await get(apiPath)).json();
  if (apiEvents.length !== expected) throw new BenchFailure(`the API lists ${apiEvents.length} events, not ${expected}`);
  const assets = (await (await get('/content/ui.css')).arrayBuffer()).byteLength + (await (await get('/content/ui.js')).arrayBuffer()).byteLength;
  const html = await (await get(pagePath)).text();
  const rows = (html.match(/<td class="wrap">/g) ?? []).length / 2;
  if (rows !== expected) throw new BenchFailure(`the page shows ${rows} events, not ${expected}`);
  const bytes = Buffer.byteLength(html) + assets;
  if (bytes > MAX_PAGE_BYTES) throw new BenchFailure(`the audit page is ${bytes} bytes with its CSS and JS (> 150 KB)`);
  const probe = { events: rows, htmlBytes: Buffer.byteLength(html), withCssAndJsBytes: bytes };

  const withCookie = () => {
    let next = 0;
    return { setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[next++ % cookies.length] } }) };
  };
  const page = () => measureLoad({ label: 'audit page', url: `${base}${pagePath}`, connections, seconds, request: withCookie(), pid: service.pid });
  const api = () => measureLoad({ label: 'audits API', url: `${base}${apiPath}`, connections, seconds, request: withCookie(), pid: service.pid });

  const results = await alternatingRounds(rounds, { page, api });
  for (const r of results) r.pageVsApi = Number((r.page.requestsPerSecond / r.api.requestsPerSecond).toFixed(2));
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  const ratio = medianOf((r) => r.pageVsApi, 2);
  summary = {
    bench: 'ui-audit-page', date: new Date().toISOString().slice(0, 10), machine: machine(), events: EVENTS, targets: TARGETS, seedMs, sessions, poolSize: POOL_SIZE,
    connections, seconds, page: probe, rounds: results,
    median: { page: medianOf((r) => r.page.requestsPerSecond), api: medianOf((r) => r.api.requestsPerSecond), pageVsApi: ratio },
    target: { pageVsApi: TARGET, met: ratio >= TARGET, pageBytes: MAX_PAGE_BYTES },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
