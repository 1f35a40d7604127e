/**
 * `/users` in headless Chromium: create a user with roles (the creation mail reaches the SMTP
 * server), "Send activation link" (a second mail), edit names and roles, delete; each step as
 * `GET /api/users` then sees it. A project admin is refused what the API refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { unique } from '../../helpers/management-api.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { until } from '../../helpers/eventually.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { aProjectIn, mainOrganization } from '../../fixtures/management.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: users', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let smtp: SmtpStub;
  let page: Page;
  let project: { projectName: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ui = await startAdminPages({ SMTP_URL: smtp.url });
    project = await aProjectIn(ui.t.app.db.db, await mainOrganization(ui.t.app.db.db));
    page = await ui.signedIn();
  });
  afterAll(async () => {
    await ui?.close();
    await smtp?.close();
  });

  const user = async (login: string) => ui.api.call('GET', `/api/users/${login}`, { bearer: ui.adminToken });
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));

  it('creates a user with roles, sends an activation link, edits and deletes it', async () => {
    const login = unique('ui-user');
    const email = `${login}@example.org`;
    await page.goto(`${ui.t.base}/users`);
    await page.getByRole('link', { name: 'Create user' }).click();
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role 1', { exact: true }).selectOption('ROLE_PROJECT_ADMIN');
    await page.getByLabel('Project or organization of role 1').selectOption(`project:${project.projectName}`);
    await page.getByLabel('Role 2', { exact: true }).selectOption('ROLE_ORGANIZATION_ADMIN');
    await page.getByLabel('Project or organization of role 2').selectOption('organization:main');
    await screenshot(page, 'users-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${ui.t.base}/users`);

    const created = await user(login);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ login, firstName: 'Grace', lastName: 'Hopper', email, activated: false });
    expect(created.body.roles.map((r: { authorityName: string; projectName?: string; organizationName?: string }) => `${r.authorityName}@${r.projectName ?? r.organizationName}`).sort())
      .toEqual([`ROLE_ORGANIZATION_ADMIN@main`, `ROLE_PROJECT_ADMIN@${project.projectName}`]);
    await until(() => expect(mailsTo(email)).toHaveLength(1));

    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: login, exact: true }) });
    expect(await row.getByRole('cell', { name: 'not activated' }).count()).toBe(1);
    await screenshot(page, 'users-list');
    await row.getByRole('button', { name: 'Send activation link' }).click();
    expect(await page.getByRole('status').textContent()).toContain(login);
    await until(() => expect(mailsTo(email)).toHaveLength(2));
    const keys = mailsTo(email).map((m) => /\/account\/reset\/finish\?key=(\d+)/.exec(plainText(m.raw))?.[1]);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).not.toBe(keys[0]);

    await row.getByRole('link', { name: `Edit ${login}` }).click();
    expect(await page.getByLabel('First name').inputValue()).toBe('Grace');
    await page.getByLabel('First name').fill('Ada');
    // Drop the organization role: its select goes back to none.
    await page.getByLabel('Role 2', { exact: true }).selectOption('');
    await page.getByLabel('Project or organization of role 2').selectOption('');
    await screenshot(page, 'users-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${ui.t.base}/users`);
    const edited = (await user(login)).body;
    expect(edited.firstName).toBe('Ada');
    expect(edited.roles.map((r: { authorityName: string }) => r.authorityName)).toEqual(['ROLE_PROJECT_ADMIN']);

    await page.getByRole('link', { name: `Delete ${login}` }).click();
    await screenshot(page, 'users-delete');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${ui.t.base}/users`);
    expect((await user(login)).status).toBe(404);
  });

  it('a role without its project answers the form again (400) with an alert and creates nothing', async () => {
    const login = unique('ui-bad');
    await page.goto(`${ui.t.base}/users/new`);
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('Role 1', { exact: true }).selectOption('ROLE_PROJECT_ADMIN');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Save' }).click()]);
    expect(response.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('Role 1');
    expect(await page.getByLabel('Login').inputValue()).toBe(login);
    expect((await user(login)).status).toBe(404);
  });

  it('a project admin is not offered the system admin role, and gets the 403 page for posting it anyway, as from the API', async () => {
    const projectAdmin = await ui.api.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const other = await ui.signedIn(projectAdmin.login, 'Passw0rd');
    await other.goto(`${ui.t.base}/users/new`);
    const login = unique('ui-sys');
    await other.getByLabel('Login').fill(login);
    const role = other.getByLabel('Role 1', { exact: true });
    expect(await role.locator('option[value="ROLE_SYS_ADMIN"]').count()).toBe(0);
    // A crafted post: the option put back into the page.
    await role.evaluate((select) => {
      const doc = (globalThis as unknown as { document: { createElement(tag: string): { value: string; textContent: string } } }).document;
      const option = doc.createElement('option');
      option.value = 'ROLE_SYS_ADMIN';
      option.textContent = 'ROLE_SYS_ADMIN';
      (select as unknown as { append(node: unknown): void }).append(option);
    });
    await role.selectOption('ROLE_SYS_ADMIN');
    const [response] = await Promise.all([other.waitForResponse((r) => r.request().method() === 'POST'), other.getByRole('button', { name: 'Save' }).click()]);
    expect(response.status()).toBe(403);
    await screenshot(other, 'users-denied');
    expect((await user(login)).status).toBe(404);
  });
});

const plainText = (raw: string) => mimeParts(raw).find((p) => p.type === 'text/plain')?.body ?? '';
