/**
 * Issue 31's items 1–8 again with JavaScript off (its Tests section), for the flows no other file
 * repeats without a script: an organization edited and deleted (1; created in setup.test.ts), a
 * project edited and deleted (2), a group created, renamed and deleted (3), a source created,
 * edited, paired, unpaired and deleted (4), a source type and its source data (5), the subject
 * page's history and a subject moved to another project (6), the users list searched and sorted
 * and the subject list's reversed date range (7), and the audit page's filters and CSV export (8).
 * Every page is a server-rendered form; each step is read back through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { BROWSER_WAIT_MS, chromiumInstalled, screenshot, signIn } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { unique, type Json } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';

describe('admin UI with JavaScript off', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let context: BrowserContext;
  let page: Page;
  /** A project of its own organization, with a source type that may not be added dynamically and one that may. */
  let project: { id: number; projectName: string };
  let organization: string;
  let fixedType: Json;
  let dynamicType: Json;

  const api = async (path: string) => ui.api.call('GET', path, { bearer: ui.adminToken });
  const post = async (path: string, body: Json) => {
    const res = await ui.api.call('POST', path, { bearer: ui.adminToken, body });
    expect(res.status, path).toBe(201);
    return res.body as Json;
  };
  const typeLabel = (type: Json) => `${type.producer} ${type.model} ${type.catalogVersion}`;
  const status = async () => page.getByRole('status').first().textContent();

  beforeAll(async () => {
    ui = await startAdminPages();
    context = await ui.browser.newContext({ javaScriptEnabled: false });
    page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    await signIn(page, ui.t.base);
    organization = unique('org-nojs');
    await post('/api/organizations', { name: organization, description: 'Hospital', location: 'Leiden' });
    const producer = unique('maker');
    fixedType = await post('/api/source-types', { producer, model: 'Watch', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false });
    dynamicType = await post('/api/source-types', { producer, model: 'Phone', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: true });
    const created = await post('/api/projects', {
      projectName: unique('study-nojs'), description: 'd', location: 'l', organizationName: organization,
      sourceTypes: [{ id: fixedType.id }, { id: dynamicType.id }],
    });
    project = { id: created.id as number, projectName: created.projectName as string };
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await ui?.close();
  });

  it('the script is off: the page\'s times stay as the server wrote them (UTC)', async () => {
    await page.goto(`${ui.t.base}/users?login=admin`);
    expect(await page.locator('time').first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });

  it('edits an organization, lists its projects, and deletes it once empty (item 1)', async () => {
    const name = unique('org-edit');
    await page.goto(`${ui.t.base}/organizations`);
    await page.getByRole('link', { name: 'Create organization' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Description').fill('Clinic');
    await page.getByLabel('Location').fill('Utrecht');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Organization ${name} created.`);
    const inside = await post('/api/projects', { projectName: unique('p'), description: 'd', location: 'l', organizationName: name });
    await page.reload();
    expect(await page.getByRole('link', { name: inside.projectName as string, exact: true }).count()).toBe(1);

    await page.getByRole('link', { name: 'Edit organization' }).click();
    await page.getByLabel('Description').fill('Teaching clinic');
    await page.getByLabel('Location').fill('Amsterdam');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Organization ${name} saved.`);
    expect((await api(`/api/organizations/${name}`)).body).toMatchObject({ name, description: 'Teaching clinic', location: 'Amsterdam' });

    // Not while it has a project: said on the page, nothing deleted.
    await page.getByRole('link', { name: 'Delete organization' }).click();
    await page.getByRole('button', { name: 'Delete organization' }).click();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect((await api(`/api/organizations/${name}`)).status).toBe(200);
    expect((await ui.api.call('DELETE', `/api/projects/${inside.projectName as string}`, { bearer: ui.adminToken })).status).toBe(200);
    await page.goto(`${ui.t.base}/organizations/${name}`);
    await page.getByRole('link', { name: 'Delete organization' }).click();
    await page.getByRole('button', { name: 'Delete organization' }).click();
    expect(await status()).toBe(`Organization ${name} deleted.`);
    expect((await api(`/api/organizations/${name}`)).status).toBe(404);
    await screenshot(page, 'nojs-organization-deleted');
  });

  it('edits a project and deletes another (item 2)', async () => {
    const other = await post('/api/projects', { projectName: unique('p-del'), description: 'd', location: 'l', organizationName: organization });
    await page.goto(`${ui.t.base}/projects/${project.projectName}`);
    await page.getByRole('link', { name: 'Edit project' }).click();
    await page.getByLabel('Description').fill('Edited without a script');
    await page.getByLabel('Status').selectOption({ label: 'Ongoing' });
    await page.getByLabel('Attribute 1 key').fill('Site');
    await page.getByLabel('Attribute 1 value').fill('LUMC');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Project ${project.projectName} saved.`);
    expect((await api(`/api/projects/${project.projectName}`)).body).toMatchObject({
      description: 'Edited without a script', projectStatus: 'ONGOING', attributes: { Site: 'LUMC' },
      sourceTypes: expect.arrayContaining([expect.objectContaining({ id: fixedType.id })]) as unknown,
    });

    await page.goto(`${ui.t.base}/projects/${other.projectName as string}/edit`);
    await page.getByRole('link', { name: 'Delete project' }).click();
    await page.getByRole('button', { name: 'Delete project' }).click();
    expect(await status()).toBe(`Project ${other.projectName as string} deleted.`);
    expect((await api(`/api/projects/${other.projectName as string}`)).status).toBe(404);
  });

  it('creates, renames and deletes a group (item 3)', async () => {
    const name = unique('cohort');
    await page.goto(`${ui.t.base}/projects/${project.projectName}/groups`);
    const create = page.getByRole('form', { name: 'New group' });
    await create.getByLabel('Group name').fill(name);
    await create.getByRole('button', { name: 'Create group' }).click();
    expect(await status()).toBe(`Group ${name} created.`);
    const renamed = `${name}-b`;
    await page.getByRole('link', { name: `Rename ${name}`, exact: true }).click();
    await page.getByLabel('Group name').fill(renamed);
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Group renamed to ${renamed}.`);
    expect((await api(`/api/projects/${project.projectName}/groups/${renamed}`)).status).toBe(200);
    await page.getByRole('link', { name: `Delete ${renamed}`, exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await status()).toBe(`Group ${renamed} deleted.`);
    expect((await api(`/api/projects/${project.projectName}/groups/${renamed}`)).status).toBe(404);
  });

  it('creates, edits, pairs, unpairs and deletes a source, and adds one of a dynamic type (item 4)', async () => {
    const subject = (await post('/api/subjects', { project, externalId: unique('src') })).login as string;
    const name = unique('watch');
    await page.goto(`${ui.t.base}/projects/${project.projectName}/sources`);
    await page.getByRole('link', { name: 'Create source' }).click();
    let form = page.getByRole('form', { name: 'Create source' });
    await form.getByLabel('Source name', { exact: true }).fill(name);
    await form.getByLabel('Source type').selectOption({ label: typeLabel(fixedType) });
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source ${name} created.`);
    await page.getByRole('link', { name: `Edit ${name}`, exact: true }).click();
    form = page.getByRole('form', { name: `Edit source ${name}` });
    await form.getByLabel('Attributes').fill('wrist=left');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source ${name} saved.`);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({ sourceName: name, assigned: false, attributes: { wrist: 'left' } });

    await page.goto(`${ui.t.base}/projects/${project.projectName}?login=${subject}`);
    await page.getByRole('row').filter({ hasText: subject }).getByRole('link', { name: 'Pair sources' }).click();
    await page.getByRole('button', { name: `Assign ${name}`, exact: true }).click();
    expect(await status()).toBe(`Source ${name} assigned to ${subject}.`);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({ assigned: true, subjectLogin: subject });
    await page.getByRole('button', { name: `Unassign ${name}`, exact: true }).click();
    expect(await status()).toBe(`Source ${name} unassigned from ${subject}.`);
    await page.getByRole('button', { name: `Add a ${typeLabel(dynamicType)} source`, exact: true }).click();
    expect(await status()).toMatch(new RegExp(`^Source Phone-[0-9a-f]{8} added to ${subject}\\.$`));
    expect(((await api(`/api/subjects/${subject}/sources`)).body as Json[]).map((s) => s.sourceTypeId)).toEqual([dynamicType.id]);

    // Never assigned: deleted.
    const other = unique('spare');
    await post('/api/sources', { sourceName: other, assigned: false, sourceType: { id: fixedType.id }, project: { id: project.id } });
    await page.goto(`${ui.t.base}/projects/${project.projectName}/sources`);
    await page.getByRole('link', { name: `Delete ${other}`, exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await status()).toBe(`Source ${other} deleted.`);
    expect((await api(`/api/sources/${other}`)).status).toBe(404);
  });

  it('creates, edits and deletes a source type and its source data (item 5)', async () => {
    const producer = unique('nojs-maker');
    const key = `${producer} Ring v3`;
    const get = async () => api(`/api/source-types/${producer}/Ring/v3`);
    await page.goto(`${ui.t.base}/source-types`);
    await page.getByRole('link', { name: 'Create source type' }).click();
    let form = page.getByRole('form', { name: 'Create source type' });
    await form.getByLabel('Producer').fill(producer);
    await form.getByLabel('Model').fill('Ring');
    await form.getByLabel('Catalogue version').fill('v3');
    await form.getByLabel('Scope').selectOption('PASSIVE');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source type ${key} created.`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    form = page.getByRole('form', { name: 'Edit source type' });
    await form.getByLabel('Dynamic registration').check();
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source type ${key} saved.`);
    expect((await get()).body).toMatchObject({ producer, model: 'Ring', catalogVersion: 'v3', sourceTypeScope: 'PASSIVE', canRegisterDynamically: true });

    const data = unique('hr');
    await page.getByRole('link', { name: 'Add source data' }).click();
    form = page.getByRole('form', { name: `Add source data to ${key}` });
    await form.getByLabel('Source data name').fill(data);
    await form.getByLabel('Type', { exact: true }).fill('HEART_RATE');
    await form.getByLabel('Topic').fill(`ring_${data}`);
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source data ${data} added.`);
    await page.getByRole('link', { name: `Edit ${data}` }).click();
    form = page.getByRole('form', { name: `Edit source data of ${key}` });
    await form.getByLabel('Unit').fill('bpm');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Source data ${data} saved.`);
    expect((await api(`/api/source-data/${data}`)).body).toMatchObject({ sourceDataType: 'HEART_RATE', topic: `ring_${data}`, unit: 'bpm', sourceType: { producer } });
    await page.getByRole('link', { name: `Delete ${data}` }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await status()).toBe(`Source data ${data} deleted.`);
    expect((await api(`/api/source-data/${data}`)).status).toBe(404);

    await page.getByRole('link', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await status()).toBe(`Source type ${key} deleted.`);
    expect((await get()).status).toBe(404);
  });

  it('shows a subject\'s history after edits, and keeps it when the subject moves to another project (item 6)', async () => {
    const second = await post('/api/projects', { projectName: unique('p-move'), description: 'd', location: 'l', organizationName: organization });
    const login = (await post('/api/subjects', { project, externalId: 'N-0' })).login as string;
    const edit = async (fill: () => Promise<void>) => {
      await page.getByRole('region', { name: /^Subject / }).getByRole('link', { name: 'Edit', exact: true }).click();
      await fill();
      await page.getByRole('form', { name: 'Edit subject' }).getByRole('button', { name: 'Save' }).click();
      expect(await status()).toBe(`Subject ${login} saved.`);
    };
    await page.goto(`${ui.t.base}/projects/${project.projectName}?login=${login}`);
    await page.getByRole('link', { name: login, exact: true }).click();
    expect(await page.getByRole('heading', { name: `Subject ${login}` }).count()).toBe(1);
    await edit(async () => page.getByLabel('External ID').fill('N-1'));
    await page.goto(`${ui.t.base}/projects/${project.projectName}/subjects/${login}`);
    await edit(async () => { await page.getByLabel('Project').selectOption(second.projectName as string); });
    expect(new URL(page.url()).pathname).toBe(`/managementportal/projects/${second.projectName as string}/subjects/${login}`);
    expect((await api(`/api/subjects/${login}`)).body).toMatchObject({ externalId: 'N-1', project: { projectName: second.projectName } });

    await page.goto(`${ui.t.base}/projects/${second.projectName as string}/subjects/${login}`);
    const rows = await page.getByRole('table', { name: 'History' }).getByRole('row').all();
    const cells = await Promise.all(rows.slice(1).map(async (row) => (await row.getByRole('cell').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim())));
    expect(cells.map((row) => row.slice(1, 3))).toEqual([['admin', 'Changed'], ['admin', 'Changed'], ['admin', 'Created']]);
    expect(cells[0]![3]).toBe(`Project: ${project.projectName} → ${second.projectName as string}`);
    expect(cells[1]![3]).toBe('External ID: N-0 → N-1');
    const revisions = (await api(`/api/subjects/${login}/revisions`)).body as Json[];
    expect(revisions).toHaveLength(3);
    await screenshot(page, 'nojs-subject-history');
  });

  it('searches and sorts the users list, and refuses a reversed enrolment range keeping the filters (item 7)', async () => {
    const tag = unique('nojs-user').toLowerCase();
    for (const [suffix, lastName] of [['a', 'Zwart'], ['b', 'Aalders']] as const) {
      await post('/api/users', { login: `${tag}-${suffix}`, firstName: 'Test', lastName, email: `${tag}-${suffix}@example.org`, langKey: 'en', roles: [] });
    }
    await page.goto(`${ui.t.base}/users`);
    const search = page.getByRole('search');
    await search.getByLabel('Login').fill(tag);
    await search.getByRole('button', { name: 'Search' }).click();
    const logins = async () => (await page.getByRole('row').allInnerTexts()).map((row) => row.split('\t')[0]!.trim()).filter((login) => login.startsWith(tag));
    expect(await logins()).toEqual([`${tag}-a`, `${tag}-b`]);
    await page.getByRole('link', { name: /^Name/ }).click();
    expect(new URL(page.url()).searchParams.get('login')).toBe(tag);
    expect(await logins()).toEqual([`${tag}-b`, `${tag}-a`]);

    const response = await page.goto(`${ui.t.base}/projects/${project.projectName}?enrolledFrom=2026-03-01&enrolledTo=2026-01-01`);
    expect(response?.status()).toBe(400);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('enrolledFrom')).toBe('2026-03-01');
  });

  it('filters the audit page by kind, actor, target type and target, and exports the filtered events as CSV (item 8)', async () => {
    const name = unique('org-audit');
    await post('/api/organizations', { name, description: 'd', location: 'l' });
    await page.goto(`${ui.t.base}/organizations/${name}`);
    await page.getByRole('link', { name: 'Edit organization' }).click();
    await page.getByLabel('Location').fill('elsewhere');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status()).toBe(`Organization ${name} saved.`);

    await page.goto(`${ui.t.base}/audits`);
    const form = page.getByRole('search');
    await form.getByLabel('Kind').selectOption('ENTITY_UPDATED');
    await form.getByLabel('Actor').fill('admin');
    await form.getByLabel('Target type').selectOption('organization');
    await form.getByLabel('Target', { exact: true }).fill(name);
    await form.getByRole('button', { name: 'Search' }).click();
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ type: 'ENTITY_UPDATED', principal: 'admin', targetType: 'organization', target: name });
    // The filters stay in the form.
    expect(await form.getByLabel('Target', { exact: true }).inputValue()).toBe(name);

    const filtered = await ui.api.call('GET', `/management/audits?type=ENTITY_UPDATED&principal=admin&targetType=organization&target=${name}`, { bearer: ui.adminToken });
    const events = filtered.body as Json[];
    expect(events).toHaveLength(1);
    const rows = await page.getByRole('row').all();
    expect(rows).toHaveLength(2); // the header and the one event
    expect(await rows[1]!.innerText()).toContain('location: "l" → "elsewhere"');

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await context.request.get(new URL(href!, ui.t.origin).toString());
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trim().split(/\r?\n/);
    expect(lines[0]).toBe('id,timestamp,principal,type,address,targetType,target,data,changes');
    expect(lines).toHaveLength(2);
    // Every cell quoted (RFC 4180): who, the kind, the target and the change.
    expect(lines[1]).toContain('"admin","ENTITY_UPDATED"');
    expect(lines[1]).toContain(`"organization","${name}"`);
    expect(lines[1]).toContain('""location"":{""new"":""elsewhere"",""old"":""l""}');
    await screenshot(page, 'nojs-audits-filtered');
  });
});
