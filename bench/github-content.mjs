// Cached GitHub proxy: GET /github/content?url=<https://api.github.com/…> on PostgreSQL (prod
// profile), as the questionnaire app pulls its protocol through it: the branch, the recursive tree
// and the protocol blob, in turn, every one a copy the service already holds (fresh for the
// default SECURITY_GITHUB_CACHE_DURATION of an hour). GITHUB_API_URL points at the GitHub stub
// (test/helpers/github-stub.ts) in this process; the run fails if the stub is asked anything
// during the measurement (the figure would then include GitHub) and on any non-2xx answer or
// request error. The requests carry a client-credentials token of `radar_appserver_client`, as the app server's
// security asks once it is on. Rounds of `seconds` each; it prints every round and the median.
//   npx tsx bench/github-content.mjs [seconds=10] [connections=50] [rounds=ROUNDS or 3]
// (tsx: the stub is TypeScript.)  Target: ≥ 5,000 requests/s.
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startGithubStub, DEFAULT_REPO } from '../test/helpers/github-stub.ts';
import { cpuMeter } from './cpu-usage.mjs';
import { assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startService } from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const rounds = roundsArg(4);
const CLIENTS = fileURLToPath(new URL('../config/oauth_client_details.csv', import.meta.url));
const ADMIN_PASSWORD = 'bench-admin';
const API = 'https://api.github.com';

const stub = await startGithubStub();
const protocol = JSON.stringify({ name: 'bench', protocols: Array.from({ length: 3 }, (_, i) => ({ name: `Q${i}`, protocol: { repeatProtocol: { unit: 'day', amount: 1 } } })) }, null, 2);
stub.setFiles({ 'radar/protocol.json': protocol, 'radar/site/a/protocol.json': protocol, 'README.md': '# bench' });

const db = await freshDatabase('radar_bench_github');
let summary;
let service;
try {
  service = await startService({
    PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', GITHUB_API_URL: stub.url,
    MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD, MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS,
  });
  const token = await expect2xx('password grant', fetch(`${service.base}/managementportal/oauth/token`, {
    method: 'POST',
    // The app server's own client (resource res_AppServer, scope SUBJECT.READ): G1 needs SUBJECT.READ.
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('radar_appserver_client:secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }));
  const authorization = `Bearer ${(await token.json()).access_token}`;

  // Walk the repository once through the service (as aRMT does), which stores the three copies.
  const get = async (url) => (await expect2xx(`GET ${url}`, fetch(`${service.base}/github/content?url=${encodeURIComponent(url)}`, { headers: { authorization } }))).json();
  const branchUrl = `${API}/repos/${DEFAULT_REPO}/branches/master`;
  const branch = await get(branchUrl);
  const treeUrl = `${branch.commit.commit.tree.url}?recursive=true`;
  const tree = await get(treeUrl);
  const blobUrl = tree.tree.find((e) => e.path === 'radar/protocol.json').url;
  const blob = await get(blobUrl);
  if (Buffer.from(blob.content, 'base64').toString('utf8') !== protocol) throw new BenchFailure('the proxied blob is not the protocol');
  const paths = [branchUrl, treeUrl, blobUrl].map((url) => `/github/content?url=${encodeURIComponent(url)}`);

  const requests = paths.map((path) => ({ method: 'GET', path, headers: { authorization } }));
  async function round(label) {
    const asked = stub.requests.length;
    const cpu = cpuMeter(service.pid);
    const r = await autocannon({ url: service.base, connections, duration: seconds, requests });
    const coresUsed = cpu();
    assertAll2xx(label, r);
    if (stub.requests.length !== asked) throw new BenchFailure(`${label}: GitHub (the stub) was asked ${stub.requests.length - asked} times during the measurement`);
    return { requestsPerSecond: Math.round(r.requests.average), ok: r['2xx'], bytesPerRequest: Math.round(r.throughput.total / r.requests.total), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed };
  }
  assertAll2xx('warm-up', await autocannon({ url: service.base, connections, duration: 2, requests }));
  const results = [];
  for (let i = 1; i <= rounds; i++) results.push({ round: i, ...(await round(`round ${i}`)) });
  summary = {
    bench: 'github-content', date: new Date().toISOString().slice(0, 10), machine: machine(), connections, seconds,
    urls: ['branch', 'recursive tree', 'protocol blob'], bodyBytes: { branch: JSON.stringify(branch).length, tree: JSON.stringify(tree).length, blob: JSON.stringify(blob).length },
    rounds: results, median: { requestsPerSecond: median(results.map((r) => r.requestsPerSecond)) },
  };
} finally {
  await service?.stop();
  await stub.close();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
