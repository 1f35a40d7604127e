/** `/source-types` in headless Chromium: every source type the API lists, with its source data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { unique } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: source types', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let page: Page;

  beforeAll(async () => {
    ui = await startAdminPages();
    page = await ui.signedIn();
  });
  afterAll(async () => ui?.close());

  it('lists the source types the API lists, each with its source data', async () => {
    const producer = unique('producer');
    const topics = [unique('topic'), unique('topic')];
    for (const model of ['E4', 'Phone']) {
      const res = await ui.api.call('POST', '/api/source-types', {
        bearer: ui.adminToken,
        body: {
          producer, model, catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: model === 'Phone',
          sourceData: model === 'E4' ? topics.map((name) => ({ sourceDataName: name, sourceDataType: 'ACCELEROMETER', topic: name, frequency: '32.0', unit: 'G' })) : [],
        },
      });
      expect(res.status).toBe(201);
    }
    await page.goto(`${ui.t.base}/source-types`);
    const listed = (await ui.api.call('GET', '/api/source-types?size=50', { bearer: ui.adminToken })).body as { producer: string; model: string; catalogVersion: string }[];
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
