/** The keystore fixtures of test/fixtures/keystores (keytool and openssl), read with node-forge on a worker thread. */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { importJWK, importSPKI, jwtVerify } from 'jose';
import { KeystoreError, loadKeySet, type KeystoreSettings } from '../../../src/management/oauth/keystore.js';
import { prefetchKeystore, startKeystoreRead } from '../../../src/management/oauth/keystore-reader.js';
import { createTokenSigning } from '../../../src/management/oauth/token-signing.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/keystores/${name}`, import.meta.url));
const silent = { warn: () => {} };
const settings = (over: Partial<KeystoreSettings>): KeystoreSettings => ({
  profile: 'prod', file: fixture('keytool-ec.p12'), password: 'radarbase',
  signingAlias: 'radarbase-managementportal-ec', checkingAliases: [], ...over,
});

async function loadError(over: Partial<KeystoreSettings>): Promise<string> {
  try {
    await loadKeySet(settings(over), silent);
  } catch (err) {
    expect(err).toBeInstanceOf(KeystoreError);
    return (err as Error).message;
  }
  throw new Error('expected a KeystoreError');
}

/** Signs with the key set and verifies with jose on the PEM (re-labelled) and on the JWK. */
async function signAndVerify(over: Partial<KeystoreSettings>) {
  const keys = await loadKeySet(settings(over), silent);
  const signing = createTokenSigning(keys);
  const token = await signing.sign({ sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 });
  await signing.close();
  const key = keys.verification[0]!;
  const pem = key.pem.replace(/-----(BEGIN|END) EC PUBLIC KEY-----/g, '-----$1 PUBLIC KEY-----');
  const viaPem = await jwtVerify(token, await importSPKI(pem, key.alg));
  const viaJwk = await jwtVerify(token, await importJWK({ ...key.jwk, alg: key.alg }, key.alg));
  expect(viaPem.protectedHeader).toEqual({ alg: key.alg, typ: 'JWT', kid: key.kid });
  expect(viaJwk.payload.sub).toBe('x');
  return keys;
}

