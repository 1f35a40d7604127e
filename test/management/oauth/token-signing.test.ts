/** Signing and verification by the `TokenSigning` object and its crypto worker thread (token-signing.ts, crypto-worker.ts). */
import { sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJWK, jwtVerify } from 'jose';
import { loadKeySet, type KeySet } from '../../../src/management/oauth/keystore.js';
import { createTokenSigning, type TokenSigning } from '../../../src/management/oauth/token-signing.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/keystores/${name}`, import.meta.url));
const now = () => Math.floor(Date.now() / 1000);
let ecKeys: KeySet;
let ec: TokenSigning;
let rsa: TokenSigning;

beforeAll(async () => {
  const silent = { warn: () => {} };
  ecKeys = await loadKeySet({ profile: 'prod', file: fixture('keytool-ec.p12'), password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, silent);
  const aliases = await loadKeySet({ profile: 'prod', file: fixture('openssl-rsa.p12'), password: 'radarbase', signingAlias: 'x', checkingAliases: [] }, silent).catch((err: Error) => err.message);
  const rsaAlias = /aliases: ([^,)]+)/.exec(String(aliases))![1]!;
  ec = createTokenSigning(ecKeys);
  rsa = createTokenSigning(await loadKeySet({ profile: 'prod', file: fixture('openssl-rsa.p12'), password: 'radarbase', signingAlias: rsaAlias, checkingAliases: [] }, silent));
});
afterAll(async () => { await ec.close(); await rsa.close(); });

describe('token signing', () => {
  it('signs many tokens at once, each with its own claims, verifiable by jose and by verify', async () => {
    // Several microtask checkpoints and event-loop turns, so several batches are in flight.
    const tokens = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
      return ec.sign({ sub: `user-${i}`, exp: now() + 60 });
    }));
    const key = await importJWK({ ...ecKeys.verification[0]!.jwk, alg: 'ES256' }, 'ES256');
    for (const [i, token] of tokens.entries()) {
      expect((await jwtVerify(token, key)).payload.sub).toBe(`user-${i}`);
    }
    const claims = await Promise.all(tokens.map((t) => ec.verify(t, now())));
    expect(claims.map((c) => c.sub)).toEqual(tokens.map((_, i) => `user-${i}`));
  });

  it('refuses a changed payload, a changed signature, another key set\'s token, an unknown kid and an expired token', async () => {
    const token = await ec.sign({ sub: 'alice', exp: now() + 60 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'admin', exp: now() + 60 })).toString('base64url');
    const otherSignature = (s.startsWith('A') ? 'B' : 'A') + s.slice(1);
    const unknownKid = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'nope' })).toString('base64url');
    const refused = [
      `${h}.${forgedPayload}.${s}`,
      `${h}.${p}.${otherSignature}`,
      await rsa.sign({ sub: 'alice', exp: now() + 60 }),
      `${unknownKid}.${p}.${s}`,
      await ec.sign({ sub: 'alice', exp: now() - 1 }),
      'not-a-jwt',
    ];
    for (const bad of refused) await expect(ec.verify(bad, now())).rejects.toThrow('No registered validator could authenticate this token');
    expect((await ec.verify(token, now())).sub).toBe('alice');
  });

  it('verifies a token without kid (as the reference signed them) against every key of its algorithm', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ sub: 'bob', exp: now() + 60 })}`;
    const signature = sign('sha256', Buffer.from(input), { key: ecKeys.signing.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    expect((await ec.verify(`${input}.${signature}`, now())).sub).toBe('bob');
    // The RSA key set has no ES256 key: nothing verifies it there.
    await expect(rsa.verify(`${input}.${signature}`, now())).rejects.toThrow();
  });

  it('closing while one batch is with the worker and more jobs wait for it: every job settles, the waiting ones refused', async () => {
    const own = createTokenSigning(ecKeys);
    await own.sign({ sub: 'warm', exp: now() + 60 });
    const first = Array.from({ length: 100 }, (_, i) => own.sign({ sub: `first-${i}`, exp: now() + 60 }));
    // The first batch leaves at the end of this turn; these wait for its answer.
    await new Promise((r) => setImmediate(r));
    const waiting = Array.from({ length: 100 }, (_, i) => own.sign({ sub: `waiting-${i}`, exp: now() + 60 }));
    const all = Promise.allSettled([...first, ...waiting]);
    await own.close();
    const settled = await all;
    for (const [i, s] of settled.entries()) {
      if (s.status === 'rejected') expect(String(s.reason)).toContain('crypto worker closed');
      // Signed before the close reached the thread: a real token of its own claims.
      else expect((await ec.verify(s.value, now())).sub).toBe(i < 100 ? `first-${i}` : `waiting-${i - 100}`);
    }
    expect(settled.slice(100).every((s) => s.status === 'rejected')).toBe(true);
  });

  it('each signing object owns its thread: closing one refuses its later and queued jobs and leaves another on the same keys working', async () => {
    const own = createTokenSigning(ecKeys);
    const token = await own.sign({ sub: 'mine', exp: now() + 60 });
    // Submitted in the same tick as the close: refused, and no thread is started for it.
    const queued = expect(own.sign({ sub: 'late', exp: now() + 60 })).rejects.toThrow('crypto worker closed');
    await own.close();
    await queued;
    await expect(own.sign({ sub: 'after', exp: now() + 60 })).rejects.toThrow('crypto worker closed');
    await expect(own.verify(token, now())).rejects.toThrow('crypto worker closed');
    // No state shared through the key set: the suite's signer on the same keys still works.
    expect((await ec.verify(token, now())).sub).toBe('mine');
    expect((await ec.verify(await ec.sign({ sub: 'again', exp: now() + 60 }), now())).sub).toBe('again');
  });
});
