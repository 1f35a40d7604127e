/**
 * The radar-auth 2.1 verification rules (issue 21 item 4, clients.md §3.2), one by one, on the
 * verifier alone with keys of every accepted kind, and the token model and oracle.
 */
import { createHmac, generateKeyPairSync, sign as rawSign, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { fixedKeySource } from '../../../src/appserver/security/key-sources.js';
import { keyFromPem, keysFromKeySet, type JwsAlg } from '../../../src/appserver/security/keys.js';
import { createTokenVerifier } from '../../../src/appserver/security/verifier.js';
import { hasPermission, inScope, readScope, toRadarToken } from '../../../src/appserver/security/oracle.js';

const NOW = Date.UTC(2030, 0, 1) ;
const nowS = NOW / 1000;
const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pairs: Record<JwsAlg, { privateKey: KeyObject; publicKey: KeyObject }> = {
  ES256: ec('P-256'), ES384: ec('P-384'), ES512: ec('P-521'), RS256: rsa, RS384: rsa, RS512: rsa,
};
const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'spki' }) as string;

const verifierOf = (keys: KeyObject[]) => createTokenVerifier({
  sources: [fixedKeySource('test', keys.map((k) => keyFromPem(pem(k))))],
  resourceName: 'res_AppServer',
  now: () => NOW,
});
const all = verifierOf([pairs.ES256.publicKey, pairs.ES384.publicKey, pairs.ES512.publicKey, rsa.publicKey]);

const base = () => ({ aud: ['res_AppServer'], scope: ['SUBJECT.READ'], exp: nowS + 3600, iat: nowS - 10, sub: 'sub-1', grant_type: 'password', iss: 'anyone' });
const sign = (claims: Record<string, unknown>, alg: JwsAlg = 'ES256', header: Record<string, unknown> = {}) =>
  new SignJWT(claims).setProtectedHeader({ alg, ...header }).sign(pairs[alg].privateKey);

const passes = async (token: string) => (await all.verify(token)).claims;
const fails = (token: string) => expect(all.verify(token)).rejects.toThrow();

describe('signature and algorithm', () => {
  for (const alg of ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512'] as const) {
    it(`${alg} fitting its key passes`, async () => {
      expect((await passes(await sign(base(), alg))).sub).toBe('sub-1');
    });
  }

  it('an EC token whose curve does not fit the key is refused', async () => {
    const token = await sign(base(), 'ES384');
    await expect(verifierOf([pairs.ES256.publicKey]).verify(token)).rejects.toThrow();
  });

  it('a tampered payload is refused', async () => {
    const [h, , s] = (await sign(base())).split('.');
    const forged = Buffer.from(JSON.stringify({ ...base(), sub: 'someone-else' })).toString('base64url');
    await fails(`${h}.${forged}.${s}`);
  });

  it('an ECDSA signature in DER form (not JOSE r‖s) is refused', async () => {
    const h = Buffer.from(JSON.stringify({ alg: 'ES256' })).toString('base64url');
    const p = Buffer.from(JSON.stringify(base())).toString('base64url');
    const der = rawSign('sha256', Buffer.from(`${h}.${p}`), pairs.ES256.privateKey).toString('base64url');
    await fails(`${h}.${p}.${der}`);
  });

  it('HMAC and "none" are refused, whatever the key', async () => {
    const p = Buffer.from(JSON.stringify(base())).toString('base64url');
    const hs = Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url');
    const mac = createHmac('sha256', pem(pairs.ES256.publicKey)).update(`${hs}.${p}`).digest('base64url');
    await fails(`${hs}.${p}.${mac}`);
    await fails(`${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`);
  });

  it('a kid names the key: a token whose kid is another key\'s is refused', async () => {
    const withKids = createTokenVerifier({
      sources: [fixedKeySource('kids', [{ ...keyFromPem(pem(pairs.ES256.publicKey)), kid: 'k1' }])],
      resourceName: 'res_AppServer', now: () => NOW,
    });
    await expect(withKids.verify(await sign(base(), 'ES256', { kid: 'k1' }))).resolves.toBeDefined();
    await expect(withKids.verify(await sign(base(), 'ES256', { kid: 'k2' }))).rejects.toThrow();
    // Tokens without a kid (the reference's) try every key.
    await expect(withKids.verify(await sign(base()))).resolves.toBeDefined();
  });
});

