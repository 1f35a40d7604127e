/** `/audits` in headless Chromium: the events of a date range, as `GET /management/audits` counts them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshot, signIn, startUiApp, type UiTestApp } from '../../helpers/browser.js';
import { managementClient } from '../../helpers/management-api.js';

describe.skipIf(!browserAvailable)('admin UI: audits', () => {
  let t: UiTestApp;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof managementClient>;
  let adminToken: string;

  beforeAll(async () => {
    t = await startUiApp();
    api = managementClient(t.app);
    adminToken = await api.tokenOf('admin', 'admin'); // a GRANT_ACCESS_TOKEN event
    browser = await launchBrowser();
    page = await browser.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${t.base}/login`);
    await signIn(page, t.base);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the events of the chosen days, and none for days without any', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`${t.base}/audits`);
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To').fill(today);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('fromDate') === today);
    const api20 = await api.call('GET', `/management/audits?fromDate=${today}&toDate=${today}&size=20`, { bearer: adminToken });
    const events = api20.body as { principal: string; type: string }[];
    expect(events.length).toBeGreaterThan(0);
    // One row per event of the page, plus the header.
    expect(await page.getByRole('row').count()).toBe(events.length + 1);
    expect(await page.getByRole('cell', { name: 'GRANT_ACCESS_TOKEN', exact: true }).count()).toBeGreaterThan(0);
    await screenshot(page, 'audits');

    await page.getByLabel('From').fill('2001-01-01');
    await page.getByLabel('To').fill('2001-01-31');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('fromDate') === '2001-01-01');
    expect(await page.getByRole('row').count()).toBe(0);
    expect(await page.getByText('No audit events in this period.').count()).toBe(1);
  });

  it('answers a reversed or impossible range with 400 and an alert', async () => {
    const reversed = await page.goto(`${t.base}/audits?fromDate=2020-02-02&toDate=2020-02-01`);
    expect(reversed?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('after its end');
    const impossible = await page.goto(`${t.base}/audits?fromDate=2020-02-30&toDate=2020-03-01`);
    expect(impossible?.status()).toBe(400);
    const malformed = await page.goto(`${t.base}/audits?fromDate=yesterday`);
    expect(malformed?.status()).toBe(400);
  });

  it('refuses a project admin (403), as the API does', async () => {
    const { projectName } = (await api.call('POST', '/api/projects', {
      bearer: adminToken, body: { projectName: `audit-${Date.now()}`, description: 'd', location: 'l', organizationName: 'main' },
    })).body as { projectName: string };
    const admin = await api.userWithRole('ROLE_PROJECT_ADMIN', { project: projectName });
    expect((await api.call('GET', '/management/audits', { bearer: admin.token })).status).toBe(403);
    const other = await (await browser.newContext()).newPage();
    await other.goto(`${t.base}/login`);
    await signIn(other, t.base, admin.login, 'Passw0rd');
    const response = await other.goto(`${t.base}/audits`);
    expect(response?.status()).toBe(403);
  });
});
