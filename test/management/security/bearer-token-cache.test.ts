/**
 * Bearer authentication remembers verified tokens (security/bearer-auth.ts): each until it
 * expires, at most `VERIFIED_TOKENS_KEPT`, least recently used first out. Client tokens only, so
 * no database is involved; a counting verifier around the real one shows which calls were checked.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeySet } from '../../../src/management/oauth/keystore.js';
import { createTokenSigning, type Claims, type TokenSigning } from '../../../src/management/oauth/token-signing.js';
import { createBearerAuth, VERIFIED_TOKENS_KEPT } from '../../../src/management/security/bearer-auth.js';
import { BearerUnauthorized } from '../../../src/management/security/principal.js';
import type { Database } from '../../../src/platform/database.js';

const KEYSTORE = fileURLToPath(new URL('../../fixtures/keystores/keytool-ec.p12', import.meta.url));
let signing: TokenSigning;

beforeAll(async () => {
  signing = createTokenSigning(await loadKeySet({ profile: 'prod', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} }));
});
afterAll(async () => signing.close());

/** Bearer authentication on a clock the test moves, counting the signature checks it asks for. */
function bearerAt(startMs: number) {
  const clock = { ms: startMs, checks: 0 };
  const bearer = createBearerAuth({
    db: undefined as unknown as Database,
    verifier: { verify: async (token: string, nowSeconds: number): Promise<Claims> => { clock.checks++; return signing.verify(token, nowSeconds); } },
    now: () => clock.ms,
  });
  return { bearer, clock };
}

const clientToken = (sub: string, exp: number) => signing.sign({
  aud: ['res_ManagementPortal'], scope: ['SUBJECT.READ'], client_id: 'c', sub, grant_type: 'client_credentials', exp,
});

describe('bearer authentication keeps verified tokens', () => {
  it('until the token expires: checked once, then taken as verified up to the last millisecond before exp, refused from exp on', async () => {
    const exp = Math.floor(Date.now() / 1000) + 60;
    const { bearer, clock } = bearerAt(Date.now());
    const token = await clientToken('c', exp);
    const first = await bearer.principalOf(`Bearer ${token}`);
    expect(first).toMatchObject({ clientId: 'c', clientCredentials: true, scopes: new Set(['SUBJECT.READ']) });
    expect(clock.checks).toBe(1);

    clock.ms = exp * 1000 - 1;
    expect(await bearer.principalOf(`Bearer ${token}`)).toEqual(first);
    expect(clock.checks).toBe(1);

    clock.ms = exp * 1000;
    await expect(bearer.principalOf(`Bearer ${token}`)).rejects.toThrow('No registered validator could authenticate this token');
    expect(clock.checks).toBe(2);
  });

  it('never keeps a failure: a tampered token is checked, and refused, every time', async () => {
    const { bearer, clock } = bearerAt(Date.now());
    const token = await clientToken('c', Math.floor(Date.now() / 1000) + 60);
    const [h, p, s] = token.split('.') as [string, string, string];
    const tampered = `${h}.${p}.${(s.startsWith('A') ? 'B' : 'A') + s.slice(1)}`;
    for (let i = 1; i <= 2; i++) {
      await expect(bearer.principalOf(`Bearer ${tampered}`)).rejects.toBeInstanceOf(BearerUnauthorized);
      expect(clock.checks).toBe(i);
    }
  });

  it(`at most ${VERIFIED_TOKENS_KEPT} tokens: one more pushes out the least recently used`, async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const { bearer, clock } = bearerAt(Date.now());
    const tokens = await Promise.all(Array.from({ length: VERIFIED_TOKENS_KEPT + 1 }, (_, i) => clientToken(`c-${i}`, exp)));
    // Verified in one batch; remembered in order, so tokens[0] is the least recently used.
    await Promise.all(tokens.map((t) => bearer.principalOf(`Bearer ${t}`)));
    expect(clock.checks).toBe(VERIFIED_TOKENS_KEPT + 1);

    await bearer.principalOf(`Bearer ${tokens[1]}`);
    await bearer.principalOf(`Bearer ${tokens.at(-1)}`);
    expect(clock.checks).toBe(VERIFIED_TOKENS_KEPT + 1);
    expect((await bearer.principalOf(`Bearer ${tokens[0]}`)).subject).toBe('c-0');
    expect(clock.checks).toBe(VERIFIED_TOKENS_KEPT + 2);
  });
});
