// client_credentials throughput of three servers under the same load, one after the other: our token
// endpoint (prod profile on PostgreSQL, confidential client radar_restapi, steady state through the
// verified-secret cache), oidc-provider with ES256 JWT access tokens
// (bench/oauth-oidc-provider-server.mjs), and the bound (a bare Fastify endpoint: parse form + Basic,
// compare the secret, sign one ES256 JWT; bench/oauth-bound-server.mjs).
//   node bench/oauth-client-credentials.mjs [seconds=10] [connections=10]
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMeter } from './cpu-usage.mjs';
import { freshDatabase, machine, startScript, startService } from './lib.mjs';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const KEYSTORE = fileURLToPath(new URL('../test/fixtures/keystores/keytool-ec.p12', import.meta.url));
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));

const request = {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('radar_restapi:secret').toString('base64')}` },
  body: 'grant_type=client_credentials',
};

async function load(url, pid) {
  // Warm-up: the first request pays the one bcrypt of the secret; JIT settles.
  await autocannon({ url, ...request, connections, duration: 2 });
  const cpu = cpuMeter(pid);
  const r = await autocannon({ url, ...request, connections, duration: seconds });
  return {
    requestsPerSecond: Math.round(r.requests.average), non2xx: r.non2xx, errors: r.errors,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed: cpu(),
  };
}

const db = await freshDatabase('radar_bench_oauth');
const service = await startService({
  PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', FCMSERVER_FCMSENDER: 'disabled',
  MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'bench-admin', MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
});
let ours;
let bound;
try {
  ours = await load(`${service.base}/managementportal/oauth/token`, service.pid);
} finally {
  await service.stop();
  await db.drop();
}
const oidcServer = await startScript('oauth-oidc-provider-server.mjs', '/token');
let oidc;
try {
  oidc = await load(oidcServer.url, oidcServer.pid);
} finally {
  await oidcServer.stop();
}
const boundServer = await startScript('oauth-bound-server.mjs', '/oauth/token');
try {
  bound = await load(boundServer.url, boundServer.pid);
} finally {
  await boundServer.stop();
}
console.log(JSON.stringify({
  bench: 'oauth-client-credentials', date: new Date().toISOString().slice(0, 10), machine: machine(), seconds, connections,
  ours, oidcProvider: oidc, bound,
  oursVsOidcProvider: Number((ours.requestsPerSecond / oidc.requestsPerSecond).toFixed(2)),
  oursVsBound: Number((ours.requestsPerSecond / bound.requestsPerSecond).toFixed(2)),
}, null, 2));
