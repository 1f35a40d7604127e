/**
 * Study setup in headless Chromium (issue 31 items 1–2): an organization created, a project in
 * it with dates, status, attributes (with "More attribute rows") and a source type, edited, its
 * header on every tab, each step read back through the API; then the project and the organization
 * deleted. The create is done once more with JavaScript off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_WAIT_MS, chromiumInstalled, screenshot, signIn } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { unique, type Json } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI: study setup', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let page: Page;
  let sourceType: Json;

  beforeAll(async () => {
    ui = await startAdminPages();
    page = await ui.signedIn();
    sourceType = (await ui.api.call('POST', '/api/source-types', {
      bearer: ui.adminToken, body: { producer: unique('Empatica'), model: 'E4', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false },
    })).body;
  });
  afterAll(async () => ui?.close());

  const apiGet = async (path: string) => ui.api.call('GET', path, { bearer: ui.adminToken });
  const typeLabel = () => `${sourceType.producer}_${sourceType.model}_${sourceType.catalogVersion}`;

  async function createOrganization(p: Page, name: string) {
    await p.goto(`${ui.t.base}/organizations`);
    await p.getByRole('link', { name: 'Create organization' }).click();
    await p.getByLabel('Name', { exact: true }).fill(name);
    await p.getByLabel('Description').fill('University hospital');
    await p.getByLabel('Location').fill('Utrecht');
    await p.getByRole('button', { name: 'Save' }).click();
    await p.waitForURL(/notice=created/);
    expect(await p.getByRole('status').textContent()).toBe(`Organization ${name} created.`);
  }

  async function fillProject(p: Page, project: string) {
    await p.getByLabel('Project name').fill(project);
    await p.getByLabel('Description').fill('Remote monitoring of depression');
    await p.getByLabel('Location').fill('Utrecht');
    await p.getByLabel('Start date').fill('2026-02-01');
    await p.getByLabel('End date').fill('2026-11-30');
    await p.getByLabel('Status').selectOption({ label: 'Ongoing' });
    await p.getByLabel(typeLabel()).check();
    for (const [i, [key, value]] of [['Privacy-policy-url', 'https://example.org/privacy'], ['Site', 'UMCU'], ['Wave', '1']].entries()) {
      await p.getByLabel(`Attribute ${i + 1} key`).fill(key!);
      await p.getByLabel(`Attribute ${i + 1} value`).fill(value!);
    }
  }

  it('creates an organization and a project in it, edits the project, shows its header on every tab, and deletes both', async () => {
    const org = unique('org');
    const project = unique('study');
    await createOrganization(page, org);
    expect(await apiGet(`/api/organizations/${org}`)).toMatchObject({ status: 200, body: { name: org, description: 'University hospital', location: 'Utrecht' } });

    await page.getByRole('link', { name: 'Create project' }).click();
    expect(await page.getByLabel('Organization').inputValue()).toBe(org);
    await fillProject(page, project);
    // Three rows are filled: one more row is asked for (nothing saved yet), and filled.
    await page.getByRole('button', { name: 'More attribute rows' }).click();
    expect(await page.getByLabel('Attribute 1 value').inputValue()).toBe('https://example.org/privacy');
    expect(await page.getByLabel('Project name').inputValue()).toBe(project);
    expect((await apiGet(`/api/projects/${project}`)).status).toBe(404);
    await page.getByLabel('Attribute 4 key').fill('Country');
    await page.getByLabel('Attribute 4 value').fill('NL');
    await screenshot(page, 'setup-project-create');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/project=created/);
    expect(await page.getByRole('status').first().textContent()).toBe(`Project ${project} created.`);

    const created = (await apiGet(`/api/projects/${project}`)).body;
    expect(created).toMatchObject({
      projectName: project, description: 'Remote monitoring of depression', location: 'Utrecht', organizationName: org,
      startDate: '2026-02-01T00:00:00.000Z', endDate: '2026-11-30T00:00:00.000Z', projectStatus: 'ONGOING',
      attributes: { 'Privacy-policy-url': 'https://example.org/privacy', Site: 'UMCU', Wave: '1', Country: 'NL' },
      sourceTypes: [expect.objectContaining({ id: sourceType.id })],
    });

    // The header, the same on every tab.
    for (const tab of ['Subjects', 'Groups', 'Sources', 'Admins']) {
      await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: tab }).click();
      const header = page.getByRole('region', { name: 'About this project' });
      const text = await header.textContent();
      for (const shown of ['Remote monitoring of depression', org, 'Utrecht', 'Ongoing', '2026-02-01', '2026-11-30', 'Site: UMCU', 'Country: NL']) {
        expect(text, `${tab}: ${shown}`).toContain(shown);
      }
      expect(await header.getByRole('link', { name: 'Edit project' }).count()).toBe(1);
    }
    await screenshot(page, 'setup-project-header');

    await page.getByRole('link', { name: 'Edit project' }).click();
    expect(await page.getByLabel('Start date').inputValue()).toBe('2026-02-01');
    expect(await page.getByLabel(typeLabel()).isChecked()).toBe(true);
    await page.getByLabel('Description').fill('Remote monitoring, second wave');
    await page.getByLabel('End date').fill('2027-03-31');
    await page.getByLabel('Status').selectOption({ label: 'Ended' });
    await page.getByLabel(typeLabel()).uncheck();
    // Remove "Wave" by emptying its row; add one in an empty row.
    const keys = await Promise.all([1, 2, 3, 4].map((i) => page.getByLabel(`Attribute ${i} key`).inputValue()));
    const wave = keys.indexOf('Wave') + 1;
    await page.getByLabel(`Attribute ${wave} key`).fill('');
    await page.getByLabel(`Attribute ${wave} value`).fill('');
    await page.getByLabel('Attribute 5 key').fill('Phase');
    await page.getByLabel('Attribute 5 value').fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/project=updated/);
    expect(await page.getByRole('status').first().textContent()).toBe(`Project ${project} saved.`);
    const updated = (await apiGet(`/api/projects/${project}`)).body;
    expect(updated).toMatchObject({
      description: 'Remote monitoring, second wave', startDate: '2026-02-01T00:00:00.000Z', endDate: '2027-03-31T00:00:00.000Z', projectStatus: 'ENDED',
      attributes: { 'Privacy-policy-url': 'https://example.org/privacy', Site: 'UMCU', Country: 'NL', Phase: '2' },
    });
    expect(updated.attributes.Wave).toBeUndefined();
    expect(updated.sourceTypes ?? []).toEqual([]);

    // The organization page lists the project; then the project is deleted.
    await page.getByRole('region', { name: 'About this project' }).getByRole('link', { name: org }).click();
    expect(await page.getByRole('link', { name: project, exact: true }).count()).toBe(1);
    await page.goto(`${ui.t.base}/projects/${project}/edit`);
    await page.getByRole('link', { name: 'Delete project' }).click();
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.waitForURL(/deletedProject=/);
    expect(await page.getByRole('status').textContent()).toBe(`Project ${project} deleted.`);
    expect((await apiGet(`/api/projects/${project}`)).status).toBe(404);

    // The organization, now empty: edited, then deleted.
    await page.getByRole('link', { name: 'Edit organization' }).click();
    await page.getByLabel('Location').fill('Amsterdam');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/notice=updated/);
    expect(await page.getByRole('status').textContent()).toBe(`Organization ${org} saved.`);
    expect((await apiGet(`/api/organizations/${org}`)).body.location).toBe('Amsterdam');
    await page.getByRole('link', { name: 'Delete organization' }).click();
    await page.getByRole('button', { name: 'Delete organization' }).click();
    await page.waitForURL(/deleted=/);
    expect(await page.getByRole('status').textContent()).toBe(`Organization ${org} deleted.`);
    expect((await apiGet(`/api/organizations/${org}`)).status).toBe(404);
    await screenshot(page, 'setup-organization-deleted');
  });

  it('shows a refused form with an alert and what was typed: a reversed date range', async () => {
    const project = unique('study');
    await page.goto(`${ui.t.base}/projects/new?organization=main`);
    await fillProject(page, project);
    await page.getByLabel('End date').fill('2026-01-15');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('The end date is before the start date.');
    expect(await page.getByLabel('Project name').inputValue()).toBe(project);
    expect(await page.getByLabel('Attribute 2 value').inputValue()).toBe('UMCU');
    expect((await apiGet(`/api/projects/${project}`)).status).toBe(404);
  });

  it('works with JavaScript off: creates an organization and a project in it', async () => {
    const context = await ui.browser.newContext({ javaScriptEnabled: false });
    const p = await context.newPage();
    p.setDefaultTimeout(BROWSER_WAIT_MS);
    await signIn(p, ui.t.base);
    const org = unique('org-nojs');
    const project = unique('study-nojs');
    await createOrganization(p, org);
    await p.getByRole('link', { name: 'Create project' }).click();
    await fillProject(p, project);
    await p.getByRole('button', { name: 'More attribute rows' }).click();
    await p.getByLabel('Attribute 5 key').fill('Country');
    await p.getByLabel('Attribute 5 value').fill('NL');
    await p.getByRole('button', { name: 'Save' }).click();
    await p.waitForURL(/project=created/);
    expect(await p.getByRole('status').first().textContent()).toBe(`Project ${project} created.`);
    expect((await apiGet(`/api/projects/${project}`)).body).toMatchObject({
      organizationName: org, startDate: '2026-02-01T00:00:00.000Z', endDate: '2026-11-30T00:00:00.000Z', projectStatus: 'ONGOING',
      attributes: { Site: 'UMCU', Wave: '1', Country: 'NL' },
    });
    await screenshot(p, 'setup-project-nojs');
    await context.close();
  });
});
