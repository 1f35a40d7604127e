/** `/audits` in headless Chromium: the events of a date range, as `GET /management/audits` counts them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: audits', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let page: Page;

  beforeAll(async () => {
    ui = await startAdminPages(); // its admin token: a GRANT_ACCESS_TOKEN event
    page = await ui.signedIn();
  });
  afterAll(async () => ui?.close());

  it('shows the events of the chosen days, and none for days without any', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`${ui.t.base}/audits`);
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('fromDate') === today);
    const api20 = await ui.api.call('GET', `/management/audits?fromDate=${today}&toDate=${today}&size=20`, { bearer: ui.adminToken });
    const events = api20.body as { principal: string; type: string }[];
    expect(events.length).toBeGreaterThan(0);
    // One row per event of the page, plus the header.
    expect(await page.getByRole('row').count()).toBe(events.length + 1);
    expect(await page.getByRole('cell', { name: 'GRANT_ACCESS_TOKEN', exact: true }).count()).toBeGreaterThan(0);
    await screenshot(page, 'audits');

    await page.getByLabel('From', { exact: true }).fill('2001-01-01');
    await page.getByLabel('To', { exact: true }).fill('2001-01-31');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('fromDate') === '2001-01-01');
    expect(await page.getByRole('row').count()).toBe(0);
    expect(await page.getByText('No audit events in this period.').count()).toBe(1);
  });

  it('answers a reversed or impossible range with 400 and an alert', async () => {
    const reversed = await page.goto(`${ui.t.base}/audits?fromDate=2020-02-02&toDate=2020-02-01`);
    expect(reversed?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('after its end');
    const impossible = await page.goto(`${ui.t.base}/audits?fromDate=2020-02-30&toDate=2020-03-01`);
    expect(impossible?.status()).toBe(400);
    const malformed = await page.goto(`${ui.t.base}/audits?fromDate=yesterday`);
    expect(malformed?.status()).toBe(400);
  });

  it('refuses a project admin (403), as the API does', async () => {
    const { projectName } = (await ui.api.call('POST', '/api/projects', {
      bearer: ui.adminToken, body: { projectName: `audit-${Date.now()}`, description: 'd', location: 'l', organizationName: 'main' },
    })).body as { projectName: string };
    const admin = await ui.api.userWithRole('ROLE_PROJECT_ADMIN', { project: projectName });
    expect((await ui.api.call('GET', '/management/audits', { bearer: admin.token })).status).toBe(403);
    const other = await ui.signedIn(admin.login, 'Passw0rd');
    const response = await other.goto(`${ui.t.base}/audits`);
    expect(response?.status()).toBe(403);
  });
});
