// Throughput of POST …/messaging/notifications/batch with 200 notifications per request, stored on
// PostgreSQL (prod profile), against its bound in the same run. Every request carries 200 new
// notifications (unique sourceIds), so every one is inserted with its state events. Target
// (issue 30 item 2): the default path ≥ 0.40 × the bound.
//  - default (no `schedule` parameter, i.e. schedule=true): each notification is stored SCHEDULED
//    (so it enters the partial due index `messages_due_idx`) with two state events, ADDED and
//    SCHEDULED, and the scheduler hears of them; this is the headline figure.
//  - `schedule=false`, reported beside it: stored ADDED, one state event, not in the due index.
//  - the bound: the same notifications (the same columns and values the service stores, a
//    distinct dedupe key each) written straight into `appserver.messages` by postgres.js in this
//    process, one multi-row INSERT of 200 rows per statement, as many connections as the load
//    has; the rows alone, without their state events, validation or HTTP.
// Each path gets its own fresh database and service; the service and the bound take turns in
// rounds (`rounds`, default 3; a 1 s warm-up of each first), and the medians of each and of the
// per-round ratios are printed. The run fails (exit 1) on any non-2xx answer or request error, and
// when the rows and events stored are not what the answered requests carried.
//   node bench/batch-notifications.mjs [seconds=5] [connections=8] [paths=default,unscheduled] [rounds=3]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 8);
const paths = (process.argv[4] ?? 'default,unscheduled').split(',');
const rounds = roundsArg(5);
const BATCH = 200;
const PATHS = {
  default: { query: '', state: 'SCHEDULED', eventsPerNotification: 2 },
  unscheduled: { query: '?schedule=false', state: 'ADDED', eventsPerNotification: 1 },
};
for (const p of paths) if (!PATHS[p]) throw new BenchFailure(`unknown path ${p}: one of ${Object.keys(PATHS).join(', ')}`);

let seq = 0;
/** The next notification as a client sends it: a new sourceId each. */
function nextNotification() {
  seq += 1;
  return {
    title: 'Questionnaire time', body: 'Please complete your questionnaire', ttlSeconds: 3600,
    // In 2030: SCHEDULED rows stay in the due index and are not sent during the run.
    sourceId: `src-${seq}`, type: 'PHQ8', sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt',
    scheduledTime: 1893488400 + (seq % 86400), additionalData: { action: 'QUESTIONNAIRE_TRIGGER' },
  };
}

const batchBody = () => JSON.stringify({ notifications: Array.from({ length: BATCH }, nextNotification) });

/** The bound's rows: what the service stores for the same notifications, column by column. */
const boundRows = (userId, state) => Array.from({ length: BATCH }, () => {
  const n = nextNotification();
  return {
    kind: 'notification', user_id: userId, source_id: n.sourceId, scheduled_time: new Date(n.scheduledTime * 1000),
    ttl_seconds: n.ttlSeconds, fcm_message_id: randomUUID(), app_package: n.appPackage, source_type: n.sourceType,
    data: n.additionalData, title: n.title, body: n.body, type: n.type, state, dedupe_key: n.sourceId,
  };
});

/** CPU seconds (user + system) of a process, from /proc; 0 once it is gone. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * CPU time per stored notification, in µs: of the service, of this process (the bound's client)
 * and of the PostgreSQL backends serving this database (not the whole server's: other work on a
 * shared host comes and goes). On a loaded host these hold better than the rates.
 */
async function cpuPerNotification(sql, servicePid) {
  const backends = async () => (await sql`select pid from pg_stat_activity where datname = current_database()`).map((r) => r.pid);
  const before = new Map((await backends()).map((pid) => [pid, cpuSeconds(pid)]));
  const start = { service: cpuSeconds(servicePid), driver: cpuSeconds(process.pid) };
  return async (notifications) => {
    let database = 0;
    for (const pid of await backends()) database += cpuSeconds(pid) - (before.get(pid) ?? 0);
    const us = (s) => Math.round((s * 1e6) / notifications);
    return { service: us(cpuSeconds(servicePid) - start.service), database: us(database), driver: us(cpuSeconds(process.pid) - start.driver) };
  };
}