describe('keystore', () => {
  it('reads the keystore made by the reference\'s keytool command (EC P-256 → ES256)', async () => {
    const keys = await signAndVerify({});
    expect(keys.signing.alg).toBe('ES256');
    expect(keys.signing.pem).toMatch(/^-----BEGIN EC PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END EC PUBLIC KEY-----$/);
    expect(keys.signing.jwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(keys.verification).toHaveLength(1);
  });

  it('publishes checking keys after the signing key; an unknown checking alias is skipped with a warning', async () => {
    const warnings: unknown[] = [];
    // Dev: prod would also warn about the fixture's default password (security/prod-defaults.test.ts).
    const keys = await loadKeySet(settings({ profile: 'dev', checkingAliases: ['old-ec', 'gone'] }), { warn: (obj) => warnings.push(obj) });
    expect(keys.verification.map((k) => k.kid)).toEqual([keys.signing.kid, expect.any(String)]);
    expect(keys.verification[1]!.kid).not.toBe(keys.signing.kid);
    expect(warnings).toEqual([expect.objectContaining({ alias: 'gone' })]);
  });

  it('reads openssl pkcs12 -export keystores, EC (ES256) and RSA (RS256)', async () => {
    expect((await signAndVerify({ file: fixture('openssl-ec.p12') })).signing.alg).toBe('ES256');
    const rsa = await signAndVerify({ file: fixture('openssl-rsa.p12'), signingAlias: 'radarbase-managementportal-rsa' });
    expect(rsa.signing.alg).toBe('RS256');
    expect(rsa.signing.pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(rsa.signing.jwk).toMatchObject({ kty: 'RSA', e: 'AQAB' });
  });

  it('the same keystore gives the same kid (instances sharing a keystore agree)', async () => {
    const a = await loadKeySet(settings({}), silent);
    const b = await loadKeySet(settings({}), silent);
    expect(a.signing.kid).toBe(b.signing.kid);
  });

  it('a wrong password, a missing alias or a missing file names the setting', async () => {
    expect(await loadError({ password: 'wrong' })).toMatch(/^MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: wrong password/);
    expect(await loadError({ signingAlias: 'nope' })).toMatch(/^MANAGEMENTPORTAL_OAUTH_SIGNING_KEY_ALIAS: no private key with alias "nope".*radarbase-managementportal-ec/);
    expect(await loadError({ file: '/nonexistent/keystore.p12' })).toBe('MANAGEMENTPORTAL_OAUTH_KEY_STORE: keystore file not found: /nonexistent/keystore.p12');
    expect(await loadError({ password: '' })).toMatch(/^MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: must not be empty/);
  });

  it('the dev profile without a keystore generates an EC key and warns', async () => {
    const warnings: string[] = [];
    const keys = await loadKeySet(settings({ profile: 'dev', file: '/nonexistent/keystore.p12' }), { warn: (_o, msg) => warnings.push(msg) });
    expect(keys.signing.alg).toBe('ES256');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('in-memory EC key');
  });

  it('decrypts the same keys as node-forge alone (the worker\'s native PBKDF2 and MAC key only make it faster)', async () => {
    for (const [file, alias] of [
      ['keytool-ec.p12', 'radarbase-managementportal-ec'], ['keytool-ec.p12', 'old-ec'], ['openssl-ec.p12', 'radarbase-managementportal-ec'],
      // A SHA-1 MAC: the worker's own PKCS12 key derivation with another digest and block.
      ['openssl-ec-sha1mac.p12', 'radarbase-managementportal-ec'],
    ] as const) {
      const keys = await loadKeySet(settings({ profile: 'dev', file: fixture(file), signingAlias: alias }), silent);
      // forge's own JavaScript derivation of the same bag.
      const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(readFileSync(fixture(file)).toString('binary')), false, 'radarbase');
      const bagType = forge.pki.oids.pkcs8ShroudedKeyBag!;
      const bag = p12.getBags({ bagType })[bagType]!.find((b) => b.attributes.friendlyName?.[0] === alias)!;
      const der = Buffer.from(forge.asn1.toDer(bag.asn1).getBytes(), 'binary');
      const expected = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
      expect(keys.signing.jwk).toMatchObject(expected);
    }
  });

  it('a file that is not PKCS12 names the setting and gives forge\'s reason', async () => {
    expect(await loadError({ file: fixture('README.md') })).toMatch(/^MANAGEMENTPORTAL_OAUTH_KEY_STORE: .*README\.md is not a readable PKCS12 keystore \(.+\)$/);
  });

  it('uses a read started ahead (main.ts) only when it is of the same file with the same password', async () => {
    const own = await loadKeySet(settings({}), silent);
    // The same file and password: its keys.
    const same = prefetchKeystore(fixture('keytool-ec.p12'), 'radarbase');
    expect(same).toBeDefined();
    expect((await loadKeySet(settings({}), silent, same)).signing.jwk).toEqual(own.signing.jwk);
    // Another password or another file: read again with the settings' own.
    const wrong = startKeystoreRead(fixture('keytool-ec.p12'), 'wrong');
    expect(await wrong.result).toEqual({ error: expect.stringMatching(/MAC could not be verified/) });
    expect((await loadKeySet(settings({}), silent, wrong)).signing.kid).toBe(own.signing.kid);
    const other = startKeystoreRead(fixture('openssl-ec.p12'), 'radarbase');
    expect((await loadKeySet(settings({}), silent, other)).signing.kid).toBe(own.signing.kid);
    // Nothing to read ahead without the file or a password: loadKeySet reports it.
    expect(prefetchKeystore('/nonexistent/keystore.p12', 'radarbase')).toBeUndefined();
    expect(prefetchKeystore(fixture('keytool-ec.p12'), '')).toBeUndefined();
  });
});
