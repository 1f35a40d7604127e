// client_credentials throughput of three servers under the same load: our token endpoint (prod
// profile on PostgreSQL, confidential client radar_restapi, steady state through the
// verified-secret cache, audit events written), oidc-provider with ES256 JWT access tokens
// (bench/oauth-oidc-provider-server.mjs), and the bound (a bare Fastify endpoint: parse form +
// Basic, compare the secret, sign one ES256 JWT; bench/oauth-bound-server.mjs).
// All three run for the whole benchmark; the load alternates between them in rounds (each round
// starts one server later), because one sequential pass swings by ±20 % on a shared 2-core host.
// It prints every round and the medians over the rounds: of each server's req/s, and of the
// per-round ratios. Any non-2xx answer or request error fails the run (exit 1).
//   node bench/oauth-client-credentials.mjs [seconds=10] [connections=10] [rounds=ROUNDS or 3]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMeter } from './cpu-usage.mjs';
import { alternatingRounds, assertAll2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startScript, startService } from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const rounds = roundsArg(4);
const WARM_UP_SECONDS = Number(process.env.WARM_UP_SECONDS ?? 2); // bench/smoke.mjs shortens it
const KEYSTORE = fileURLToPath(new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url));
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));

const request = {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('radar_restapi:secret').toString('base64')}` },
  body: 'grant_type=client_credentials',
};

async function load(label, url, pid) {
  // Warm-up: the first request pays the one bcrypt of the secret; JIT settles.
  assertAll2xx(`${label} warm-up`, await autocannon({ url, ...request, connections, duration: WARM_UP_SECONDS }));
  const cpu = cpuMeter(pid);
  const r = await autocannon({ url, ...request, connections, duration: seconds });
  const coresUsed = cpu();
  assertAll2xx(label, r);
  return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
}

const ratio = (a, b) => Number((a / b).toFixed(2));
const db = await freshDatabase('radar_bench_oauth');
const stops = [];
let summary;
try {
  const service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', FCMSERVER_FCMSENDER: 'disabled',
    MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin', MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  });
  stops.push(() => service.stop());
  const oidcServer = await startScript('oauth-oidc-provider-server.mjs', '/token');
  stops.push(() => oidcServer.stop());
  const boundServer = await startScript('oauth-bound-server.mjs', '/oauth/token');
  stops.push(() => boundServer.stop());

  const results = await alternatingRounds(rounds, {
    ours: () => load('ours', `${service.base}/managementportal/oauth/token`, service.pid),
    oidcProvider: () => load('oidc-provider', oidcServer.url, oidcServer.pid),
    bound: () => load('bound', boundServer.url, boundServer.pid),
  });
  for (const r of results) {
    r.oursVsOidcProvider = ratio(r.ours.requestsPerSecond, r.oidcProvider.requestsPerSecond);
    r.oursVsBound = ratio(r.ours.requestsPerSecond, r.bound.requestsPerSecond);
  }
  // Ratios to two decimals, rates to whole requests.
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'oauth-client-credentials', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, rounds: results,
    median: {
      oursRequestsPerSecond: medianOf((r) => r.ours.requestsPerSecond),
      oidcProviderRequestsPerSecond: medianOf((r) => r.oidcProvider.requestsPerSecond),
      boundRequestsPerSecond: medianOf((r) => r.bound.requestsPerSecond),
      oursVsOidcProvider: medianOf((r) => r.oursVsOidcProvider, 2),
      oursVsBound: medianOf((r) => r.oursVsBound, 2),
    },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
