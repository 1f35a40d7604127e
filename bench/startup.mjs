// Cold start to the first answered request, and RSS at idle, against a bare start of the same
// stack in the same run (issue 30 item 5), in alternating rounds:
//  - prod (PostgreSQL): dist/main.js against bench/bare-start.mjs (Fastify listening, postgres.js
//    connected with one query answered, firebase-admin loaded, the PKCS12 keystore read with
//    node-forge). The service sends through FCM as prod does by default (FCMSERVER_FCMSENDER=auto
//    is `rest` in prod), so start-up includes loading firebase-admin: FCM_EMULATOR_HOST points at a
//    stub in this process (no credentials needed; nothing is sent during start-up). The database
//    is migrated by one unmeasured start first: every measured start is a restart, as in a
//    deployment (the bare start migrates nothing).
//  - dev (in-memory PGlite, demo data): dist/main.js against bench/bare-pglite.mjs (PGlite opening
//    and applying migrations/ through the same migrator). One unmeasured start first: the service
//    keeps a migrated snapshot in the temporary directory (src/platform/pglite-snapshot.ts), so the
//    measured starts are restarts, with the demo data loaded each time.
// Each measured start: spawn → first 200 from /actuator/health (any other answer first fails the
// run, exit 1), the process's CPU time by then, and its RSS after 2 s idle. Each round runs the
// pair in turn, the first of the pair alternating between rounds. Prints every start, the medians
// and the ratios service / bare (of the medians, and the median of the per-round ratios).
// Targets: prod ≤ 1.5 × bare and ≤ 1.5 s, idle RSS ≤ 150 MiB; dev ≤ 1.5 × bare PGlite.
//   node bench/startup.mjs [rounds=5] [profiles=prod,dev]
import { createServer } from 'node:http';
import { BenchFailure, exitOnBenchFailure, freshDatabase, median, machine, startService } from './lib.mjs';

exitOnBenchFailure();
const rounds = Number(process.argv[2] ?? process.env.ROUNDS ?? 5);
const profiles = (process.argv[3] ?? 'prod,dev').split(',');

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

/** One start of `script` with `env`: time and CPU to the first 200, RSS after 2 s idle. */
async function once(label, env, script) {
  const service = await startService(env, script);
  try {
    if (service.refusedHealth.length > 0) throw new BenchFailure(`${label}: /actuator/health answered ${service.refusedHealth.join(', ')} before its first 200`);
    await new Promise((r) => setTimeout(r, 2000)); // idle
    return { ms: Math.round(service.startupMs), cpuMs: service.startupCpuMs, rssMiB: Math.round(service.rssMiB()) };
  } finally {
    await service.stop();
  }
}

/** Alternating rounds of the service and its bare bound; medians and ratios. */
async function compare(profile, service, bare) {
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['service', 'bare'] : ['bare', 'service'];
    const run = { round: round + 1 };
    for (const who of order) run[who] = who === 'service' ? await once(`${profile} service`, service.env, 'dist/main.js') : await once(`${profile} bare`, bare.env, bare.script);
    console.error(`${profile} round ${run.round}: service ${run.service.ms} ms (cpu ${run.service.cpuMs} ms, ${run.service.rssMiB} MiB) · bare ${run.bare.ms} ms (cpu ${run.bare.cpuMs} ms, ${run.bare.rssMiB} MiB)`);
    runs.push(run);
  }
  const med = (who, key) => median(runs.map((r) => r[who][key]));
  const ratio = (key) => Math.round(100 * median(runs.map((r) => r.service[key] / r.bare[key]))) / 100;
  const summary = (who) => ({ startupMsMedian: Math.round(med(who, 'ms')), startupMsMax: Math.max(...runs.map((r) => r[who].ms)), cpuMsMedian: Math.round(med(who, 'cpuMs')), idleRssMiBMedian: Math.round(med(who, 'rssMiB')) });
  return {
    profile, rounds, service: { what: service.what, ...summary('service') }, bare: { what: bare.what, ...summary('bare') },
    ratio: { startupMs: ratio('ms'), cpuMs: ratio('cpuMs'), ofMedians: Math.round(100 * med('service', 'ms') / med('bare', 'ms')) / 100 },
    runs,
  };
}

const results = [];
if (profiles.includes('prod')) {
  const db = await freshDatabase('radar_bench_startup');
  const stub = await fcmStub();
  try {
    const keystore = { MANAGEMENTPORTAL_OAUTH_KEY_STORE: 'test/fixtures/keystores/keytool-ec.p12', MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: 'radarbase' };
    const env = { PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', FCMSERVER_FCMSENDER: 'auto', FCM_EMULATOR_HOST: stub.host, ...keystore };
    await once('prod migrating start', env, 'dist/main.js'); // unmeasured: migrates the fresh database
    results.push(await compare('prod', { what: 'dist/main.js, PostgreSQL (migrated), firebase-admin loaded: FCM to a local stub', env },
      { what: 'bench/bare-start.mjs: Fastify + pino, postgres.js select 1, firebase-admin messaging, node-forge PKCS12', env, script: new URL('./bare-start.mjs', import.meta.url).pathname }));
  } finally {
    await stub.close();
    await db.drop();
  }
}
if (profiles.includes('dev')) {
  // Unmeasured: stores the migrated PGlite snapshot (or finds it), as any earlier start would have.
  await once('dev first start', { PROFILE: 'dev' }, 'dist/main.js');
  results.push(await compare('dev', { what: 'dist/main.js, PGlite in memory, demo data', env: { PROFILE: 'dev' } },
    { what: 'bench/bare-pglite.mjs: PGlite.create() + drizzle migrate(migrations/)', env: {}, script: new URL('./bare-pglite.mjs', import.meta.url).pathname }));
}
console.log(JSON.stringify({ bench: 'startup', date: new Date().toISOString().slice(0, 10), machine: machine(), results }, null, 2));
