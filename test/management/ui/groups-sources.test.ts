/**
 * A project's groups and sources in the admin UI (issue 31 items 3–4): in a browser, a group is
 * created, renamed, given two subjects from the subject list's selection, loses one and is
 * deleted; a source is created, edited, paired to a subject on its "Pair sources" page and
 * unpaired; each step read back through the API. Over HTTP: the API's refusals (a taken group
 * name, a group with subjects, an assigned or once-assigned source) are form errors keeping what
 * was typed, "Select all on this page" works without a script, and a project admin of another
 * project gets 403 on every form post with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, chromiumInstalled, launchBrowser, screenshot, signIn, startUiApp, type UiTestApp } from '../../helpers/browser.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';

let t: UiTestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let radar: { id: number; projectName: string };
/** Source types of `radar`: one that may not be added dynamically, one that may. */
let fixedType: Json;
let dynamicType: Json;

beforeAll(async () => {
  t = await startUiApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const project = (await mc.call('GET', '/api/projects/radar', { bearer: admin })).body as Json;
  radar = { id: project.id, projectName: 'radar' };
  const types = (await mc.call('GET', '/api/projects/radar/source-types', { bearer: admin })).body as Json[];
  fixedType = types.find((type) => !type.canRegisterDynamically)!;
  dynamicType = types.find((type) => type.canRegisterDynamically)!;
  expect(fixedType).toBeDefined();
  expect(dynamicType).toBeDefined();
}, 120_000);
afterAll(async () => { await t?.close(); });

const api = async (path: string) => mc.call('GET', path, { bearer: admin });
const newSubject = async () => (await mc.subjectIn(radar, admin)).login as string;
const typeLabel = (type: Json) => `${type.producer} ${type.model} ${type.catalogVersion}`;
async function newSource(assigned = false): Promise<string> {
  const res = await mc.call('POST', '/api/sources', {
    bearer: admin, body: { sourceName: unique('dev'), assigned, sourceType: { id: fixedType.id }, project: { id: radar.id } },
  });
  expect(res.status).toBe(201);
  return res.body.sourceName as string;
}

