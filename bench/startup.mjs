// Cold start to the first answered request, and RSS at idle, for the dev profile (PGlite, demo
// data) and the prod profile (PostgreSQL). Target (prod): ≤ 1.5 s and ≤ 150 MB RSS at idle.
// The prod run sends through FCM as prod does by default (FCMSERVER_FCMSENDER=auto is `rest` in
// prod), so start-up includes loading firebase-admin: FCM_EMULATOR_HOST points at a stub in this
// process (no credentials needed; nothing is sent during start-up). The first answer must be a
// 200; any other answer to the health probe fails the run (exit 1).
//   node bench/startup.mjs [runs=5]
import { createServer } from 'node:http';
import { BenchFailure, exitOnBenchFailure, freshDatabase, median, machine, startService } from './lib.mjs';

exitOnBenchFailure();
const runs = Number(process.argv[2] ?? 5);

/** Answers FCM sends as test/helpers/fcm-stub.ts does (a .ts module; this script runs on plain node). */
async function fcmStub() {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `projects/demo-radar/messages/${n}` }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: `127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

async function measure(label, env) {
  const startups = [];
  const rss = [];
  for (let i = 0; i < runs; i++) {
    const service = await startService(env);
    try {
      if (service.refusedHealth.length > 0) throw new BenchFailure(`${label}: /actuator/health answered ${service.refusedHealth.join(', ')} before its first 200`);
      startups.push(service.startupMs);
      await new Promise((r) => setTimeout(r, 2000)); // idle
      rss.push(service.rssMiB());
    } finally {
      await service.stop();
    }
  }
  return { profile: label, runs, startupMsMedian: Math.round(median(startups)), startupMsMax: Math.round(Math.max(...startups)), idleRssMiBMedian: Math.round(median(rss)) };
}

const db = await freshDatabase('radar_bench_startup');
const stub = await fcmStub();
try {
  const dev = await measure('dev (PGlite, demo data)', { PROFILE: 'dev' });
  const prod = await measure('prod (PostgreSQL, firebase-admin loaded: FCM to a local stub)', {
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', FCMSERVER_FCMSENDER: 'auto', FCM_EMULATOR_HOST: stub.host,
  });
  console.log(JSON.stringify({ bench: 'startup', date: new Date().toISOString().slice(0, 10), machine: machine(), results: [dev, prod] }, null, 2));
} finally {
  await stub.close();
  await db.drop();
}