describe('claims', () => {
  it('aud: a string or a list holding the resource name', async () => {
    await passes(await sign({ ...base(), aud: 'res_AppServer' }));
    await passes(await sign({ ...base(), aud: ['res_ManagementPortal', 'res_AppServer'] }));
    await fails(await sign({ ...base(), aud: ['res_ManagementPortal'] }));
    const { aud: _aud, ...noAud } = base();
    await fails(await sign(noAud));
  });

  it('scope: present, as a list or a space-separated string', async () => {
    await passes(await sign({ ...base(), scope: 'SUBJECT.READ PROJECT.READ' }));
    const { scope: _scope, ...noScope } = base();
    await fails(await sign(noScope));
  });

  it('exp: present and in the future', async () => {
    const { exp: _exp, ...noExp } = base();
    await fails(await sign(noExp));
    await fails(await sign({ ...base(), exp: nowS }));
    await fails(await sign({ ...base(), exp: nowS - 1 }));
    await passes(await sign({ ...base(), exp: nowS + 1 }));
  });

  it('iat: not in the future; nbf: honoured; iss: not checked', async () => {
    await fails(await sign({ ...base(), iat: nowS + 5 }));
    await fails(await sign({ ...base(), nbf: nowS + 5 }));
    await passes(await sign({ ...base(), nbf: nowS - 5, iss: 'another-portal' }));
  });

  it('a refresh token (claim ati) is refused', async () => {
    await fails(await sign({ ...base(), ati: 'abc' }));
  });
});

describe('token model and oracle (radar-auth)', () => {
  const token = (claims: Record<string, unknown>) => toRadarToken({ scope: ['SUBJECT.READ', 'SUBJECT.UPDATE', 'PROJECT.READ'], ...claims });

  it('roles "project:ROLE_X" and global authorities become roles', () => {
    const t = token({ roles: ['p1:ROLE_PROJECT_ADMIN'], authorities: ['ROLE_SYS_ADMIN', 'ROLE_PROJECT_ADMIN'] });
    expect(t.roles).toEqual([{ authority: 'ROLE_PROJECT_ADMIN', referent: 'p1' }, { authority: 'ROLE_SYS_ADMIN', referent: null }]);
  });

  it('client credentials only with grant_type client_credentials (not sub == client_id)', () => {
    expect(token({ grant_type: 'client_credentials', client_id: 'c' }).clientCredentials).toBe(true);
    const twin = token({ sub: 'c', client_id: 'c', grant_type: 'password' });
    expect(twin.clientCredentials).toBe(false);
    expect(hasPermission(twin, 'SUBJECT.READ', { project: 'p1', subject: 'x' })).toBe(false);
  });

  it('scope first, then roles: participant on itself, project roles on their project, organization roles on main', () => {
    const participant = token({ sub: 's1', roles: ['p1:ROLE_PARTICIPANT'] });
    expect(hasPermission(participant, 'SUBJECT.READ', { project: 'p1', subject: 's1' })).toBe(true);
    expect(hasPermission(participant, 'SUBJECT.READ', { project: 'p1', subject: 's2' })).toBe(false);
    expect(hasPermission(participant, 'PROJECT.READ', { project: 'p1', subject: 's1' })).toBe(false);
    const analyst = token({ roles: ['p1:ROLE_PROJECT_ANALYST'] });
    expect(hasPermission(analyst, 'SUBJECT.UPDATE', { project: 'p1', subject: 'x' })).toBe(true);
    expect(hasPermission(analyst, 'SUBJECT.UPDATE', { project: 'p2', subject: 'x' })).toBe(false);
    expect(hasPermission(token({ roles: ['main:ROLE_ORGANIZATION_ADMIN'] }), 'SUBJECT.READ', { project: 'any', subject: 'x' })).toBe(true);
    expect(hasPermission(token({ roles: ['other:ROLE_ORGANIZATION_ADMIN'] }), 'SUBJECT.READ', { project: 'any', subject: 'x' })).toBe(false);
    const noScope = toRadarToken({ scope: [], roles: ['ROLE_SYS_ADMIN'] });
    expect(hasPermission(noScope, 'SUBJECT.READ', { project: 'p1', subject: 'x' })).toBe(false);
  });

  it('PROJECT.UPDATE (issue 28): the admins and owners of the project, never a participant on its own subject', () => {
    const holder = (roles: string[], sub?: string) => toRadarToken({ scope: ['PROJECT.UPDATE'], roles, sub });
    const on = { project: 'p1', subject: 's1' };
    for (const role of ['ROLE_PROJECT_ADMIN', 'ROLE_PROJECT_OWNER']) {
      expect(hasPermission(holder([`p1:${role}`]), 'PROJECT.UPDATE', on), role).toBe(true);
      expect(hasPermission(holder([`p2:${role}`]), 'PROJECT.UPDATE', on), role).toBe(false);
    }
    expect(hasPermission(holder(['main:ROLE_ORGANIZATION_ADMIN']), 'PROJECT.UPDATE', on)).toBe(true);
    expect(hasPermission(holder(['ROLE_SYS_ADMIN']), 'PROJECT.UPDATE', on)).toBe(true);
    for (const role of ['ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST', 'ROLE_PARTICIPANT']) {
      expect(hasPermission(holder([`p1:${role}`], 's1'), 'PROJECT.UPDATE', on), role).toBe(false);
    }
  });

  it('readScope agrees with hasPermission item by item', () => {
    const tokens = [
      token({ sub: 's1', roles: ['p1:ROLE_PARTICIPANT'] }),
      token({ roles: ['p1:ROLE_PROJECT_ADMIN', 'p2:ROLE_PROJECT_ANALYST'] }),
      token({ authorities: ['ROLE_SYS_ADMIN'] }),
      token({ grant_type: 'client_credentials' }),
      toRadarToken({ scope: ['SUBJECT.READ'], grant_type: 'client_credentials' }),
    ];
    const items = [['p1', 's1'], ['p1', 's2'], ['p2', 's1'], ['p3', 's3']] as const;
    for (const t of tokens) {
      for (const permission of ['SUBJECT.READ', 'PROJECT.READ', 'SUBJECT.UPDATE'] as const) {
        const scope = readScope(t, permission);
        for (const [project, subject] of items) {
          expect(inScope(scope, project, subject)).toBe(hasPermission(t, permission, { project, subject }));
        }
      }
    }
  });
});

