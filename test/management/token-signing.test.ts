/** Signing and verification on the key set's crypto worker thread (token-signing.ts, crypto-worker.ts). */
import { sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJWK, jwtVerify } from 'jose';
import { loadKeySet, type KeySet } from '../../src/management/oauth/keystore.js';
import { closeSigning, createSigner, verifyToken } from '../../src/management/oauth/token-signing.js';
import { BearerUnauthorized, createBearerAuth } from '../../src/management/security/bearer-auth.js';
import type { Database } from '../../src/platform/database.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/keystores/${name}`, import.meta.url));
const now = () => Math.floor(Date.now() / 1000);
let ec: KeySet;
let rsa: KeySet;

beforeAll(async () => {
  const silent = { warn: () => {} };
  ec = await loadKeySet({ profile: 'prod', file: fixture('keytool-ec.p12'), password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, silent);
  const aliases = await loadKeySet({ profile: 'prod', file: fixture('openssl-rsa.p12'), password: 'radarbase', signingAlias: 'x', checkingAliases: [] }, silent).catch((err: Error) => err.message);
  const rsaAlias = /aliases: ([^,)]+)/.exec(String(aliases))![1]!;
  rsa = await loadKeySet({ profile: 'prod', file: fixture('openssl-rsa.p12'), password: 'radarbase', signingAlias: rsaAlias, checkingAliases: [] }, silent);
});
afterAll(async () => { await closeSigning(ec); await closeSigning(rsa); });

describe('token signing', () => {
  it('signs many tokens at once, each with its own claims, verifiable by jose and by verifyToken', async () => {
    const signer = createSigner(ec);
    // Several microtask checkpoints and event-loop turns, so several batches are in flight.
    const tokens = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
      return signer.sign({ sub: `user-${i}`, exp: now() + 60 });
    }));
    const key = await importJWK({ ...ec.verification[0]!.jwk, alg: 'ES256' }, 'ES256');
    for (const [i, token] of tokens.entries()) {
      expect((await jwtVerify(token, key)).payload.sub).toBe(`user-${i}`);
    }
    const claims = await Promise.all(tokens.map((t) => verifyToken(t, ec, now())));
    expect(claims.map((c) => c.sub)).toEqual(tokens.map((_, i) => `user-${i}`));
  });

  it('refuses a changed payload, a changed signature, another key set\'s token, an unknown kid and an expired token', async () => {
    const token = await createSigner(ec).sign({ sub: 'alice', exp: now() + 60 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'admin', exp: now() + 60 })).toString('base64url');
    const otherSignature = (s.startsWith('A') ? 'B' : 'A') + s.slice(1);
    const unknownKid = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'nope' })).toString('base64url');
    const refused = [
      `${h}.${forgedPayload}.${s}`,
      `${h}.${p}.${otherSignature}`,
      await createSigner(rsa).sign({ sub: 'alice', exp: now() + 60 }),
      `${unknownKid}.${p}.${s}`,
      await createSigner(ec).sign({ sub: 'alice', exp: now() - 1 }),
      'not-a-jwt',
    ];
    for (const bad of refused) await expect(verifyToken(bad, ec, now())).rejects.toThrow('No registered validator could authenticate this token');
    expect((await verifyToken(token, ec, now())).sub).toBe('alice');
  });

  it('verifies a token without kid (as the reference signed them) against every key of its algorithm', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ sub: 'bob', exp: now() + 60 })}`;
    const signature = sign('sha256', Buffer.from(input), { key: ec.signing.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    expect((await verifyToken(`${input}.${signature}`, ec, now())).sub).toBe('bob');
    // The RSA key set has no ES256 key: nothing verifies it there.
    await expect(verifyToken(`${input}.${signature}`, rsa, now())).rejects.toThrow();
  });

  it('starts a new worker after close', async () => {
    await closeSigning(ec);
    const token = await createSigner(ec).sign({ sub: 'again', exp: now() + 60 });
    expect((await verifyToken(token, ec, now())).sub).toBe('again');
  });
});

describe('bearer authentication keeps verified tokens', () => {
  it('a token verified once is taken again without a new check until it expires; tampered ones never are', async () => {
    let nowMs = Date.now();
    // A copy of the key set whose keys are withdrawn below: after that only remembered tokens pass.
    const byKid = new Map(ec.byKid);
    const keys: KeySet = { ...ec, verification: [...ec.verification], byKid };
    // A client token: no user, so no database query.
    const bearer = createBearerAuth({ db: undefined as unknown as Database, keys, now: () => nowMs });
    const exp = now() + 60;
    const claims = { aud: ['res_ManagementPortal'], scope: ['SUBJECT.READ'], client_id: 'c', sub: 'c', grant_type: 'client_credentials', exp };
    const token = await createSigner(keys).sign(claims);
    const other = await createSigner(keys).sign({ ...claims, sub: 'd' });
    const first = await bearer.principalOf(`Bearer ${token}`);
    expect(first).toMatchObject({ clientId: 'c', clientCredentials: true, scopes: new Set(['SUBJECT.READ']) });

    byKid.clear();
    expect(await bearer.principalOf(`Bearer ${token}`)).toEqual(first);
    await expect(bearer.principalOf(`Bearer ${other}`)).rejects.toBeInstanceOf(BearerUnauthorized);
    const [h, p, s] = token.split('.') as [string, string, string];
    const tampered = `${h}.${p}.${(s.startsWith('A') ? 'B' : 'A') + s.slice(1)}`;
    await expect(bearer.principalOf(`Bearer ${tampered}`)).rejects.toBeInstanceOf(BearerUnauthorized);
    // Past its expiry the remembered token is refused.
    nowMs = (exp + 1) * 1000;
    await expect(bearer.principalOf(`Bearer ${token}`)).rejects.toThrow('No registered validator could authenticate this token');
    await closeSigning(keys);
  });
});