describe('groups and sources in the browser', requires(chromiumInstalled), () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    if (!browserAvailable) return;
    browser = await launchBrowser();
    page = await browser.newPage();
    await signIn(page, t.base);
  }, 60_000);
  afterAll(async () => browser?.close());

  it('creates a group, renames it, adds two subjects from the list, removes one and deletes the group', async () => {
    const [first, second] = [await newSubject(), await newSubject()];
    const name = unique('cohort');
    await page.goto(`${t.base}/projects/radar/groups`);
    const create = page.getByRole('form', { name: 'New group' });
    await create.getByLabel('Group name').fill(name);
    await create.getByRole('button', { name: 'Create group' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Group ${name} created.`);
    expect((await api(`/api/projects/radar/groups/${name}`)).status).toBe(200);

    const renamed = `${name}-b`;
    await page.getByRole('link', { name: `Rename ${name}`, exact: true }).click();
    await page.getByLabel('Group name').fill(renamed);
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Group renamed to ${renamed}.`);
    expect((await api(`/api/projects/radar/groups/${renamed}`)).status).toBe(200);
    expect((await api(`/api/projects/radar/groups/${name}`)).status).toBe(404);

    // Select two subjects of the list and add them.
    await page.goto(`${t.base}/projects/radar?sort=id,desc`);
    await page.getByRole('checkbox', { name: `Select ${first}` }).check();
    await page.getByRole('checkbox', { name: `Select ${second}` }).check();
    await page.getByLabel('Group for the selected subjects').selectOption({ label: renamed });
    await screenshot(page, 'groups-select-subjects');
    await page.getByRole('button', { name: 'Add to group' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`2 subject(s) added to group ${renamed}.`);
    expect((await api(`/api/subjects/${first}`)).body.group).toBe(renamed);
    expect((await api(`/api/subjects/${second}`)).body.group).toBe(renamed);

    // Remove one: from the group's own list (the group's link on the groups tab).
    await page.getByRole('link', { name: renamed, exact: true }).click();
    await page.getByRole('checkbox', { name: `Select ${first}` }).check();
    await page.getByLabel('Group for the selected subjects').selectOption({ label: renamed });
    await page.getByRole('button', { name: 'Remove from group' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`1 subject(s) removed from group ${renamed}.`);
    expect((await api(`/api/subjects/${first}`)).body.group).toBeNull();
    expect((await api(`/api/subjects/${second}`)).body.group).toBe(renamed);

    // Delete: refused while it has a subject, unless its subjects are taken out.
    await page.getByRole('link', { name: `Delete ${renamed}`, exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('has subjects');
    await page.getByLabel(/Also take its subjects out of the group/).check();
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Group ${renamed} deleted.`);
    expect((await api(`/api/projects/radar/groups/${renamed}`)).status).toBe(404);
    expect((await api(`/api/subjects/${second}`)).body.group).toBeNull();
    await screenshot(page, 'groups-deleted');
  });

  it('creates a source, edits it, pairs it to a subject, unpairs it, and adds one of a dynamic type', async () => {
    const subject = await newSubject();
    const name = unique('watch');
    await page.goto(`${t.base}/projects/radar/sources`);
    await page.getByRole('link', { name: 'Create source' }).click();
    const form = page.getByRole('form', { name: 'Create source' });
    await form.getByLabel('Source name', { exact: true }).fill(name);
    await form.getByLabel('Source type').selectOption({ label: typeLabel(fixedType) });
    await form.getByLabel('Attributes').fill('colour=blue');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Source ${name} created.`);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({
      sourceName: name, assigned: false, subjectLogin: null, attributes: { colour: 'blue' }, sourceType: { id: fixedType.id }, project: { projectName: 'radar' },
    });

    await page.getByRole('link', { name: `Edit ${name}`, exact: true }).click();
    const edit = page.getByRole('form', { name: `Edit source ${name}` });
    await edit.getByLabel('Expected source name').fill('E4-1234');
    await edit.getByLabel('Attributes').fill('colour=red\nwrist=left');
    await edit.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Source ${name} saved.`);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({ expectedSourceName: 'E4-1234', attributes: { colour: 'red', wrist: 'left' } });

    // Pair sources, from the subject's row of the list.
    await page.goto(`${t.base}/projects/radar?login=${subject}`);
    await page.getByRole('row').filter({ hasText: subject }).getByRole('link', { name: 'Pair sources' }).click();
    await page.getByRole('button', { name: `Assign ${name}`, exact: true }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Source ${name} assigned to ${subject}.`);
    expect(((await api(`/api/subjects/${subject}/sources`)).body as Json[]).map((s) => s.sourceName)).toEqual([name]);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({ assigned: true, subjectLogin: subject });
    await screenshot(page, 'pair-sources');

    await page.getByRole('button', { name: `Unassign ${name}`, exact: true }).click();
    expect(await page.getByRole('status').first().textContent()).toBe(`Source ${name} unassigned from ${subject}.`);
    expect((await api(`/api/subjects/${subject}/sources`)).body).toEqual([]);
    expect((await api(`/api/sources/${name}`)).body).toMatchObject({ assigned: false, subjectLogin: null });
    // Its revisions record both.
    const revisions = (await api(`/api/subjects/${subject}/revisions`)).body as Json[];
    expect(revisions.length).toBeGreaterThanOrEqual(3);

    await page.getByRole('button', { name: `Add a ${typeLabel(dynamicType)} source`, exact: true }).click();
    expect(await page.getByRole('status').first().textContent()).toMatch(new RegExp(`^Source ${dynamicType.model}-[0-9a-f]{8} added to ${subject}\\.$`));
    const added = (await api(`/api/subjects/${subject}/sources`)).body as Json[];
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ sourceTypeId: dynamicType.id, assigned: true });
  });

  it('works with JavaScript off: "Select all on this page" adds every subject of the page', async () => {
    const tag = unique('nojs');
    const logins: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await mc.call('POST', '/api/subjects', { bearer: admin, body: { project: radar, externalId: `${tag}-${i}` } });
      logins.push(res.body.login as string);
    }
    const group = unique('all');
    expect((await mc.call('POST', '/api/projects/radar/groups', { bearer: admin, body: { name: group } })).status).toBe(201);
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const p = await noJs.newPage();
    await signIn(p, t.base);
    await p.goto(`${t.base}/projects/radar?externalId=${tag}`);
    await p.getByLabel('Select all on this page').check();
    await p.getByLabel('Group for the selected subjects').selectOption({ label: group });
    await p.getByRole('button', { name: 'Add to group' }).click();
    expect(await p.getByRole('status').first().textContent()).toBe(`2 subject(s) added to group ${group}.`);
    for (const login of logins) expect((await api(`/api/subjects/${login}`)).body.group).toBe(group);
    await noJs.close();
  });
});

