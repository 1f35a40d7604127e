// refresh_token throughput: each connection holds one refresh-token chain and presents its newest
// token every time (tokens are single-use), the way apps refresh. Public client ManagementPortalapp
// (password + refresh_token grants), prod profile on PostgreSQL; each refresh marks the old token
// used, stores the new one, reloads the user's roles and sources and signs two ES256 JWTs.
// Then, for scale, the client_credentials bound (bench/oauth-bound-server.mjs) under the same load.
//   node bench/oauth-refresh-token.mjs [seconds=10] [connections=10]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMeter } from './cpu-usage.mjs';
import { freshDatabase, machine, startScript, startService } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));
const ADMIN_PASSWORD = 'bench-admin';

const db = await freshDatabase('radar_bench_refresh');
const service = await startService({
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret',
  MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
});
const url = `${service.base}/managementportal/oauth/token`;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function firstRefreshToken() {
  const res = await fetch(url, { method: 'POST', headers: form, body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }) });
  const body = await res.json();
  if (!body.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
  return body.refresh_token;
}

/**
 * autocannon with `connections` connections for `duration` seconds. Tokens are single-use: a pool
 * holds the valid ones; each request takes one and its response puts the successor back, so every
 * chain is followed with its newest token (a client has one request in flight, so the pool never
 * runs dry). A refused request puts a fresh chain's token back instead.
 */
async function run(duration) {
  const pool = await Promise.all(Array.from({ length: connections }, firstRefreshToken));
  const spare = await Promise.all(Array.from({ length: connections }, firstRefreshToken));
  const cpu = cpuMeter(service.pid);
  const r = await autocannon({
    url, connections, duration,
    requests: [{
      method: 'POST', headers: form,
      setupRequest: (req) => ({ ...req, body: `grant_type=refresh_token&client_id=ManagementPortalapp&refresh_token=${pool.pop()}` }),
      onResponse: (status, body) => { pool.push(status === 200 ? JSON.parse(body).refresh_token : spare.pop()); },
    }],
  });
  return {
    requestsPerSecond: Math.round(r.requests.average), non2xx: r.non2xx, errors: r.errors,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed: cpu(),
  };
}

/** The bound of the client_credentials benchmark (one ES256 signature per request), same load, for scale. */
async function bound() {
  const server = await startScript('oauth-bound-server.mjs', '/oauth/token');
  try {
    const request = {
      url: server.url, connections, method: 'POST', body: 'grant_type=client_credentials',
      headers: { ...form, authorization: `Basic ${Buffer.from('radar_restapi:secret').toString('base64')}` },
    };
    await autocannon({ ...request, duration: 2 });
    const r = await autocannon({ ...request, duration: seconds });
    return { requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 } };
  } finally {
    await server.stop();
  }
}

let measured;
try {
  await run(2); // warm-up
  measured = await run(seconds);
} finally {
  await service.stop();
  await db.drop();
}
console.log(JSON.stringify({
  bench: 'oauth-refresh-token', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, ...measured, bound: await bound(),
}, null, 2));
