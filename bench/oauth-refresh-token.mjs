// refresh_token throughput: each connection holds one refresh-token chain and presents its newest
// token every time (tokens are single-use), the way apps refresh. Public client ManagementPortalapp
// (password + refresh_token grants), prod profile on PostgreSQL; each refresh marks the old token
// used, stores the new one, reloads the user's roles and sources and signs two ES256 JWTs.
// For scale, the client_credentials bound (bench/oauth-bound-server.mjs) under the same load.
// Both run for the whole benchmark; the load alternates between them in rounds (each round starts
// with the other), because one sequential pass swings by ±20 % on a shared 2-core host. It prints
// every round and the medians over the rounds. Any non-2xx answer or request error fails the run
// (exit 1).
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

/** The bound of the client_credentials benchmark (one ES256 signature per request), same load, for scale. */
async function bound(url, pid) {
  const request = {
    url, connections, method: 'POST', body: 'grant_type=client_credentials',
    headers: { ...form, authorization: `Basic ${Buffer.from('radar_restapi:secret').toString('base64')}` },
  };
  assertAll2xx('bound warm-up', await autocannon({ ...request, duration: 2 }));
  const cpu = cpuMeter(pid);
  const r = await autocannon({ ...request, duration: seconds });
  const coresUsed = cpu();
  assertAll2xx('bound', r);
  return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
}

const db = await freshDatabase('radar_bench_refresh');
const stops = [];
let summary;
try {
  const service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret',
    MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  });
  stops.push(() => service.stop());
  const boundServer = await startScript('oauth-bound-server.mjs', '/oauth/token');
  stops.push(() => boundServer.stop());
  const url = `${service.base}/managementportal/oauth/token`;

  const results = await alternatingRounds(rounds, {
    ours: async () => {
      await refreshes('ours warm-up', url, service.pid, 2);
      return refreshes('ours', url, service.pid, seconds);
    },
    bound: () => bound(boundServer.url, boundServer.pid),
  });
  for (const r of results) r.oursVsBound = Number((r.ours.requestsPerSecond / r.bound.requestsPerSecond).toFixed(2));
  // Ratios to two decimals, rates to whole requests.
  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'oauth-refresh-token', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, rounds: results,
    median: {
      oursRefreshesPerSecond: medianOf((r) => r.ours.requestsPerSecond),
      boundRequestsPerSecond: medianOf((r) => r.bound.requestsPerSecond),
      oursVsBound: medianOf((r) => r.oursVsBound, 2),
    },
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
