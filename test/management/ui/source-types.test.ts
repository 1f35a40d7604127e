/** `/source-types` in headless Chromium: every source type the API lists, with its source data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshot, signIn, startUiApp, type UiTestApp } from '../../helpers/browser.js';
import { managementClient, unique } from '../../helpers/management-api.js';

describe.skipIf(!browserAvailable)('admin UI: source types', () => {
  let t: UiTestApp;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof managementClient>;
  let adminToken: string;

  beforeAll(async () => {
    t = await startUiApp();
    api = managementClient(t.app);
    adminToken = await api.tokenOf('admin', 'admin');
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

  it('lists the source types the API lists, each with its source data', async () => {
    const producer = unique('producer');
    const topics = [unique('topic'), unique('topic')];
    for (const model of ['E4', 'Phone']) {
      const res = await api.call('POST', '/api/source-types', {
        bearer: adminToken,
        body: {
          producer, model, catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: model === 'Phone',
          sourceData: model === 'E4' ? topics.map((name) => ({ sourceDataName: name, sourceDataType: 'ACCELEROMETER', topic: name, frequency: '32.0', unit: 'G' })) : [],
        },
      });
      expect(res.status).toBe(201);
    }
    await page.goto(`${t.base}/source-types`);
    const listed = (await api.call('GET', '/api/source-types?size=50', { bearer: adminToken })).body as { producer: string; model: string; catalogVersion: string }[];
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const type of listed) {
      expect(await page.getByRole('cell', { name: `${type.producer} ${type.model} ${type.catalogVersion}`, exact: true }).count()).toBe(1);
    }
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: `${producer} E4 v1`, exact: true }) }).first();
    await row.getByText('2 source data').click();
    for (const topic of topics) expect(await page.getByRole('cell', { name: topic, exact: true }).count()).toBe(2); // name and topic
    await screenshot(page, 'source-types');
  });
});
