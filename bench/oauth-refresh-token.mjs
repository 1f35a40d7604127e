// refresh_token throughput: each connection holds one refresh-token chain and presents its newest
// token every time (tokens are single-use), the way apps refresh. Public client ManagementPortalapp
// (password + refresh_token grants), prod profile on PostgreSQL; each refresh marks the old token
// used, stores the new one, reloads the user's roles and sources and signs two ES256 JWTs.
//   node bench/oauth-refresh-token.mjs [seconds=10] [connections=10]
import { fileURLToPath } from 'node:url';
import { freshDatabase, machine, startService } from './lib.mjs';

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
 * `connections` workers for `duration` seconds, each following its own chain with keep-alive
 * fetches (autocannon cannot carry a per-connection token from one response to the next request).
 */
async function run(duration) {
  const chains = await Promise.all(Array.from({ length: connections }, firstRefreshToken));
  const latencies = [];
  let non2xx = 0;
  const until = performance.now() + duration * 1000;
  await Promise.all(chains.map(async (first) => {
    let token = first;
    while (performance.now() < until) {
      const begun = performance.now();
      const res = await fetch(url, { method: 'POST', headers: form, body: `grant_type=refresh_token&client_id=ManagementPortalapp&refresh_token=${token}` });
      const body = await res.json();
      latencies.push(performance.now() - begun);
      if (res.status === 200) token = body.refresh_token;
      else { non2xx++; token = await firstRefreshToken(); }
    }
  }));
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  return { requestsPerSecond: Math.round(latencies.length / duration), non2xx, latencyMs: { p50: at(0.5), p99: at(0.99) } };
}

try {
  await run(2); // warm-up
  const measured = await run(seconds);
  console.log(JSON.stringify({ bench: 'oauth-refresh-token', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections, ...measured }, null, 2));
} finally {
  await service.stop();
  await db.drop();
}
