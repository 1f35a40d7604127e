// Throughput of POST …/messaging/notifications/batch with 200 notifications per request, stored on
// PostgreSQL (prod profile). Every request carries 200 new notifications (unique sourceIds), so
// every one is inserted with its state events. Target: ≥ 20,000 notifications/s.
//   node bench/batch-notifications.mjs [seconds=10] [connections=8]
import autocannon from 'autocannon';
import postgres from 'postgres';
import { freshDatabase, machine, startService } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 8);
const BATCH = 200;

const db = await freshDatabase('radar_bench_batch');
const service = await startService({ PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: '16' });
try {
  const json = { 'content-type': 'application/json' };
  await fetch(`${service.base}/projects`, { method: 'POST', headers: json, body: JSON.stringify({ projectId: 'bench' }) });
  await fetch(`${service.base}/projects/bench/users`, {
    method: 'POST', headers: json,
    body: JSON.stringify({ subjectId: 'sub-1', fcmToken: 'bench-token', enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'UTC', language: 'en' }),
  });

  let seq = 0;
  const batchBody = () => JSON.stringify({
    notifications: Array.from({ length: BATCH }, () => {
      seq += 1;
      return {
        title: 'Questionnaire time', body: 'Please complete your questionnaire', ttlSeconds: 3600,
        sourceId: `src-${seq}`, type: 'PHQ8', sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt',
        scheduledTime: 1893488400 + (seq % 86400), additionalData: { action: 'QUESTIONNAIRE_TRIGGER' },
      };
    }),
  });

  const result = await autocannon({
    url: `${service.base}/projects/bench/users/sub-1/messaging/notifications/batch?schedule=false`,
    method: 'POST',
    headers: json,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, body: batchBody() }) }],
  });

  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const [{ n }] = await sql`select count(*)::int as n from appserver.messages`;
  await sql.end();
  const ok = result['2xx'];
  const perSecond = (n / result.duration).toFixed(0);
  console.log(JSON.stringify({
    bench: 'batch-notifications', date: new Date().toISOString().slice(0, 10), machine: machine(),
    seconds: result.duration, connections, requests2xx: ok, non2xx: result.non2xx, errors: result.errors,
    notificationsStored: n, notificationsPerSecond: Number(perSecond),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  }, null, 2));
} finally {
  await service.stop();
  await db.drop();
}