async function measure(path) {
  const { query, state, eventsPerNotification } = PATHS[path];
  const db = await freshDatabase('radar_bench_batch');
  // Measures the notification path alone: app-server token security (on by default in prod) is off.
  const service = await startService({ PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: '16', SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false' });
  // `max` = the load's connections; `data` goes as jsonb (postgres.js serializes objects as JSON).
  const sql = postgres(db.url, { max: connections, onnotice: () => {} });
  try {
    const json = { 'content-type': 'application/json' };
    await expect2xx('create project', fetch(`${service.base}/projects`, { method: 'POST', headers: json, body: JSON.stringify({ projectId: 'bench' }) }));
    for (const subjectId of ['sub-1', 'bound']) {
      await expect2xx(`create user ${subjectId}`, fetch(`${service.base}/projects/bench/users`, {
        method: 'POST', headers: json,
        body: JSON.stringify({ subjectId, fcmToken: `token-${subjectId}`, enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'UTC', language: 'en' }),
      }));
    }
    const [{ id: serviceUser }] = await sql`select id from appserver.users where subject_id = 'sub-1'`;
    const [{ id: boundUser }] = await sql`select id from appserver.users where subject_id = 'bound'`;
    let answered = 0; // 2xx answers of every service run, warm-up included

    async function serviceRun(duration) {
      const cpu = cpuMeter(service.pid);
      const cpuUs = await cpuPerNotification(sql, service.pid);
      const result = await autocannon({
        url: `${service.base}/projects/bench/users/sub-1/messaging/notifications/batch${query}`,
        method: 'POST', headers: json, connections, duration,
        requests: [{ setupRequest: (req) => ({ ...req, body: batchBody() }) }],
      });
      const coresUsed = cpu();
      assertAll2xx(`batch (${path})`, result);
      answered += result['2xx'];
      return {
        notificationsPerSecond: Math.round(result['2xx'] * BATCH / result.duration),
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99 }, coresUsed,
        cpuUsPerNotification: await cpuUs(result['2xx'] * BATCH),
      };
    }

    async function boundRun(duration) {
      const cpu = cpuMeter(service.pid);
      const cpuUs = await cpuPerNotification(sql, service.pid);
      const started = performance.now();
      const until = started + duration * 1000;
      let inserted = 0;
      await Promise.all(Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const rows = boundRows(boundUser, state);
          await sql`insert into appserver.messages ${sql(rows)}`;
          inserted += rows.length;
        }
      }));
      const elapsed = (performance.now() - started) / 1000;
      const coresUsed = cpu();
      return { notificationsPerSecond: Math.round(inserted / elapsed), coresUsed, cpuUsPerNotification: await cpuUs(inserted) };
    }

    await serviceRun(1);
    await boundRun(1);
    const perRound = await alternatingRounds(rounds, { service: () => serviceRun(seconds), bound: () => boundRun(seconds) });
    for (const r of perRound) r.ratio = Number((r.service.notificationsPerSecond / r.bound.notificationsPerSecond).toFixed(3));

    // One statement, one snapshot: a request still committing when autocannon stops must not be
    // counted in one table and not yet in the other (its rows and events commit together).
    const [{ n, inState, events }] = await sql`select
      (select count(*)::int from appserver.messages where user_id = ${serviceUser}) as n,
      (select count(*)::int from appserver.messages where user_id = ${serviceUser} and state = ${state}) as "inState",
      (select count(*)::int from appserver.message_state_events e join appserver.messages m on m.id = e.message_id where m.user_id = ${serviceUser}) as events`;
    // Every answered request stored its 200 rows; a request cut off at the end may have stored its rows unanswered.
    if (n < answered * BATCH || inState !== n || events !== n * eventsPerNotification) {
      throw new BenchFailure(`batch (${path}): ${answered} answered requests, ${n} rows stored (${inState} ${state}), ${events} state events; expected ≥ ${answered * BATCH} rows, all ${state}, ${eventsPerNotification} events each`);
    }
    return {
      path: path === 'default' ? 'default (schedule=true: SCHEDULED, 2 state events, due index)' : 'schedule=false (ADDED, 1 state event)',
      notificationsStored: n, stateEvents: events,
      medians: {
        serviceNotificationsPerSecond: median(perRound.map((r) => r.service.notificationsPerSecond)),
        boundNotificationsPerSecond: median(perRound.map((r) => r.bound.notificationsPerSecond)),
        serviceOverBound: median(perRound.map((r) => r.ratio)),
        serviceCpuUsPerNotification: median(perRound.map((r) => r.service.cpuUsPerNotification.service)),
        serviceDatabaseCpuUsPerNotification: median(perRound.map((r) => r.service.cpuUsPerNotification.database)),
        boundClientCpuUsPerNotification: median(perRound.map((r) => r.bound.cpuUsPerNotification.driver)),
        boundDatabaseCpuUsPerNotification: median(perRound.map((r) => r.bound.cpuUsPerNotification.database)),
      },
      rounds: perRound,
    };
  } finally {
    await sql.end();
    await service.stop();
    await db.drop();
  }
}

const results = [];
for (const path of paths) results.push(await measure(path));
console.log(JSON.stringify({
  bench: 'batch-notifications', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, batch: BATCH, rounds,
  bound: 'postgres.js multi-row INSERT of the same 200 rows per statement into appserver.messages, no state events, same connections',
  results,
}, null, 2));
