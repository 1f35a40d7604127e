// App-server token security (issue 21 "Performance"): GET /projects/radar/users/sub-1 on
// PostgreSQL, prod profile, 50 connections, in alternating rounds of three contestants:
//   open     a service with SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED=false, no token;
//   verified a service with security on, a participant's tokens (in-process keys; a pool of
//            `TOKENS` distinct tokens, default one per connection, presented in turn);
//   missing  the same secured service without a token: every answer must be 401 (the one
//            contestant whose non-2xx answers are expected; any other status fails the run).
// Both services run on the same database throughout. The secured one also trusts a key endpoint
// in this process (SECURITY_RADAR_MANAGEMENTPORTAL_URL): after the rounds, 10,000 tokens with an
// unknown `kid` are sent and the endpoint's fetches during that burst are counted (target ≤ 1).
// Last, the verifier alone (dist/appserver/security/verifier.js, in this process): ES256
// verifications/s of distinct tokens (none cached).
// Prints every round and the medians of req/s and p99, and the ratios verified/open, missing/open.
//   node bench/appserver-security.mjs [seconds=10] [connections=50] [rounds=ROUNDS or 3]
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import bcrypt from '@node-rs/bcrypt';
import { SignJWT } from 'jose';
import postgres from 'postgres';
import { cpuMeter } from './cpu-usage.mjs';
import {
  alternatingRounds, assertAll2xx, BenchFailure, expect2xx, exitOnBenchFailure, freshDatabase, machine, median, roundsArg, startService,
} from './lib.mjs';

exitOnBenchFailure();
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const rounds = roundsArg(4);
const tokens = Number(process.env.TOKENS ?? connections);
const PATH = '/projects/radar/users/sub-1';
const UNKNOWN_KID_TOKENS = 10_000;

const clientsDir = mkdtempSync(join(tmpdir(), 'bench-appserver-clients-'));
const CLIENTS = join(clientsDir, 'oauth_client_details.csv');
writeFileSync(CLIENTS, [
  'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove',
  'aRMT;res_ManagementPortal,res_AppServer;;MEASUREMENT.CREATE,SUBJECT.UPDATE,SUBJECT.READ,PROJECT.READ;refresh_token,authorization_code,password;;;43200;7948800;{};',
  '',
].join('\n'));

