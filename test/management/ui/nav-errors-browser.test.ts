/**
 * In headless Chromium (issue 31 item 11): a project analyst's navbar shows only the pages it may
 * open (no Users, no Audits; a system admin's shows them), and an unknown page, as the browser asks
 * for it, is the UI's error page (not a JSON body) with the signed-in user's navbar, whose link
 * leads back to the home page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, screenshot } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { requires } from '../../helpers/requires.js';
import { anOrganization, aProjectIn } from '../../fixtures/management.js';

describe('admin UI: the navbar and the error page', requires(chromiumInstalled), () => {
  let ui: AdminPages;

  beforeAll(async () => {
    ui = await startAdminPages();
  });
  afterAll(async () => ui?.close());

  const navLinks = async (page: Awaited<ReturnType<AdminPages['signedIn']>>) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

  it('shows a project analyst only the pages it may open, and a system admin all of them', async () => {
    const project = await aProjectIn(ui.t.app.db.db, await anOrganization(ui.t.app.db.db));
    const analyst = await ui.api.userWithRole('ROLE_PROJECT_ANALYST', { project: project.projectName });
    const page = await ui.signedIn(analyst.login, 'Passw0rd');
    expect(await navLinks(page)).toEqual(['Home', 'Organizations', 'Source types', 'Notifications', 'OAuth clients', 'Account']);
    await screenshot(page, 'navbar-analyst');
    // Each link it shows opens.
    for (const name of ['Organizations', 'Source types', 'Notifications', 'OAuth clients', 'Account']) {
      const response = await Promise.all([page.waitForEvent('response', (r) => r.request().isNavigationRequest()), page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click()]);
      expect(response[0].status(), name).toBe(200);
    }

    const admin = await ui.signedIn();
    expect(await navLinks(admin)).toEqual(['Home', 'Organizations', 'Source types', 'Notifications', 'Users', 'OAuth clients', 'Audits', 'Account']);
  });

  it('answers an unknown page with the UI\'s error page, whose link leads home', async () => {
    const page = await ui.signedIn();
    const response = await page.goto(`${ui.t.base}/no-such-page`);
    expect(response?.status()).toBe(404);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Error');
    expect(await page.getByRole('alert').textContent()).toBe('Not found.');
    // No page's scope answered it, yet it is a page of the signed-in admin: its navbar, Sign out.
    expect(await navLinks(page)).toEqual(['Home', 'Organizations', 'Source types', 'Notifications', 'Users', 'OAuth clients', 'Audits', 'Account']);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await screenshot(page, 'error-page-404');
    await page.getByRole('link', { name: 'Back to the home page' }).click();
    await page.waitForURL(`${ui.t.base}/`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Studies');
  });
});
