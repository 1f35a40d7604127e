// Throughput of POST …/messaging/notifications/batch with 200 notifications per request, stored on
// PostgreSQL (prod profile). Every request carries 200 new notifications (unique sourceIds), so
// every one is inserted with its state events. Target: ≥ 20,000 notifications/s on the default
// path.
//  - default (no `schedule` parameter, i.e. schedule=true): each notification is stored SCHEDULED
//    (so it enters the partial due index `messages_due_idx`) with two state events, ADDED and
//    SCHEDULED, and the scheduler hears of them; this is the headline figure.
//  - `schedule=false`, reported beside it: stored ADDED, one state event, not in the due index.
// Each path gets its own fresh database and service, one after the other. The run fails (exit 1)
// on any non-2xx answer or request error, and when the rows and events stored are not what the
// answered requests carried.
//   node bench/batch-notifications.mjs [seconds=10] [connections=8] [paths=default,unscheduled]
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import { assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, startService } from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 8);
const paths = (process.argv[4] ?? 'default,unscheduled').split(',');
const BATCH = 200;
const PATHS = {
  default: { query: '', state: 'SCHEDULED', eventsPerNotification: 2 },
  unscheduled: { query: '?schedule=false', state: 'ADDED', eventsPerNotification: 1 },
};
for (const p of paths) if (!PATHS[p]) throw new BenchFailure(`unknown path ${p}: one of ${Object.keys(PATHS).join(', ')}`);

async function measure(path) {
  const { query, state, eventsPerNotification } = PATHS[path];
  const db = await freshDatabase('radar_bench_batch');
  // Measures the notification path alone: app-server token security (on by default in prod) is off.
  const service = await startService({ PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: '16', SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false' });
  try {
    const json = { 'content-type': 'application/json' };
    await expect2xx('create project', fetch(`${service.base}/projects`, { method: 'POST', headers: json, body: JSON.stringify({ projectId: 'bench' }) }));
    await expect2xx('create user', fetch(`${service.base}/projects/bench/users`, {
      method: 'POST', headers: json,
      body: JSON.stringify({ subjectId: 'sub-1', fcmToken: 'bench-token', enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'UTC', language: 'en' }),
    }));

    let seq = 0;
    const batchBody = () => JSON.stringify({
      notifications: Array.from({ length: BATCH }, () => {
        seq += 1;
        return {
          title: 'Questionnaire time', body: 'Please complete your questionnaire', ttlSeconds: 3600,
          // In 2030: SCHEDULED rows stay in the due index and are not sent during the run.
          sourceId: `src-${seq}`, type: 'PHQ8', sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt',
          scheduledTime: 1893488400 + (seq % 86400), additionalData: { action: 'QUESTIONNAIRE_TRIGGER' },
        };
      }),
    });

    const cpu = cpuMeter(service.pid);
    const result = await autocannon({
      url: `${service.base}/projects/bench/users/sub-1/messaging/notifications/batch${query}`,
      method: 'POST',
      headers: json,
      connections,
      duration: seconds,
      requests: [{ setupRequest: (req) => ({ ...req, body: batchBody() }) }],
    });
    const coresUsed = cpu();
    assertAll2xx(`batch (${path})`, result);

    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    // One statement, one snapshot: a request still committing when autocannon stops must not be
    // counted in one table and not yet in the other (its rows and events commit together).
    const [{ n, inState, events }] = await sql`select
      (select count(*)::int from appserver.messages) as n,
      (select count(*)::int from appserver.messages where state = ${state}) as "inState",
      (select count(*)::int from appserver.message_state_events) as events`;
    await sql.end();
    // Every answered request stored its 200 rows; a request cut off at the end may have stored its rows unanswered.
    if (n < result['2xx'] * BATCH || inState !== n || events !== n * eventsPerNotification) {
      throw new BenchFailure(`batch (${path}): ${result['2xx']} answered requests, ${n} rows stored (${inState} ${state}), ${events} state events; expected ≥ ${result['2xx'] * BATCH} rows, all ${state}, ${eventsPerNotification} events each`);
    }
    return {
      path: path === 'default' ? 'default (schedule=true: SCHEDULED, 2 state events, due index)' : 'schedule=false (ADDED, 1 state event)',
      seconds: result.duration, requests2xx: result['2xx'], notificationsStored: n, stateEvents: events,
      notificationsPerSecond: Math.round(n / result.duration),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99 }, coresUsed,
    };
  } finally {
    await service.stop();
    await db.drop();
  }
}

const results = [];
for (const path of paths) results.push(await measure(path));
console.log(JSON.stringify({
  bench: 'batch-notifications', date: new Date().toISOString().slice(0, 10), machine: machine(), connections, batch: BATCH, results,
}, null, 2));
