/**
 * MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD seeds the admin's password and is applied again only when
 * its value changes (issue 19 item 5): a password changed since survives restarts; changing the
 * setting recovers a forgotten one. On PostgreSQL the restart is a real one of the prod profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { ensureBuiltInAccounts, startAdminPasswordCheck } from '../../../src/management/account/admin-account.js';
import { buildTestApp, testDatabase, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient } from '../../helpers/management-api.js';
import { TEST_KEYSTORE } from '../../helpers/service-process.js';
import { launchBrowser, screenshot, signIn, chromiumInstalled } from '../../helpers/browser.js';
import { postgresProject, requires } from '../../helpers/requires.js';

const silent = pino({ level: 'silent' });
const changePassword = async (app: TestApp['app'], current: string, next: string) => {
  const api = managementClient(app);
  const token = await api.tokenOf('admin', current);
  const res = await api.call('POST', '/api/account/change_password', { bearer: token, body: next });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
};
const grants = async (app: TestApp['app'], password: string) =>
  (await managementClient(app).token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password })).status === 200;

describe('the admin password setting across starts', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('keeps a changed password while the setting stays the same, and applies a new value of the setting', async () => {
    t = await buildTestApp({ MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'first-Passw0rd' });
    const db = t.app.db.db;
    await changePassword(t.app, 'first-Passw0rd', 'Changed-in-UI-1!');
    // A restart with the same setting: nothing changes.
    await ensureBuiltInAccounts(db, { profile: 'dev', adminPassword: 'first-Passw0rd' }, silent);
    expect(await grants(t.app, 'Changed-in-UI-1!')).toBe(true);
    expect(await grants(t.app, 'first-Passw0rd')).toBe(false);
    // The setting changed (a forgotten password): applied once.
    await ensureBuiltInAccounts(db, { profile: 'dev', adminPassword: 'recovered-Passw0rd' }, silent);
    expect(await grants(t.app, 'recovered-Passw0rd')).toBe(true);
    await changePassword(t.app, 'recovered-Passw0rd', 'Changed-again-2!');
    await ensureBuiltInAccounts(db, { profile: 'dev', adminPassword: 'recovered-Passw0rd' }, silent);
    expect(await grants(t.app, 'Changed-again-2!')).toBe(true);
  });
});

describe('the admin password check started ahead of the start-up lock', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'second-Passw0rd' });
  });
  afterAll(async () => t?.close());

  it('is not trusted once another instance applied a new value', async () => {
    const db = t.app.db.db;
    const setting = { profile: 'dev' as const, adminPassword: 'third-Passw0rd' };
    // Started against the hash of the value applied so far: no match.
    const ahead = await startAdminPasswordCheck(db, setting);
    expect(ahead).toBeDefined();
    expect(await ahead!.matches).toBe(false);
    // Meanwhile another instance applies the new value, and the admin changes the password.
    await ensureBuiltInAccounts(db, setting, silent);
    await changePassword(t.app, 'third-Passw0rd', 'Changed-third-3!');
    // This instance's turn: the applied hash changed since, so it checks again and keeps the admin's password.
    await ensureBuiltInAccounts(db, setting, silent, ahead);
    expect(await grants(t.app, 'Changed-third-3!')).toBe(true);
    // A check ahead of the same applied hash stands for the comparison.
    const again = await startAdminPasswordCheck(db, setting);
    expect(await again!.matches).toBe(true);
    await ensureBuiltInAccounts(db, setting, silent, again);
    expect(await grants(t.app, 'Changed-third-3!')).toBe(true);
  });

  it('refuses the dev default in prod before anything is read or written', async () => {
    await expect(startAdminPasswordCheck(t.app.db.db, { profile: 'prod', adminPassword: 'admin' })).rejects.toThrow(/^MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: the dev default "admin" is not allowed in the prod profile/);
  });
});

describe('a restart of the prod profile on PostgreSQL', requires(postgresProject, chromiumInstalled), () => {
  it('keeps the password the admin changed in the UI', async () => {
    const database = await testDatabase();
    const env = {
      PROFILE: 'prod', RADAR_ADMIN_PASSWORD: 'secret1', MANAGEMENTPORTAL_OAUTH_KEY_STORE: TEST_KEYSTORE,
      MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'setting-Passw0rd', MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org',
      SCHEDULER_ENABLED: 'false', ...database.env,
    };
    const start = async () => {
      const app = await buildApp(loadConfig(env, '0.0.0-test'), { logger: false });
      await app.ready();
      return app;
    };
    const browser = await launchBrowser();
    try {
      const first = await start();
      await first.listen({ port: 0, host: '127.0.0.1' });
      const address = first.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/managementportal`;
      const page = await browser.newPage();
      await page.goto(`${base}/login`);
      await signIn(page, base, 'admin', 'setting-Passw0rd');
      await page.goto(`${base}/account/password`);
      await page.getByLabel('Current password').fill('setting-Passw0rd');
      await page.getByLabel('New password', { exact: true }).fill('Mine-Passw0rd-1!');
      await page.getByLabel('Confirm new password').fill('Mine-Passw0rd-1!');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').or(page.getByRole('alert')).first().waitFor();
      await screenshot(page, 'account-password-changed');
      await first.close();
      const second = await start();
      try {
        expect(await grants(second, 'Mine-Passw0rd-1!')).toBe(true);
        expect(await grants(second, 'setting-Passw0rd')).toBe(false);
      } finally {
        await second.close();
      }
    } finally {
      await browser.close();
      await database.drop();
    }
  });
});
