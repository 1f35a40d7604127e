// refresh_token throughput: each connection holds one refresh-token chain and presents its newest
// token every time (tokens are single-use), the way apps refresh. Public client ManagementPortalapp
// (password + refresh_token grants), prod profile on PostgreSQL; each refresh marks the old token
// used, stores the new one, reloads the user's roles and sources and signs two ES256 JWTs.
// Against the bound (issue 30 item 3, bench/oauth-refresh-bound-server.mjs): a bare Fastify route
// with postgres.js that verifies the presented refresh JWT, rotates its row in one committed
// statement and signs two ES256 JWTs with the claims of the service's admin token (40 scopes), on
// the same database with the same pool size (DATABASE_POOL_SIZE, default 10), under the same load.
// Both run for the whole benchmark; the load alternates between them in rounds (each round starts
// with the other), because one sequential pass swings by ±20 % on a shared 2-core host. It prints
// every round, the CPU each used per refresh, and the medians of the rates and of ours / bound. Any
// non-2xx answer or request error fails the run (exit 1).
//   node bench/oauth-refresh-token.mjs [seconds=10] [connections=10] [rounds=ROUNDS or 3]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startScript, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const rounds = roundsArg(4);
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));
const ADMIN_PASSWORD = 'bench-admin';
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);
const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function firstRefreshToken(url) {
  const res = await expect2xx('password grant', fetch(url, {
    method: 'POST', headers: form, body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }),
  }));
  const body = await res.json();
  if (!body.refresh_token) throw new BenchFailure(`password grant: no refresh token: ${JSON.stringify(body)}`);
  return body.refresh_token;
}

/**
 * autocannon with `connections` connections for `duration` seconds. Tokens are single-use: a pool
 * holds the valid ones; each request takes one and its response puts the successor back, so every
 * chain is followed with its newest token (a client has one request in flight, so the pool never
 * runs dry). A refused request fails the run; until autocannon stops, a fresh chain's token
 * replaces it so the other connections go on.
 */
async function refreshes(label, url, pid, duration) {
  const pool = await Promise.all(Array.from({ length: connections }, () => firstRefreshToken(url)));
  const spare = await Promise.all(Array.from({ length: connections }, () => firstRefreshToken(url)));
  const cpu = cpuMeter(pid);
  const r = await autocannon({
    url, connections, duration,
    requests: [{
      method: 'POST', headers: form,
      setupRequest: (req) => ({ ...req, body: `grant_type=refresh_token&client_id=ManagementPortalapp&refresh_token=${pool.pop()}` }),
      onResponse: (status, body) => { pool.push(status === 200 ? JSON.parse(body).refresh_token : spare.pop()); },
    }],
  });
  const coresUsed = cpu();
  assertAll2xx(label, r);
  return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
}

/** CPU microseconds per request of a process that used `cores` over `seconds` at `rps`. */
const cpuPerRequest = (cores, rps) => Math.round((cores / rps) * 1e6);

const db = await freshDatabase('radar_bench_refresh');
const stops = [];
let summary;
try {
  const service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', DATABASE_POOL_SIZE: String(POOL_SIZE),
    MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  });
  stops.push(() => service.stop());
  const url = `${service.base}/managementportal/oauth/token`;
  // The bound signs what the service signs: the claims of the admin's access token.
  const sample = await expect2xx('password grant', fetch(url, {
    method: 'POST', headers: form, body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }),
  }));
  const claims = JSON.parse(Buffer.from((await sample.json()).access_token.split('.')[1], 'base64url').toString('utf8'));
  const boundServer = await startScript('oauth-refresh-bound-server.mjs', '/oauth/token', db.url, String(POOL_SIZE), JSON.stringify(claims));
  stops.push(() => boundServer.stop());

  const results = await alternatingRounds(rounds, {
    ours: async () => {
      await refreshes('ours warm-up', url, service.pid, 2);
      return refreshes('ours', url, service.pid, seconds);
    },
    bound: async () => {
      await refreshes('bound warm-up', boundServer.url, boundServer.pid, 2);
      return refreshes('bound', boundServer.url, boundServer.pid, seconds);
    },
  });
  for (const r of results) {
    r.oursVsBound = Number((r.ours.requestsPerSecond / r.bound.requestsPerSecond).toFixed(2));
    for (const name of ['ours', 'bound']) r[name].cpuMicrosecondsPerRefresh = cpuPerRequest(r[name].coresUsed.service, r[name].requestsPerSecond);
  }
  // Ratios to two decimals, rates to whole requests.
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'oauth-refresh-token', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, rounds: results,
    median: {
      oursRefreshesPerSecond: medianOf((r) => r.ours.requestsPerSecond),
      boundRefreshesPerSecond: medianOf((r) => r.bound.requestsPerSecond),
      oursVsBound: medianOf((r) => r.oursVsBound, 2),
      oursCpuMicrosecondsPerRefresh: medianOf((r) => r.ours.cpuMicrosecondsPerRefresh),
      boundCpuMicrosecondsPerRefresh: medianOf((r) => r.bound.cpuMicrosecondsPerRefresh),
    },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