describe('key sets as radar-auth reads them (clients.md §3.1)', () => {
  const spki = (k: KeyObject) => (k.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
  const verifies = async (keys: ReturnType<typeof keysFromKeySet>, alg: JwsAlg) =>
    createTokenVerifier({ sources: [fixedKeySource('set', keys)], resourceName: 'res_AppServer', now: () => NOW }).verify(await sign(base(), alg));

  it('MP `value` keys, EC and RSA, and standard JWKs, EC and RSA', async () => {
    const bad: number[] = [];
    const keys = keysFromKeySet({
      keys: [
        { alg: 'ES256', kty: 'EC', value: `-----BEGIN EC PUBLIC KEY-----\n${spki(pairs.ES256.publicKey)}\n-----END EC PUBLIC KEY-----`, x5c: [], x5t: null },
        { alg: 'RS256', kty: 'RSA', value: `-----BEGIN PUBLIC KEY-----\n${spki(rsa.publicKey)}\n-----END PUBLIC KEY-----` },
        { ...pairs.ES384.publicKey.export({ format: 'jwk' }), kid: 'ec384' },
        { ...rsa.publicKey.export({ format: 'jwk' }), alg: 'RS512' },
      ],
    }, (_err, index) => bad.push(index));
    expect(bad).toEqual([]);
    expect(keys.map((k) => [...k.algs])).toEqual([['ES256'], ['RS256'], ['ES384'], ['RS512']]);
    await expect(verifies(keys, 'ES256')).resolves.toBeDefined();
    await expect(verifies(keys, 'RS256')).resolves.toBeDefined();
    await expect(verifies(keys, 'RS512')).resolves.toBeDefined();
    // An RSA key named RS256 or RS512 verifies no RS384 token.
    await expect(verifies(keys, 'RS384')).rejects.toThrow();
  });

  it('a bad entry is reported and left out; the others stay', () => {
    const bad: number[] = [];
    const keys = keysFromKeySet({
      keys: [
        { kty: 'EC', value: '-----BEGIN EC PUBLIC KEY-----\nAAAA\n-----END EC PUBLIC KEY-----' },
        { kty: 'oct', k: 'c2VjcmV0' },
        { kty: 'EC', crv: 'P-256', x: 'AA' },
        { ...pairs.ES256.publicKey.export({ format: 'jwk' }) },
      ],
    }, (_err, index) => bad.push(index));
    expect(bad).toEqual([0, 1, 2]);
    expect(keys).toHaveLength(1);
    expect(() => keysFromKeySet({ nokeys: [] }, () => {})).toThrow('the answer has no "keys" list');
  });
});
