/**
 * `/organizations` and `/organizations/{name}` in headless Chromium: the organizations the API
 * lists to the signed-in user, one with its projects (links to the project pages) and its
 * organization admins; a project admin sees only what the API shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { anOrganization, aProjectIn } from '../../fixtures/management.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: organizations', requires(chromiumInstalled), () => {
  let ui: AdminPages;

  beforeAll(async () => { ui = await startAdminPages(); });
  afterAll(async () => ui?.close());

  it('lists the organizations the API lists; one shows its projects and organization admins', async () => {
    const db = ui.t.app.db.db;
    const org = await anOrganization(db);
    const projects = [await aProjectIn(db, org), await aProjectIn(db, org)];
    const orgAdmin = await ui.api.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: org.name });
    const page = await ui.signedIn();

    await page.goto(`${ui.t.base}/organizations`);
    const listed = (await ui.api.call('GET', '/api/organizations', { bearer: ui.adminToken })).body as { name: string }[];
    expect(listed.map((o) => o.name)).toContain(org.name);
    for (const { name } of listed) expect(await page.getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('row').count()).toBe(listed.length + 1);
    await screenshot(page, 'organizations-list');

    await page.getByRole('link', { name: org.name, exact: true }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(org.name);
    for (const project of projects) {
      expect(await page.getByRole('link', { name: project.projectName, exact: true }).getAttribute('href'))
        .toBe(`${ui.t.config.managementportalContextPath}/projects/${project.projectName}`);
    }
    expect(await page.getByRole('cell', { name: orgAdmin.login, exact: true }).count()).toBe(1);
    await screenshot(page, 'organizations-detail');
  });

  it('shows a project admin only its own organization, and 403 for another', async () => {
    const db = ui.t.app.db.db;
    const mine = await anOrganization(db);
    const other = await anOrganization(db);
    const project = await aProjectIn(db, mine);
    const admin = await ui.api.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const page = await ui.signedIn(admin.login, 'Passw0rd');
    await page.goto(`${ui.t.base}/organizations`);
    const listed = (await ui.api.call('GET', '/api/organizations', { bearer: admin.token })).body as { name: string }[];
    expect(listed.map((o) => o.name)).toEqual([mine.name]);
    expect(await page.getByRole('link', { name: mine.name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('link', { name: other.name, exact: true }).count()).toBe(0);

    const response = await page.goto(`${ui.t.base}/organizations/${other.name}`);
    expect(response?.status()).toBe(403);
    await screenshot(page, 'organizations-denied');
  });

  it('answers 404 for an unknown organization', async () => {
    const page = await ui.signedIn();
    const response = await page.goto(`${ui.t.base}/organizations/no-such-organization`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('alert').count()).toBe(1);
  });
});
