/**
 * `/source-types` in headless Chromium: every source type the API lists, with its source data;
 * a source type created, edited and deleted in the browser, and its source data added, edited and
 * deleted on its page, each read back through the API (issue 31 item 5).
 */
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

  it('creates, edits and deletes a source type and its source data, as the API then shows them', async () => {
    const producer = unique('maker');
    const key = `${producer} Watch v2`;
    const get = async () => ui.api.call('GET', `/api/source-types/${producer}/Watch/v2`, { bearer: ui.adminToken });

    await page.goto(`${ui.t.base}/source-types`);
    await page.getByRole('link', { name: 'Create source type' }).click();
    let form = page.getByRole('form', { name: 'Create source type' });
    await form.getByLabel('Producer').fill(producer);
    await form.getByLabel('Model').fill('Watch');
    await form.getByLabel('Catalogue version').fill('v2');
    await form.getByLabel('Scope').selectOption('ACTIVE');
    await form.getByLabel('Name', { exact: true }).fill('Wrist watch');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source type ${key} created.`);
    expect(await page.getByRole('heading', { name: `Source type ${key}` }).count()).toBe(1);
    expect((await get()).body).toMatchObject({ producer, model: 'Watch', catalogVersion: 'v2', sourceTypeScope: 'ACTIVE', name: 'Wrist watch', canRegisterDynamically: false });

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    form = page.getByRole('form', { name: 'Edit source type' });
    await form.getByLabel('Dynamic registration').check();
    await form.getByLabel('Description').fill('Worn on the wrist');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source type ${key} saved.`);
    expect((await get()).body).toMatchObject({ canRegisterDynamically: true, description: 'Worn on the wrist', name: 'Wrist watch' });

    const topic = unique('acc');
    await page.getByRole('link', { name: 'Add source data' }).click();
    form = page.getByRole('form', { name: `Add source data to ${key}` });
    await form.getByLabel('Source data name').fill(topic);
    await form.getByLabel('Type', { exact: true }).fill('ACCELEROMETER');
    await form.getByLabel('Topic').fill(`android_${topic}`);
    await form.getByLabel('Frequency').fill('32.0');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source data ${topic} added.`);
    expect(await page.getByRole('cell', { name: `android_${topic}`, exact: true }).count()).toBe(1);
    const data = async () => ui.api.call('GET', `/api/source-data/${topic}`, { bearer: ui.adminToken });
    expect((await data()).body).toMatchObject({ sourceDataName: topic, sourceDataType: 'ACCELEROMETER', topic: `android_${topic}`, frequency: '32.0', enabled: true, sourceType: { producer } });

    await page.getByRole('link', { name: `Edit ${topic}` }).click();
    form = page.getByRole('form', { name: `Edit source data of ${key}` });
    await form.getByLabel('Unit').fill('g');
    await form.getByLabel('Enabled').uncheck();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source data ${topic} saved.`);
    expect((await data()).body).toMatchObject({ unit: 'g', enabled: false, frequency: '32.0' });

    await page.getByRole('link', { name: `Delete ${topic}` }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source data ${topic} deleted.`);
    expect((await data()).status).toBe(404);
    expect(((await get()).body as { sourceData?: unknown[] }).sourceData ?? []).toEqual([]);

    await page.getByRole('link', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Source type ${key} deleted.`);
    expect(new URL(page.url()).pathname).toBe('/managementportal/source-types');
    expect((await get()).status).toBe(404);
  });

  it('shows a taken key as a form error, keeping what was typed', async () => {
    const producer = unique('taken');
    const created = await ui.api.call('POST', '/api/source-types', { bearer: ui.adminToken, body: { producer, model: 'E4', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' } });
    expect(created.status).toBe(201);
    await page.goto(`${ui.t.base}/source-types/new`);
    const form = page.getByRole('form', { name: 'Create source type' });
    await form.getByLabel('Producer').fill(producer);
    await form.getByLabel('Model').fill('E4');
    await form.getByLabel('Catalogue version').fill('v1');
    await form.getByLabel('App provider').fill('typed provider');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('already exists');
    expect(await page.getByRole('form', { name: 'Create source type' }).getByLabel('App provider').inputValue()).toBe('typed provider');
  });
});