// Another "ManagementPortal" whose key endpoint the secured service trusts; it counts its fetches.
const foreignKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
let keyFetches = 0;
const keyServer = createServer((req, res) => {
  keyFetches += 1;
  const spki = foreignKey.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  res.writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ keys: [{ alg: 'ES256', kty: 'EC', value: `-----BEGIN EC PUBLIC KEY-----\n${spki}\n-----END EC PUBLIC KEY-----` }] }));
});
await new Promise((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
const keyServerUrl = `http://127.0.0.1:${keyServer.address().port}/managementportal`;

const db = await freshDatabase('radar_bench_appserver_security');
const stops = [() => new Promise((resolve) => keyServer.close(resolve))];
let summary;
try {
  const common = { PROFILE: 'prod', DATABASE_URL: db.url, RADAR_ADMIN_PASSWORD: 'bench-secret', MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS, SCHEDULER_ENABLED: 'false' };
  const open = await startService({ ...common, SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false' });
  stops.push(() => open.stop());
  const secured = await startService({ ...common, SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', SECURITY_RADAR_MANAGEMENTPORTAL_URL: keyServerUrl });
  stops.push(() => secured.stop());

  // The participant sub-1 of project radar, in both domains.
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const hash = await bcrypt.hash('bench-participant', 4);
  await sql.begin(async (tx) => {
    const [project] = await tx`insert into management.projects (project_name, description, location, organization_id)
      select 'radar', 'bench', 'here', id from management.organizations where name = 'main' returning id`;
    const [role] = await tx`insert into management.roles (authority_name, project_id) values ('ROLE_PARTICIPANT', ${project.id}) returning id`;
    const [user] = await tx`insert into management.users (login, activated, lang_key, password_hash) values ('sub-1', true, 'en', ${hash}) returning id`;
    await tx`insert into management.role_users (user_id, role_id) values (${user.id}, ${role.id})`;
    await tx`insert into management.subjects (user_id) values (${user.id})`;
  });
  await sql.end();
  const json = { 'content-type': 'application/json' };
  await expect2xx('create project', fetch(`${open.base}/projects`, { method: 'POST', headers: json, body: JSON.stringify({ projectId: 'radar' }) }));
  await expect2xx('create user', fetch(`${open.base}/projects/radar/users`, {
    method: 'POST', headers: json,
    body: JSON.stringify({ subjectId: 'sub-1', fcmToken: 'bench-token', enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'Europe/London', language: 'en' }),
  }));

  const tokenPool = [];
  for (let i = 0; i < tokens; i++) {
    const res = await expect2xx('password grant', fetch(`${secured.base}/managementportal/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'aRMT', username: 'sub-1', password: 'bench-participant' }),
    }));
    tokenPool.push(`Bearer ${(await res.json()).access_token}`);
  }
  // The verified request answers what the open one does.
  const openBody = await (await expect2xx('open probe', fetch(`${open.base}${PATH}`))).json();
  const securedBody = await (await expect2xx('verified probe', fetch(`${secured.base}${PATH}`, { headers: { authorization: tokenPool[0] } }))).json();
  if (openBody.id !== securedBody.id) throw new BenchFailure('the secured service answered another user');

  let next = 0;
  const withToken = { setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: tokenPool[next++ % tokenPool.length] } }) };
  const summarize = (r, coresUsed) => ({ requestsPerSecond: Math.round(r.requests.average), latencyMs: { p50: r.latency.p50, p99: r.latency.p99 }, coresUsed });
  async function load(label, base, pid, requests) {
    const url = `${base}${PATH}`;
    assertAll2xx(`${label} warm-up`, await autocannon({ url, connections, duration: 2, requests }));
    const cpu = cpuMeter(pid);
    const r = await autocannon({ url, connections, duration: seconds, requests });
    const coresUsed = cpu();
    assertAll2xx(label, r);
    return summarize(r, coresUsed);
  }
  /** The deliberately unauthenticated contestant: every answer must be 401, nothing else. */
  async function load401(label, base, pid) {
    const url = `${base}${PATH}`;
    const check = (r) => {
      const other = Object.entries(r.statusCodeStats ?? {}).filter(([status]) => status !== '401');
      if (other.length > 0 || r.errors > 0 || r.non2xx === 0) {
        throw new BenchFailure(`${label}: expected only 401, got ${JSON.stringify(r.statusCodeStats)} (${r.errors} errors)`);
      }
    };
    check(await autocannon({ url, connections, duration: 2 }));
    const cpu = cpuMeter(pid);
    const r = await autocannon({ url, connections, duration: seconds });
    const coresUsed = cpu();
    check(r);
    return summarize(r, coresUsed);
  }

  const results = await alternatingRounds(rounds, {
    open: () => load('open', open.base, open.pid, undefined),
    verified: () => load('verified', secured.base, secured.pid, [withToken]),
    missing: () => load401('missing token', secured.base, secured.pid),
  });
  const ratio = (a, b) => Number((a / b).toFixed(2));
  for (const r of results) {
    r.verifiedVsOpen = ratio(r.verified.requestsPerSecond, r.open.requestsPerSecond);
    r.missingVsOpen = ratio(r.missing.requestsPerSecond, r.open.requestsPerSecond);
    r.p99DeltaMs = r.verified.latencyMs.p99 - r.open.latencyMs.p99;
  }

  // 10,000 tokens naming a kid nobody publishes, 50 at a time: each fails, and the secured
  // service may fetch each remote source at most once a minute.
  const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const strangers = await Promise.all(Array.from({ length: 100 }, (_, i) => new SignJWT({ aud: ['res_AppServer'], scope: ['SUBJECT.READ'], sub: 'sub-1', exp, jti: String(i) })
    .setProtectedHeader({ alg: 'ES256', kid: `unknown-${i}` }).sign(stranger.privateKey)));
  const fetchesBefore = keyFetches;
  let sent = 0;
  const burstStarted = performance.now();
  await Promise.all(Array.from({ length: connections }, async () => {
    while (sent < UNKNOWN_KID_TOKENS) {
      const i = sent++;
      const res = await fetch(`${secured.base}${PATH}`, { headers: { authorization: `Bearer ${strangers[i % strangers.length]}` } });
      await res.arrayBuffer();
      if (res.status !== 401) throw new BenchFailure(`unknown-kid token ${i}: expected 401, got ${res.status}`);
    }
  }));
  const unknownKid = { tokens: UNKNOWN_KID_TOKENS, seconds: Number(((performance.now() - burstStarted) / 1000).toFixed(1)), keyFetches: keyFetches - fetchesBefore };

  // The verifier alone: distinct ES256 tokens (so none is a cache hit) against one in-process key.
  const { createTokenVerifier } = await import('../dist/appserver/security/verifier.js');
  const { fixedKeySource } = await import('../dist/appserver/security/key-sources.js');
  const own = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const verifier = createTokenVerifier({
    sources: [fixedKeySource('bench', [{ kid: 'k', algs: new Set(['ES256']), key: own.publicKey }])],
    resourceName: 'res_AppServer', now: Date.now, maxCached: 1,
  });
  const distinct = await Promise.all(Array.from({ length: 20_000 }, (_, i) => new SignJWT({ aud: ['res_AppServer'], scope: ['SUBJECT.READ'], sub: 'sub-1', exp, jti: String(i) })
    .setProtectedHeader({ alg: 'ES256', kid: 'k' }).sign(own.privateKey)));
  const verifyStarted = performance.now();
  for (const t of distinct) await verifier.verify(t);
  const es256VerificationsPerSecond = Math.round(distinct.length / ((performance.now() - verifyStarted) / 1000));

  const medianOf = (f, digits = 0) => Number(median(results.map(f)).toFixed(digits));
  summary = {
    bench: 'appserver-security', date: new Date().toISOString().slice(0, 10), machine: machine(), path: PATH, connections, seconds, tokens,
    rounds: results,
    median: {
      requestsPerSecond: { open: medianOf((r) => r.open.requestsPerSecond), verified: medianOf((r) => r.verified.requestsPerSecond), missing: medianOf((r) => r.missing.requestsPerSecond) },
      p99Ms: { open: medianOf((r) => r.open.latencyMs.p99), verified: medianOf((r) => r.verified.latencyMs.p99), missing: medianOf((r) => r.missing.latencyMs.p99) },
      verifiedVsOpen: medianOf((r) => r.verifiedVsOpen, 2),
      missingVsOpen: medianOf((r) => r.missingVsOpen, 2),
      p99DeltaMs: medianOf((r) => r.p99DeltaMs, 1),
    },
    unknownKid,
    es256VerificationsPerSecond,
    targets: 'verifiedVsOpen ≥ 0.85, p99DeltaMs ≤ 1, missingVsOpen ≥ 1, unknownKid.keyFetches ≤ 1',
  };
} finally {
  for (const stop of stops.reverse()) await stop();
  await db.drop();
}
console.log(JSON.stringify(summary, null, 2));
