/**
 * Unsafe defaults in the prod profile (issue 17 item 10): the admin password set explicitly to
 * `admin` is refused like an unset one; the keystore password `radarbase` logs a WARN that names
 * MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD. (The dev profile's 127.0.0.1 default of HOST is in
 * test/config.test.ts.)
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { ensureBuiltInAccounts } from '../../../src/management/account/admin-account.js';
import { findUserByLogin } from '../../../src/management/security/queries.js';
import { loadKeySet, type KeystoreSettings } from '../../../src/management/oauth/keystore.js';

describe('MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD=admin in prod', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp(); });
  afterAll(async () => { await t?.close(); });

  const log = { info: () => {}, warn: () => {} } as unknown as FastifyBaseLogger;

  it('stops the start naming the setting and changes nothing, as an unset one does', async () => {
    const db = t.app.db.db;
    const before = await findUserByLogin(db, 'admin');
    await expect(ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: 'admin' }, log))
      .rejects.toThrow('MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: the dev default "admin" is not allowed in the prod profile');
    // The dev start left `admin` with password `admin`: unset, prod refuses that too.
    await expect(ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: undefined }, log))
      .rejects.toThrow(/^MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: /);
    expect(await findUserByLogin(db, 'admin')).toEqual(before);
    // Dev still takes it, and prod takes any other password.
    await ensureBuiltInAccounts(db, { profile: 'dev', adminPassword: 'admin' }, log);
    await ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: 'admin-secret1' }, log);
  });
});

describe('the keystore password radarbase in prod', () => {
  const fixture = fileURLToPath(new URL('../../fixtures/keystores/keytool-ec.p12', import.meta.url));
  const settings = (over: Partial<KeystoreSettings>): KeystoreSettings => ({
    profile: 'prod', file: fixture, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [], ...over,
  });
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'keystore-')); });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  async function warnings(over: Partial<KeystoreSettings>) {
    const seen: { obj: object; msg: string }[] = [];
    await loadKeySet(settings(over), { warn: (obj, msg) => seen.push({ obj, msg }) });
    return seen;
  }

  it('logs a WARN naming MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD and what to do', async () => {
    expect(await warnings({})).toEqual([{
      obj: { setting: 'MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD' },
      msg: expect.stringMatching(/public default "radarbase".*password of your own.*set MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD$/),
    }]);
  });

  it('stays quiet in dev, and in prod with a password of the operator\'s own', async () => {
    expect(await warnings({ profile: 'dev' })).toEqual([]);
    // A PKCS12 keystore with another password (RSA: node-forge writes RSA keys).
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = forge.pki.privateKeyFromPem(privateKey.export({ format: 'pem', type: 'pkcs1' }).toString());
    // No certificate: forge takes null here although its types do not say so, and the loader reads keys only.
    const noCertificate = null as unknown as forge.pki.Certificate[];
    const p12 = forge.pkcs12.toPkcs12Asn1(key, noCertificate, 'our-own-password', { friendlyName: 'ours', algorithm: '3des' });
    const file = join(dir, 'own.p12');
    writeFileSync(file, Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'));
    expect(await warnings({ file, password: 'our-own-password', signingAlias: 'ours' })).toEqual([]);
  });
});
