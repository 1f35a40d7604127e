/**
 * Brute force from 50 loopback addresses (issue 22 item 10/11): the built service (`node
 * dist/main.js`, prod profile, a fresh PostgreSQL database) over real sockets, each attacker's
 * socket bound to its own address (127.0.0.2 … 127.0.0.51; on Linux all of 127/8 is loopback).
 * Each attacker sprays password grants, one new username each (plus `admin`), and reads of
 * unknown meta-token names. A legitimate client on 127.0.0.60 signs in and pairs throughout.
 *
 * What the test configures and therefore expects:
 *  - MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE = 3 (PER_ADDRESS): per address
 *    at most 3 password grants are checked (400 invalid_grant) in a minute, every further one is
 *    429 with Retry-After (1…60 s) and `temporarily_unavailable` (each checked guess costs a
 *    bcrypt, ~5/s on this loaded 2-core host: the limit is kept small so the run stays short);
 *  - MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE = 6 (READS): per address at most 6 reads
 *    (404 for an unknown name) in a minute, then 429 with Retry-After and the meta-token error body;
 *  - each attacker sends 10 of each (ATTEMPTS): so 50 × 10 = 500 grants and 500 reads in all, of
 *    which at most 50 × 3 = 150 grants and 50 × 6 = 300 reads are accepted in a minute (one more
 *    window's worth per address only if the run outlasts a minute), and at least 350 grants and
 *    200 reads refused;
 *  - the legitimate client (its own address): every password grant of `admin` 200 with a token,
 *    every pairing (pair as admin → read the meta-token once; 5 reads, under READS) 200, before,
 *    during and after the attack.
 * Runs in the postgres project only (it needs the built dist and real PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { killServices, spawnService, started, TEST_KEYSTORE, builtService } from '../helpers/service-process.js';
import { postgresProject, requires } from '../helpers/requires.js';

const ATTACKERS = 50;
const ATTEMPTS = 10;
const PER_ADDRESS = 3;
const READS = 6;
const LEGIT_ADDRESS = '127.0.0.60';
const ADMIN_PASSWORD = 'admin-secret-1';
const MP = '/managementportal';
const CLIENTS = fileURLToPath(new URL('../../config/oauth_client_details.csv', import.meta.url));

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

/** One HTTP request over a socket bound to `from` (keep-alive agent per address). */
function request(agent: http.Agent, base: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, method, path: url.pathname + url.search,
      headers: { ...opts.headers, ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer in 20 s: ${method} ${path}`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

const agentFrom = (localAddress: string) => new http.Agent({ keepAlive: true, maxSockets: 1, localAddress });
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const grant = (agent: http.Agent, base: string, username: string, password: string) => request(agent, base, 'POST', `${MP}/oauth/token`, {
  headers: form, body: new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username, password }).toString(),
});

interface Tally { accepted: number; refused: number; other: string[]; retryAfter: number[] }
const tally = (): Tally => ({ accepted: 0, refused: 0, other: [], retryAfter: [] });

function count(t: Tally, res: Answer, acceptedStatus: number, refusedBody: (body: unknown) => boolean) {
  if (res.status === acceptedStatus) t.accepted++;
  else if (res.status === 429 && refusedBody(JSON.parse(res.body))) {
    t.refused++;
    t.retryAfter.push(Number(res.headers['retry-after']));
  } else t.other.push(`${res.status} ${res.body}`);
}

describe('brute force from 50 loopback addresses', requires(postgresProject, builtService), () => {
  let admin: Sql;
  let name: string;
  let base: string;

  beforeAll(async () => {
    const { default: postgres } = await import('postgres');
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    name = `radar_brute_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const proc = spawnService({
      PROFILE: 'prod', LOG_LEVEL: 'warn', DATABASE_URL: url.toString(), RADAR_ADMIN_PASSWORD: 'secret1',
      MANAGEMENTPORTAL_OAUTH_KEY_STORE: TEST_KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org', MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: CLIENTS, FCMSERVER_FCMSENDER: 'disabled',
      MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
      MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE: String(READS),
    });
    base = await started(proc);
  }, 60_000);
  afterAll(async () => {
    await killServices();
    await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.end();
  });

  it('refuses each address past its limit with 429 and Retry-After; a client elsewhere signs in and pairs throughout', async () => {
    const legit = agentFrom(LEGIT_ADDRESS);
    const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

    /** The legitimate client: a password grant of admin, then a pairing of `login` read once. */
    async function legitimate(login: string) {
      const signedIn = await grant(legit, base, 'admin', ADMIN_PASSWORD);
      expect(signedIn.status, signedIn.body).toBe(200);
      const token = (JSON.parse(signedIn.body) as { access_token: string }).access_token;
      const paired = await request(legit, base, 'GET', `${MP}/api/oauth-clients/pair?${new URLSearchParams({ login, clientId: 'aRMT' })}`, { headers: json(token) });
      expect(paired.status, paired.body).toBe(200);
      const read = await request(legit, base, 'GET', `${MP}/api/meta-token/${(JSON.parse(paired.body) as { tokenName: string }).tokenName}`);
      expect(read.status, read.body).toBe(200);
      expect(JSON.parse(read.body)).toMatchObject({ refreshToken: expect.any(String) });
    }

    // Set-up from the legitimate address: a project and a participant to pair.
    const first = await grant(legit, base, 'admin', ADMIN_PASSWORD);
    expect(first.status, first.body).toBe(200);
    const adminToken = (JSON.parse(first.body) as { access_token: string }).access_token;
    const project = await request(legit, base, 'POST', `${MP}/api/projects`, {
      headers: json(adminToken), body: JSON.stringify({ projectName: 'brute', description: 'd', location: 'l', organizationName: 'main' }),
    });
    expect(project.status, project.body).toBe(201);
    const { id, projectName } = JSON.parse(project.body) as { id: number; projectName: string };
    const subject = await request(legit, base, 'POST', `${MP}/api/subjects`, { headers: json(adminToken), body: JSON.stringify({ project: { id, projectName } }) });
    expect(subject.status, subject.body).toBe(201);
    const login = (JSON.parse(subject.body) as { login: string }).login;
    await legitimate(login);

    const started = Date.now();
    const grants = new Map<string, Tally>();
    const reads = new Map<string, Tally>();
    const attack = Array.from({ length: ATTACKERS }, async (_, i) => {
      const address = `127.0.0.${i + 2}`;
      const agent = agentFrom(address);
      const g = tally();
      const r = tally();
      grants.set(address, g);
      reads.set(address, r);
      for (let n = 0; n < ATTEMPTS; n++) {
        const username = n === 0 ? 'admin' : `nobody-${i}-${n}`;
        count(g, await grant(agent, base, username, 'Guess-1234'), 400,
          (body) => (body as { error?: string }).error === 'temporarily_unavailable');
        const tokenName = randomBytes(4).toString('hex');
        count(r, await request(agent, base, 'GET', `${MP}/api/meta-token/${tokenName}`), 404,
          (body) => (body as { errorCode?: string }).errorCode === 'error.tooManyRequests');
      }
      agent.destroy();
    });
    // The legitimate client pairs while the attack runs (3 times: under its own read limit).
    const during = (async () => {
      for (let k = 0; k < 3; k++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await legitimate(login);
      }
    })();
    await Promise.all([...attack, during]);
    const elapsedMs = Date.now() - started;
    await legitimate(login);
    legit.destroy();

    // Fixed one-minute windows per address: a run longer than a minute may open a second one.
    const windows = 1 + Math.floor(elapsedMs / 60_000);
    const figures = { elapsedMs, windows, grants: summary(grants), reads: summary(reads) };
    console.log(`brute force figures: ${JSON.stringify(figures)}`);

    for (const [limit, tallies] of [[PER_ADDRESS, grants], [READS, reads]] as const) {
      for (const [address, t] of tallies) {
        expect(t.other, address).toEqual([]);
        expect(t.accepted, address).toBeGreaterThanOrEqual(Math.min(limit, ATTEMPTS));
        expect(t.accepted, address).toBeLessThanOrEqual(limit * windows);
        expect(t.refused, address).toBe(ATTEMPTS - t.accepted);
        for (const s of t.retryAfter) {
          expect(s).toBeGreaterThanOrEqual(1);
          expect(s).toBeLessThanOrEqual(60);
        }
      }
      const accepted = [...tallies.values()].reduce((sum, t) => sum + t.accepted, 0);
      expect(accepted).toBeLessThanOrEqual(ATTACKERS * limit * windows);
    }
  }, 180_000);
});

function summary(tallies: Map<string, Tally>) {
  const all = [...tallies.values()];
  return {
    addresses: all.length,
    sent: all.reduce((s, t) => s + t.accepted + t.refused + t.other.length, 0),
    accepted: all.reduce((s, t) => s + t.accepted, 0),
    refused: all.reduce((s, t) => s + t.refused, 0),
    acceptedPerAddress: [Math.min(...all.map((t) => t.accepted)), Math.max(...all.map((t) => t.accepted))],
    refusedPerAddress: [Math.min(...all.map((t) => t.refused)), Math.max(...all.map((t) => t.refused))],
  };
}
