/**
 * The subject page in headless Chromium (issue 31 item 6): opened from the subject list's login
 * cell, it shows the subject's history; after three edits in the "Edit subject" form, three
 * changes with who, when and old → new. Moving the subject to another project in the same form
 * keeps that history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, chromiumInstalled } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { type Json } from '../../helpers/management-api.js';
import { aProjectIn, mainOrganization } from '../../fixtures/management.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: the subject page', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let page: Page;
  let first: { id: number; projectName: string };
  let second: { id: number; projectName: string };

  beforeAll(async () => {
    ui = await startAdminPages();
    const db = ui.t.app.db.db;
    first = await aProjectIn(db, await mainOrganization(db));
    second = await aProjectIn(db, await mainOrganization(db));
    page = await ui.signedIn();
  }, 120_000);
  afterAll(async () => ui?.close());

  /** Opens the subject's page from the login cell of its project's list. */
  async function openFromList(project: string, login: string) {
    await page.goto(`${ui.t.base}/projects/${project}?login=${login}`);
    await page.getByRole('link', { name: login, exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: `Subject ${login}` }).count()).toBe(1);
  }

  async function edit(fill: (form: ReturnType<Page['getByRole']>) => Promise<void>) {
    await page.getByRole('region', { name: /^Subject / }).getByRole('link', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit subject' });
    await fill(form);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/edit'));
  }

  /** The history table's rows (header left out), each as its cells' text. */
  async function historyRows(): Promise<string[][]> {
    const table = page.getByRole('table', { name: 'History' });
    const rows = await table.getByRole('row').all();
    const cells = await Promise.all(rows.slice(1).map(async (row) => row.getByRole('cell').allInnerTexts()));
    return cells.map((texts) => texts.map((text) => text.replace(/\s+/g, ' ').trim()));
  }

  it('after three edits shows three changes, each with who, when and old → new', async () => {
    const created = await ui.api.call('POST', '/api/subjects', { bearer: ui.adminToken, body: { project: first, externalId: 'E-0' } });
    expect(created.status).toBe(201);
    const login = (created.body as Json).login as string;

    await openFromList(first.projectName, login);
    await edit(async (form) => form.getByLabel('External ID').fill('E-1'));
    await openFromList(first.projectName, login);
    await edit(async (form) => form.getByLabel('Person name').fill('Ada Lovelace'));
    await openFromList(first.projectName, login);
    await edit(async (form) => form.getByLabel('Attributes').fill('site=Leiden'));
    await openFromList(first.projectName, login);

    const rows = await historyRows();
    expect(rows).toHaveLength(4);
    // Newest first: who, what and the changes; when is a time in UTC.
    expect(rows.map((r) => r.slice(1))).toEqual([
      ['admin', 'Changed', 'Attribute site: — → Leiden'],
      ['admin', 'Changed', 'Person name: — → Ada Lovelace'],
      ['admin', 'Changed', 'External ID: E-0 → E-1'],
      ['admin', 'Created', expect.stringContaining('External ID: — → E-0') as unknown as string],
    ]);
    // When: each row's time is the API's revision timestamp (newest first).
    const api = await ui.api.call('GET', `/api/subjects/${login}/revisions?size=100&sort=id,desc`, { bearer: ui.adminToken });
    const times = await page.getByRole('table', { name: 'History' }).locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')));
    expect(times).toEqual((api.body as Json[]).map((r) => new Date(r.timestamp as string).toISOString()));
    for (const row of rows) expect(row[0]).not.toBe('');
    expect(await page.getByText('4 revisions').count()).toBe(1);
    await screenshot(page, 'subject-page-history');
  });

  it('keeps the history when "Edit subject" moves the subject to another project', async () => {
    const created = await ui.api.call('POST', '/api/subjects', { bearer: ui.adminToken, body: { project: first, externalId: 'M-0' } });
    const login = (created.body as Json).login as string;
    await openFromList(first.projectName, login);
    await edit(async (form) => form.getByLabel('External ID').fill('M-1'));
    await openFromList(first.projectName, login);
    await edit(async (form) => { await form.getByLabel('Project').selectOption(second.projectName); });
    // Lands on the subject's page in its new project, naming what was saved.
    expect(new URL(page.url()).pathname).toBe(`/managementportal/projects/${second.projectName}/subjects/${login}`);
    expect(await page.getByRole('status').textContent()).toBe(`Subject ${login} saved.`);

    const api = await ui.api.call('GET', `/api/subjects/${login}`, { bearer: ui.adminToken });
    expect((api.body as Json).project.projectName).toBe(second.projectName);
    await openFromList(second.projectName, login);
    const rows = await historyRows();
    expect(rows.map((r) => r[2])).toEqual(['Changed', 'Changed', 'Created']);
    expect(rows[0]![3]).toBe(`Project: ${first.projectName} → ${second.projectName}`);
    expect(rows[1]![3]).toBe('External ID: M-0 → M-1');
  });
});
