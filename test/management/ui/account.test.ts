/**
 * The account pages in headless Chromium: a password reset from the sign-in page (the mail reaches
 * the SMTP server with the new `/account/reset/finish?key=` link, the page sets the password, the
 * user signs in with it), activation by key, settings as `GET /api/account` then sees them, a
 * password change, and the remembered OAuth consents listed and revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { screenshot, signIn, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { unique } from '../../helpers/management-api.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { until } from '../../helpers/eventually.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { aProjectIn, mainOrganization } from '../../fixtures/management.js';
import { users } from '../../../src/management/schema.js';
import { allApproved, rememberDecision } from '../../../src/management/oauth/authorize/approvals.js';
import { requires } from '../../helpers/requires.js';

const plainText = (raw: string) => mimeParts(raw).find((p) => p.type === 'text/plain')?.body ?? '';

describe('admin UI: account pages', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let t: AdminPages['t'];
  let api: AdminPages['api'];
  let smtp: SmtpStub;
  let project: { projectName: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ui = await startAdminPages({ SMTP_URL: smtp.url });
    ({ t, api } = ui);
    project = await aProjectIn(t.app.db.db, await mainOrganization(t.app.db.db));
  });
  afterAll(async () => {
    await ui?.close();
    await smtp?.close();
  });

  const newPage = () => ui.newPage();

  /** A project admin (password `Passw0rd`) signed in in a page of its own. */
  async function signedInUser(): Promise<{ login: string; page: Page }> {
    const { login } = await api.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    return { login, page: await ui.signedIn(login, 'Passw0rd') };
  }

  it('resets a forgotten password from the sign-in page through the mailed link, then signs in with it', async () => {
    const { login } = await api.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const email = `${login}@example.org`;
    const page = await newPage();
    await page.goto(`${t.base}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await screenshot(page, 'account-reset-request');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    expect(await page.getByRole('status').textContent()).toContain('on its way');
    await screenshot(page, 'account-reset-requested');

    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1));
    const text = plainText(smtp.mails.find((m) => m.to.includes(email))!.raw);
    const link = new RegExp(`${t.config.managementportalCommonManagementPortalBaseUrl.replace(/[.]/g, '\\.')}/account/reset/finish\\?key=\\d{20}`).exec(text)?.[0];
    expect(link, text).toBeDefined();
    const url = new URL(link!);
    await page.goto(`${t.origin}${url.pathname}${url.search}`);

    await page.getByLabel('New password', { exact: true }).fill('Brand-new-1');
    await page.getByLabel('Confirm new password').fill('Brand-new-2');
    await page.getByRole('button', { name: 'Set password' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('differ');
    await page.getByLabel('New password', { exact: true }).fill('Brand-new-1');
    await page.getByLabel('Confirm new password').fill('Brand-new-1');
    await screenshot(page, 'account-reset-finish');
    await page.getByRole('button', { name: 'Set password' }).click();
    expect(await page.getByRole('status').textContent()).toContain('password is set');
    await screenshot(page, 'account-reset-done');

    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, t.base, login, 'Brand-new-1');
    expect(new URL(page.url()).pathname).toBe(`${t.config.managementportalContextPath}/`);
    // The key worked once.
    await page.goto(`${t.origin}${url.pathname}${url.search}`);
    await page.getByLabel('New password', { exact: true }).fill('Another-one-1');
    await page.getByLabel('Confirm new password').fill('Another-one-1');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Set password' }).click()]);
    expect(response.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('not valid');
  });

  it('answers an unknown address as a known one, and sends nothing', async () => {
    const page = await newPage();
    await page.goto(`${t.base}/account/reset/request`);
    const email = `${unique('nobody')}@example.org`;
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    expect(await page.getByRole('status').textContent()).toContain('on its way');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.filter((m) => m.to.includes(email))).toEqual([]);
  });

  it('activates an account with its key', async () => {
    const login = unique('inactive');
    const key = `${Date.now()}${Math.floor(Math.random() * 1e6)}`.slice(0, 20);
    await t.app.db.db.insert(users).values({ login, activated: false, activationKey: key, langKey: 'en' });
    const page = await newPage();
    await page.goto(`${t.base}/activate?key=${key}`);
    await screenshot(page, 'account-activate');
    await page.getByRole('button', { name: 'Activate account' }).click();
    expect(await page.getByRole('status').textContent()).toContain('activated');
    const [row] = await t.app.db.db.select().from(users).where(eq(users.login, login));
    expect(row).toMatchObject({ activated: true, activationKey: null });

    await page.goto(`${t.base}/activate?key=${key}`);
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Activate account' }).click()]);
    expect(response.status()).toBe(400);
    expect(await page.getByRole('alert').count()).toBe(1);
  });

  it('changes the settings as GET /api/account then shows them', async () => {
    const { login, page } = await signedInUser();
    await page.goto(`${t.base}/account/settings`);
    await page.getByLabel('First name').fill('Katherine');
    await page.getByLabel('Last name').fill('Johnson');
    await page.getByLabel('Email').fill(`kj-${login}@example.org`);
    await page.getByLabel('Language').selectOption('nl');
    await page.getByRole('button', { name: 'Save' }).click();
    // The account's language is Dutch now, and with no language cookie it is the pages' (i18n/translator.ts).
    expect(await page.getByRole('status').textContent()).toContain('Opgeslagen');
    expect(await page.getAttribute('html', 'lang')).toBe('nl');
    await screenshot(page, 'account-settings');
    const token = await api.tokenOf(login, 'Passw0rd');
    expect((await api.call('GET', '/api/account', { bearer: token })).body)
      .toMatchObject({ login, firstName: 'Katherine', lastName: 'Johnson', email: `kj-${login}@example.org`, langKey: 'nl' });

    await page.getByLabel('E-mailadres').fill('not-an-address');
    await skipBrowserChecks(page, 'Opslaan');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Opslaan' }).click()]);
    expect(response.status()).toBe(400);
    expect((await api.call('GET', '/api/account', { bearer: token })).body.email).toBe(`kj-${login}@example.org`);
  });

  it('changes the password only with the current one', async () => {
    const { login, page } = await signedInUser();
    await page.goto(`${t.base}/account/password`);
    await page.getByLabel('Current password').fill('wrong-Passw0rd');
    await page.getByLabel('New password', { exact: true }).fill('Changed-passw0rd');
    await page.getByLabel('Confirm new password').fill('Changed-passw0rd');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Change password' }).click()]);
    expect(refused.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('current password');

    await page.getByLabel('Current password').fill('Passw0rd');
    await page.getByLabel('New password', { exact: true }).fill('weak');
    await page.getByLabel('Confirm new password').fill('weak');
    await skipBrowserChecks(page, 'Change password');
    const [weak] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Change password' }).click()]);
    expect(weak.status()).toBe(400);

    await page.getByLabel('Current password').fill('Passw0rd');
    await page.getByLabel('New password', { exact: true }).fill('Changed-passw0rd');
    await page.getByLabel('Confirm new password').fill('Changed-passw0rd');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.getByRole('status').textContent()).toContain('changed');
    await screenshot(page, 'account-password');
    expect((await api.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'Changed-passw0rd' })).status).toBe(200);
    expect((await api.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'Passw0rd' })).status).not.toBe(200);
  });

  it('lists the remembered consents (client, scopes, expiry) and revokes one', async () => {
    const { login, page } = await signedInUser();
    const db = t.app.db.db;
    const now = new Date();
    await rememberDecision(db, login, 'THINC-IT', ['SUBJECT.READ', 'PROJECT.READ'], true, now);
    await rememberDecision(db, login, 'pRMT', ['MEASUREMENT.CREATE'], true, now);
    await page.goto(`${t.base}/account/approvals`);
    const row = (clientId: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: clientId, exact: true }) });
    expect(await row('THINC-IT').getByRole('cell', { name: 'PROJECT.READ, SUBJECT.READ' }).count()).toBe(1);
    expect(await row('pRMT').locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await screenshot(page, 'account-approvals');

    await row('THINC-IT').getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(`${t.base}/account/approvals`);
    expect(await row('THINC-IT').count()).toBe(0);
    expect(await row('pRMT').count()).toBe(1);
    expect(await allApproved(db, login, 'THINC-IT', ['SUBJECT.READ'], new Date())).toBe(false);
    expect(await allApproved(db, login, 'pRMT', ['MEASUREMENT.CREATE'], new Date())).toBe(true);
  });
});

/** Turns off the browser's own form checks, so the server's are what is tested. */
async function skipBrowserChecks(page: Page, button: string): Promise<void> {
  await page.getByRole('button', { name: button }).evaluate((b) => { (b as unknown as { form: { noValidate: boolean } }).form.noValidate = true; });
}
