/**
 * Remote token key sources over HTTP (issue 21 items 2–3): MP and JWK key sets, endpoints that are
 * down, hang, answer errors or garbage, keys that rotate; at most one fetch a minute per source
 * (on a fake clock), whatever the load; a bad source never delays a token another one verifies.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedKeySource, remoteKeySource } from '../../../src/appserver/security/key-sources.js';
import { keyFromPem } from '../../../src/appserver/security/keys.js';
import { createTokenVerifier } from '../../../src/appserver/security/verifier.js';
import { captureLog } from '../../helpers/log-capture.js';

const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = (k: KeyObject) => (k.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
/** A key set as ManagementPortal 2.1 publishes it (clients.md §3.1). */
const mpKeySet = (...keys: KeyObject[]) => ({ keys: keys.map((k) => ({ alg: 'ES256', kty: 'EC', value: `-----BEGIN EC PUBLIC KEY-----\n${spki(k)}\n-----END EC PUBLIC KEY-----`, x5c: [], x5t: null })) });

type Mode = { kind: 'keys'; body: unknown } | { kind: 'status'; status: number } | { kind: 'hang' } | { kind: 'garbage' };

interface Stub { url: string; mode: Mode; hits: number; server: Server; authorization?: string | undefined }

async function stub(mode: Mode): Promise<Stub> {
  const s = { mode, hits: 0 } as Stub;
  s.server = createServer((req, res) => {
    s.hits += 1;
    s.authorization = req.headers.authorization;
    const m = s.mode;
    if (m.kind === 'hang') return;
    if (m.kind === 'status') return res.writeHead(m.status).end('nope');
    if (m.kind === 'garbage') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [{"kty":"EC","value":"-----BEGIN EC PUBLIC KEY-----\\nAAAA\\n-----END EC PUBLIC KEY-----"}]}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(m.body));
  });
  // Idle connections stay open: a test that holds the event loop for seconds (10,000 verifications
  // on a busy machine) would otherwise reuse a socket the server closed meanwhile ("fetch failed").
  s.server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
  s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/oauth/token_key`;
  return s;
}

const stubs: Stub[] = [];
afterAll(async () => {
  for (const s of stubs) {
    s.server.closeAllConnections();
    await new Promise((resolve) => s.server.close(resolve));
  }
});
const newStub = async (mode: Mode) => {
  const s = await stub(mode);
  stubs.push(s);
  return s;
};

const tokenOf = (key: KeyObject, claims: Record<string, unknown> = {}, kid?: string) => new SignJWT({
  aud: ['res_AppServer'], scope: ['SUBJECT.READ'], sub: 'sub-1', exp: Math.floor(Date.now() / 1000) + 3600, ...claims,
}).setProtectedHeader({ alg: 'ES256', ...(kid ? { kid } : {}) }).sign(key);

function setup(urls: string[], opts: { timeoutMs?: number; now?: () => number } = {}) {
  const log = captureLog();
  const logger = pino({ level: 'warn' }, log.stream);
  const now = opts.now ?? Date.now;
  let forget = () => {};
  const remotes = urls.map((url) => remoteKeySource({ url, log: logger, now, timeoutMs: opts.timeoutMs, onChange: () => forget() }));
  const verifier = createTokenVerifier({ sources: remotes, resourceName: 'res_AppServer', now });
  forget = verifier.forget;
  return { remotes, verifier, log };
}

describe('remote key sources', () => {
  let other: ReturnType<typeof ecKey>;
  beforeAll(() => { other = ecKey(); });

  it('an MP key set verifies that portal\'s tokens; a JWK set too', async () => {
    const mp = await newStub({ kind: 'keys', body: mpKeySet(other.publicKey) });
    const jwkKey = ecKey();
    const jwk = await newStub({ kind: 'keys', body: { keys: [{ ...jwkKey.publicKey.export({ format: 'jwk' }), kid: 'j1', alg: 'ES256' }] } });
    const { verifier } = setup([mp.url, jwk.url]);
    expect((await verifier.verify(await tokenOf(other.privateKey))).claims.sub).toBe('sub-1');
    expect((await verifier.verify(await tokenOf(jwkKey.privateKey, {}, 'j1'))).claims.sub).toBe('sub-1');
  });

  it('down, non-2xx, hanging or garbage: WARN or ERROR naming the URL, and the other source still verifies at once', async () => {
    const good = await newStub({ kind: 'keys', body: mpKeySet(other.publicKey) });
    const down = await newStub({ kind: 'status', status: 503 });
    const hang = await newStub({ kind: 'hang' });
    const garbage = await newStub({ kind: 'garbage' });
    const closedUrl = 'http://127.0.0.1:1/oauth/token_key';
    const { remotes, verifier, log } = setup([closedUrl, down.url, hang.url, garbage.url, good.url], { timeoutMs: 300 });
    await Promise.all(remotes.map((r) => r.refresh()));
    // "At once": the good source's keys verify without asking any source again (no timing
    // assertion: on a busy machine a fixed budget fails for the wrong reason).
    const stubs = [good, down, hang, garbage];
    const hitsBefore = stubs.map((s) => s.hits);
    expect((await verifier.verify(await tokenOf(other.privateKey))).claims.sub).toBe('sub-1');
    expect(stubs.map((s) => s.hits)).toEqual(hitsBefore);
    const lines = log.lines();
    const about = (url: string) => lines.filter((l) => l.url === url);
    expect(about(closedUrl).map((l) => l.level)).toEqual([40]);
    expect(about(down.url)).toEqual([expect.objectContaining({ level: 40, status: 503 })]);
    expect(about(hang.url)).toEqual([expect.objectContaining({ level: 40, reason: 'no answer in 300 ms' })]);
    expect(about(garbage.url).map((l) => l.level)).toEqual([50]);
  });

  it('keys that rotate: a token of the new key fails once, the source loads again, the token passes', async () => {
    let clock = 1_000_000;
    const first = ecKey();
    const second = ecKey();
    const rotating = await newStub({ kind: 'keys', body: mpKeySet(first.publicKey) });
    const { remotes, verifier } = setup([rotating.url], { now: () => clock });
    await remotes[0]!.refresh();
    expect(rotating.hits).toBe(1);
    const old = await tokenOf(first.privateKey);
    await verifier.verify(old);
    rotating.mode = { kind: 'keys', body: mpKeySet(second.publicKey) };
    clock += 61_000;
    expect((await verifier.verify(await tokenOf(second.privateKey))).claims.sub).toBe('sub-1');
    expect(rotating.hits).toBe(2);
    // The old key is gone: its token, verified before, is forgotten and refused now.
    await expect(verifier.verify(old)).rejects.toThrow();
  });

  it('at most one fetch a minute per source, whatever the load (fake clock): 10,000 unknown-kid tokens', async () => {
    let clock = 5_000_000;
    const s = await newStub({ kind: 'keys', body: mpKeySet(other.publicKey) });
    // The stub answers in this process, after the 10,000 verifications, which on a busy machine
    // take longer than the default fetch timeout.
    const { remotes, verifier } = setup([s.url], { now: () => clock, timeoutMs: 120_000 });
    await remotes[0]!.refresh();
    expect(s.hits).toBe(1);
    const stranger = ecKey();
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => tokenOf(stranger.privateKey, { jti: String(i) }, `unknown-${i}`)));
    clock += 60_001;
    const results = await Promise.allSettled(Array.from({ length: 10_000 }, (_, i) => verifier.verify(tokens[i % tokens.length]!)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(s.hits).toBe(2);
    clock += 30_000;
    await expect(verifier.verify(tokens[0]!)).rejects.toThrow();
    expect(s.hits).toBe(2);
    clock += 30_001;
    await expect(verifier.verify(tokens[0]!)).rejects.toThrow();
    expect(s.hits).toBe(3);
  });

  it('keys are kept at most a day: then they load again in the background', async () => {
    let clock = 9_000_000;
    const s = await newStub({ kind: 'keys', body: mpKeySet(other.publicKey) });
    const { remotes, verifier } = setup([s.url], { now: () => clock });
    await remotes[0]!.refresh();
    clock += 24 * 3600 * 1000 + 1;
    expect(remotes[0]!.stale()).toBe(true);
    expect(remotes[0]!.keys()).toEqual([]);
    // Fails (its keys are too old) and, in passing, loads again; the next try passes.
    await verifier.verify(await tokenOf(other.privateKey, { jti: 'x' }));
    expect(s.hits).toBe(2);
    expect(remotes[0]!.stale()).toBe(false);
  });
});

describe('a key endpoint URL with user info (issue 28 item 4)', () => {
  it('sends it as Basic auth, and no log line or source name holds it', async () => {
    const key = ecKey();
    const up = await newStub({ kind: 'keys', body: mpKeySet(key.publicKey) });
    const down = await newStub({ kind: 'status', status: 503 });
    const withUser = (s: Stub, password: string) => s.url.replace('http://', `http://key-user:${password}@`);
    const { remotes, verifier, log } = setup([withUser(up, 'k3y-pw-5e1a'), withUser(down, 'k3y-pw-9b0c')]);
    expect((await verifier.verify(await tokenOf(key.privateKey))).claims.sub).toBe('sub-1');
    expect(up.authorization).toBe(`Basic ${Buffer.from('key-user:k3y-pw-5e1a').toString('base64')}`);
    expect(down.hits).toBeGreaterThan(0);
    expect(log.lines().filter((line) => line.msg === 'token key endpoint answered an error')).toEqual([
      expect.objectContaining({ url: down.url, status: 503 }),
    ]);
    expect(remotes.map((r) => r.name)).toEqual([up.url, down.url]);
    expect(log.text()).not.toContain('k3y-pw');
  });
});

describe('fixed sources', () => {
  it('a PEM (radar_is.yml publicKeys) verifies; a source that never loads does not keep it waiting', async () => {
    const k = ecKey();
    const hang = await newStub({ kind: 'hang' });
    const log = pino({ level: 'silent' });
    const verifier = createTokenVerifier({
      sources: [remoteKeySource({ url: hang.url, log, now: Date.now, timeoutMs: 5000 }), fixedKeySource('pem', [keyFromPem(k.publicKey.export({ format: 'pem', type: 'spki' }) as string)])],
      resourceName: 'res_AppServer', now: Date.now,
    });
    const started = Date.now();
    await verifier.verify(await tokenOf(k.privateKey));
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