describe('groups and sources over HTTP: refusals and permissions', () => {
  const path = '/managementportal/projects/radar';

  async function signedIn(login = 'admin', password = 'admin') {
    const ui = uiClient(t.app);
    expect((await ui.signIn(login, password)).status).toBe(303);
    const csrf = csrfOf((await ui.get('/managementportal/')).body);
    return { ui, post: (to: string, form: Record<string, string>) => ui.post(to, { _csrf: csrf, ...form }) };
  }

  it('a taken or bad group name is a form error keeping what was typed; nothing is created', async () => {
    const { post } = await signedIn();
    const name = unique('dup');
    expect((await post(`${path}/groups`, { name })).status).toBe(303);
    const again = await post(`${path}/groups`, { name });
    expect(again.status).toBe(409);
    expect(again.body).toMatch(new RegExp(`role="alert"[^>]*>Group ${name} already exists in project radar<`));
    expect(again.body).toContain(`value="${name}"`);
    const bad = await post(`${path}/groups`, { name: 'a/b' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('role="alert"');
    expect(bad.body).toContain('value="a/b"');
    const other = unique('g');
    expect((await post(`${path}/groups`, { name: other })).status).toBe(303);
    const taken = await post(`${path}/groups/${other}/rename`, { name });
    expect(taken.status).toBe(409);
    expect(taken.body).toContain(`value="${name}"`);
    const names = ((await api('/api/projects/radar/groups')).body as Json[]).map((g) => g.name);
    expect(names.filter((n) => n === name)).toHaveLength(1);
    expect(names).toContain(other);
    expect(names).not.toContain('a/b');
  });

  it('moving subjects needs a selection and a group (400 pages); "Select all on this page" expands to the page\'s logins', async () => {
    const { post } = await signedIn();
    const group = unique('g');
    expect((await post(`${path}/groups`, { name: group })).status).toBe(303);
    const [a, b] = [await newSubject(), await newSubject()];
    const none = await post(`${path}/group-subjects`, { group, op: 'add' });
    expect(none.status).toBe(400);
    expect(none.body).toMatch(/role="alert"[^>]*>Select at least one subject\./);
    const noGroup = await post(`${path}/group-subjects`, { group: '', op: 'add', login: a });
    expect(noGroup.status).toBe(400);
    const unknown = await post(`${path}/group-subjects`, { group: 'no-such-group', op: 'add', login: a });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain('no-such-group');
    expect((await api(`/api/subjects/${a}`)).body.group).toBeNull();
    const form = new URLSearchParams({ group, op: 'add', allOnPage: 'true' });
    form.append('onPage', a);
    form.append('onPage', b);
    // "Select all" with no logins of the page: nothing selected.
    expect((await post(`${path}/group-subjects`, { group, op: 'add', allOnPage: 'true' })).status).toBe(400);
    const { ui } = await signedIn();
    const csrf = csrfOf((await ui.get(path)).body);
    form.set('_csrf', csrf);
    const res = await t.app.inject({
      method: 'POST', url: `${path}/group-subjects`, payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...ui.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${path}/groups?added=${group}&count=2`);
    expect((await api(`/api/subjects/${a}`)).body.group).toBe(group);
    expect((await api(`/api/subjects/${b}`)).body.group).toBe(group);
  });

  it('an assigned, or once assigned, source is not deleted: a form error; a bad source name is one too', async () => {
    const { post } = await signedIn();
    const subject = await newSubject();
    const source = await newSource();
    expect((await post(`${path}/subjects/${subject}/sources/assign`, { sourceName: source })).status).toBe(303);
    const assigned = await post(`${path}/sources/${source}/delete`, {});
    expect(assigned.status).toBe(400);
    expect(assigned.body).toMatch(/role="alert"[^>]*>Cannot delete an assigned source</);
    expect((await post(`${path}/subjects/${subject}/sources/unassign`, { sourceName: source })).status).toBe(303);
    const once = await post(`${path}/sources/${source}/delete`, {});
    expect(once.status).toBe(409);
    expect(once.body).toMatch(/role="alert"[^>]*>Cannot delete a previously assigned source</);
    expect((await api(`/api/sources/${source}`)).status).toBe(200);

    const fresh = await newSource();
    const deleted = await post(`${path}/sources/${fresh}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`${path}/sources?deleted=${fresh}`);
    expect((await api(`/api/sources/${fresh}`)).status).toBe(404);

    const bad = await post(`${path}/sources`, { sourceName: 'no/slash', sourceType: String(fixedType.id), attributes: 'k=v' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('value="no/slash"');
    expect(bad.body).toContain('k=v');
    const taken = await post(`${path}/sources`, { sourceName: source, sourceType: String(fixedType.id) });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatch(/role="alert"[^>]*>Source name already in use</);
    // A source assigned to someone else is not assigned again.
    const other = await newSubject();
    expect((await post(`${path}/subjects/${other}/sources/assign`, { sourceName: source })).status).toBe(303);
    const twice = await post(`${path}/subjects/${subject}/sources/assign`, { sourceName: source });
    expect(twice.status).toBe(409);
    expect(((await api(`/api/subjects/${other}/sources`)).body as Json[]).map((s) => s.sourceName)).toEqual([source]);
    // A second source of a dynamic type: the API's 409 on the page, nothing added.
    expect((await post(`${path}/subjects/${subject}/sources/register`, { sourceTypeId: String(dynamicType.id) })).status).toBe(303);
    const again = await post(`${path}/subjects/${subject}/sources/register`, { sourceTypeId: String(dynamicType.id) });
    expect(again.status).toBe(409);
    expect(again.body).toMatch(/role="alert"[^>]*>A Source of SourceType with the specified producer, model and version was already registered/);
    expect((await api(`/api/subjects/${subject}/sources`)).body).toHaveLength(1);
  });

  it('answers a subject or a source of another project with 404 pages, changing nothing', async () => {
    const { ui, post } = await signedIn();
    const elsewhere = (await mc.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('p'), description: 'd', location: 'l', organizationName: 'main', sourceTypes: [{ id: fixedType.id }] } })).body as Json;
    const subject = (await mc.subjectIn({ id: elsewhere.id, projectName: elsewhere.projectName }, admin)).login as string;
    const source = (await mc.call('POST', '/api/sources', { bearer: admin, body: { sourceName: unique('dev'), assigned: false, sourceType: { id: fixedType.id }, project: { id: elsewhere.id } } })).body.sourceName as string;
    expect((await ui.get(`${path}/subjects/${subject}/sources`)).status).toBe(404);
    expect((await ui.get(`${path}/sources/${source}/edit`)).status).toBe(404);
    expect((await post(`${path}/sources/${source}/delete`, {})).status).toBe(404);
    expect((await post(`${path}/subjects/${subject}/sources/assign`, { sourceName: source })).status).toBe(404);
    // A source of another project is not assigned to a subject of this one.
    const mine = await newSubject();
    expect((await post(`${path}/subjects/${mine}/sources/assign`, { sourceName: source })).status).toBe(400);
    expect((await api(`/api/sources/${source}`)).body).toMatchObject({ assigned: false, subjectLogin: null });
  });

  it('offers only the forms the user may use: an analyst reads groups and sources, an affiliate changes sources only', async () => {
    const analyst = await mc.userWithRole('ROLE_PROJECT_ANALYST', { project: 'radar' }, 'Passw0rd!');
    const { ui } = await signedIn(analyst.login, 'Passw0rd!');
    const groups = await ui.get(`${path}/groups`);
    expect(groups.status).toBe(200);
    expect(groups.body).toContain('Test Group A');
    expect(groups.body).not.toContain('Create group');
    expect(groups.body).not.toContain('/rename');
    const sources = await ui.get(`${path}/sources`);
    expect(sources.status).toBe(200);
    expect(sources.body).not.toContain('Create source');
    expect(sources.body).not.toContain('/edit"');
    const affiliate = await mc.userWithRole('ROLE_PROJECT_AFFILIATE', { project: 'radar' }, 'Passw0rd!');
    const { ui: other } = await signedIn(affiliate.login, 'Passw0rd!');
    expect((await other.get(`${path}/groups`)).body).not.toContain('Create group');
    expect((await other.get(`${path}/sources`)).body).toContain('Create source');
  });

  it('denies a project admin of another project every form post: 403, nothing changed', async () => {
    const other = await mc.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('other'), description: 'd', location: 'l', organizationName: 'main' } });
    expect(other.status).toBe(201);
    const outsider = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: other.body.projectName }, 'Passw0rd!');
    const { post } = await signedIn(outsider.login, 'Passw0rd!');
    const group = unique('g');
    expect((await mc.call('POST', '/api/projects/radar/groups', { bearer: admin, body: { name: group } })).status).toBe(201);
    const subject = await newSubject();
    const free = await newSource();
    const mine = await newSource();
    const { post: adminPost } = await signedIn();
    expect((await adminPost(`${path}/subjects/${subject}/sources/assign`, { sourceName: mine })).status).toBe(303);
    const before = {
      groups: (await api('/api/projects/radar/groups')).body,
      subject: (await api(`/api/subjects/${subject}`)).body,
      free: (await api(`/api/sources/${free}`)).body,
      mine: (await api(`/api/sources/${mine}`)).body,
      sources: (await api('/api/projects/radar/sources?size=1')).headers['x-total-count'],
    };
    const posts: [string, Record<string, string>][] = [
      [`${path}/groups`, { name: unique('g') }],
      [`${path}/groups`, { name: 'a/b' }],
      [`${path}/groups/${group}/rename`, { name: unique('g') }],
      [`${path}/groups/${group}/rename`, { name: '' }],
      [`${path}/groups/${group}/delete`, { unlinkSubjects: 'true' }],
      [`${path}/group-subjects`, { group, op: 'add', login: subject }],
      [`${path}/group-subjects`, { group, op: 'add' }],
      [`${path}/sources`, { sourceName: unique('dev'), sourceType: String(fixedType.id) }],
      [`${path}/sources`, { sourceName: 'bad/name', sourceType: '' }],
      [`${path}/sources/${free}/edit`, { sourceName: free, sourceType: String(fixedType.id), attributes: 'x=y' }],
      [`${path}/sources/${free}/edit`, { sourceName: 'bad/name', sourceType: '' }],
      [`${path}/sources/${free}/delete`, {}],
      [`${path}/subjects/${subject}/sources/assign`, { sourceName: free }],
      [`${path}/subjects/${subject}/sources/unassign`, { sourceName: mine }],
      [`${path}/subjects/${subject}/sources/register`, { sourceTypeId: String(dynamicType.id) }],
    ];
    for (const [to, form] of posts) {
      const res = await post(to, form);
      expect(res.status, to).toBe(403);
      expect(res.headers['content-type'], to).toContain('text/html');
    }
    expect({
      groups: (await api('/api/projects/radar/groups')).body,
      subject: (await api(`/api/subjects/${subject}`)).body,
      free: (await api(`/api/sources/${free}`)).body,
      mine: (await api(`/api/sources/${mine}`)).body,
      sources: (await api('/api/projects/radar/sources?size=1')).headers['x-total-count'],
    }).toEqual(before);
  });
});
