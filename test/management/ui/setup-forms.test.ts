/**
 * Study setup over plain HTTP (issue 31 items 1–2, 11): the organization and project forms show
 * what the API refuses (a taken name, a reversed date range, attributes without a key, an
 * organization or project that is not empty) as a form error with what was typed, never a 5xx,
 * and nothing is written; the organizations a form offers are those the user may use; and a
 * project admin of another project gets 403 on every new form post, with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { anOrganization, aProjectIn, aSubjectIn } from '../../fixtures/management.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let ui: ReturnType<typeof uiClient>;

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  ui = uiClient(t.app);
  expect((await ui.signIn()).status).toBe(303);
});
afterAll(async () => { await t?.close(); });

const api = async (path: string) => mc.call('GET', path, { bearer: admin });
const alertOf = (html: string) => /role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
const projectForm = (over: Record<string, string | string[]> = {}) => ({
  projectName: unique('study'), description: 'A study', location: 'Leiden', organization: 'main',
  startDate: '2026-01-01', endDate: '2026-12-31', projectStatus: 'ONGOING', ...over,
});
/** Posts `form` urlencoded (arrays as repeated fields) with the CSRF token of `page`. */
async function submit(client: ReturnType<typeof uiClient>, page: string, action: string, form: Record<string, string | string[]>) {
  const shown = await client.get(page);
  const params = new URLSearchParams({ _csrf: csrfOf(shown.body) });
  for (const [key, value] of Object.entries(form)) for (const v of [value].flat()) params.append(key, v);
  const res = await t.app.inject({
    method: 'POST', url: `/managementportal${action}`, payload: params.toString(),
    headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.statusCode, body: res.body, location: res.headers.location as string | undefined };
}

describe('organization forms', () => {
  it('creates with a 303 to the organization, whose page names it; a taken name is a form error keeping what was typed', async () => {
    const name = unique('org');
    const created = await submit(ui, '/organizations/new', '/organizations', { name, description: 'Hospital', location: 'Utrecht' });
    expect(created.status).toBe(303);
    expect(created.location).toBe(`/managementportal/organizations/${name}?notice=created`);
    expect((await ui.get(created.location!)).body).toContain(`Organization ${name} created.`);
    expect((await api(`/api/organizations/${name}`)).body).toMatchObject({ name, description: 'Hospital', location: 'Utrecht' });

    const again = await submit(ui, '/organizations/new', '/organizations', { name, description: 'Typed again', location: 'Kept' });
    expect(again.status).toBe(409);
    expect(alertOf(again.body)).toBe('An organization with this name already exists');
    expect(again.body).toContain('Typed again');
    expect(again.body).toContain('value="Kept"');
    expect((await api(`/api/organizations/${name}`)).body.description).toBe('Hospital');

    const bad = await submit(ui, '/organizations/new', '/organizations', { name: 'no/slash', description: 'd', location: 'l' });
    expect(bad.status).toBe(400);
    expect(alertOf(bad.body)).toContain('name: Pattern');
    expect(bad.body).toContain('value="no/slash"');
  });

  it('refuses to delete an organization with projects (400 on the page, nothing deleted); deletes an empty one', async () => {
    const org = await anOrganization(t.app.db.db);
    const project = await aProjectIn(t.app.db.db, org);
    // A link claiming a deletion that did not happen shows no notice.
    expect((await ui.get(`/organizations/${org.name}?deletedProject=${project.projectName}`)).body).not.toContain('deleted.');
    expect((await ui.get(`/organizations?deleted=${org.name}`)).body).not.toContain('deleted.');
    const refused = await submit(ui, `/organizations/${org.name}/delete`, `/organizations/${org.name}/delete`, {});
    expect(refused.status).toBe(400);
    expect(alertOf(refused.body)).toBe(`Organization ${org.name} still has 1 project(s)`);
    expect((await api(`/api/organizations/${org.name}`)).status).toBe(200);

    const removed = await submit(ui, `/projects/${project.projectName}/delete`, `/projects/${project.projectName}/delete`, {});
    expect(removed.status).toBe(303);
    expect(removed.location).toBe(`/managementportal/organizations/${org.name}?deletedProject=${project.projectName}`);
    expect((await ui.get(removed.location!)).body).toContain(`Project ${project.projectName} deleted.`);
    const deleted = await submit(ui, `/organizations/${org.name}/delete`, `/organizations/${org.name}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`/managementportal/organizations?deleted=${org.name}`);
    expect((await ui.get(deleted.location!)).body).toContain(`Organization ${org.name} deleted.`);
    expect((await api(`/api/organizations/${org.name}`)).status).toBe(404);
  });
});

describe('project forms', () => {
  it('refuses a reversed date range, a duplicate name and attributes without a key as form errors keeping what was typed; nothing stored', async () => {
    const reversed = projectForm({ startDate: '2026-05-01', endDate: '2026-04-30', attributeKey: ['Site', ''], attributeValue: ['Kept value', ''] });
    const res = await submit(ui, '/projects/new', '/projects', reversed);
    expect(res.status).toBe(400);
    expect(alertOf(res.body)).toBe('The end date is before the start date.');
    expect(res.body).toContain(`value="${reversed.projectName}"`);
    expect(res.body).toContain('value="2026-04-30"');
    expect(res.body).toContain('value="Kept value"');
    expect((await api(`/api/projects/${reversed.projectName}`)).status).toBe(404);

    const noKey = await submit(ui, '/projects/new', '/projects', projectForm({ attributeKey: [''], attributeValue: ['orphan'] }));
    expect(noKey.status).toBe(400);
    expect(alertOf(noKey.body)).toBe('An attribute with a value needs a key.');

    const first = projectForm();
    expect((await submit(ui, '/projects/new', '/projects', first)).status).toBe(303);
    const duplicate = await submit(ui, '/projects/new', '/projects', { ...first, description: 'Second try' });
    expect(duplicate.status).toBe(400);
    expect(alertOf(duplicate.body)).toBe('A project with this name already exists');
    expect(duplicate.body).toContain('Second try');
    expect((await api(`/api/projects/${first.projectName}`)).body.description).toBe('A study');
  });

  it('"More attribute rows" shows the form again with three more empty rows and saves nothing', async () => {
    const form = projectForm({ attributeKey: ['a', '', '', ''], attributeValue: ['1', '', '', ''], more: '1' });
    const res = await submit(ui, '/projects/new', '/projects', form);
    expect(res.status).toBe(200);
    expect(res.body.match(/name="attributeKey"/g)).toHaveLength(7);
    expect(res.body).toContain('aria-label="Attribute 7 key"');
    expect(res.body).toContain(`value="${form.projectName}"`);
    expect((await api(`/api/projects/${form.projectName}`)).status).toBe(404);
  });

  it('refuses to delete a project with subjects (400 on the page, nothing deleted)', async () => {
    const project = await aProjectIn(t.app.db.db, await anOrganization(t.app.db.db));
    await aSubjectIn(t.app.db.db, project.id);
    const res = await submit(ui, `/projects/${project.projectName}/delete`, `/projects/${project.projectName}/delete`, {});
    expect(res.status).toBe(400);
    expect(alertOf(res.body)).toContain('still has 1 subject(s)');
    expect((await api(`/api/projects/${project.projectName}`)).status).toBe(200);
  });

  it('offers only the organizations the user may create projects in (an organization admin: its own)', async () => {
    const mine = await anOrganization(t.app.db.db);
    const user = await mc.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: mine.name });
    const orgAdmin = uiClient(t.app);
    expect((await orgAdmin.signIn(user.login, 'Passw0rd')).status).toBe(303);
    const page = await orgAdmin.get('/projects/new');
    expect(page.status).toBe(200);
    expect([...page.body.matchAll(/<option value="([^"]*)"[^>]*>[^<]*<\/option>/g)].map((m) => m[1]).filter((v) => !['', 'PLANNING', 'ONGOING', 'ENDED'].includes(v!)))
      .toEqual([mine.name]);
    // Another organization, typed into the form anyway: 403, nothing created.
    const form = projectForm();
    const res = await submit(orgAdmin, '/projects/new', '/projects', form);
    expect(res.status).toBe(403);
    expect((await api(`/api/projects/${form.projectName}`)).status).toBe(404);
    expect((await orgAdmin.get('/organizations/new')).status).toBe(403);
    expect((await orgAdmin.get('/')).body).toContain('href="/managementportal/projects/new"');
    expect((await orgAdmin.get('/organizations')).body).not.toContain('href="/managementportal/organizations/new"');
  });
});

describe('a project admin of another project', () => {
  it('gets 403 on every new form post, and nothing changes', async () => {
    const db = t.app.db.db;
    const elsewhereOrg = await anOrganization(db);
    const elsewhere = await aProjectIn(db, elsewhereOrg);
    const user = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: elsewhere.projectName });
    const other = uiClient(t.app);
    expect((await other.signIn(user.login, 'Passw0rd')).status).toBe(303);
    const org = await anOrganization(db);
    const target = await aProjectIn(db, org);
    const before = { org: (await api(`/api/organizations/${org.name}`)).body as Json, project: (await api(`/api/projects/${target.projectName}`)).body as Json };
    const newName = unique('taken-over');
    const posts: [string, Record<string, string | string[]>][] = [
      ['/organizations', { name: newName, description: 'd', location: 'l' }],
      [`/organizations/${org.name}/edit`, { name: org.name, description: 'changed', location: 'changed' }],
      [`/organizations/${org.name}/delete`, {}],
      ['/projects', projectForm({ projectName: newName, organization: org.name })],
      ['/projects', projectForm({ projectName: newName, organization: org.name, more: '1' })],
      [`/projects/${target.projectName}/edit`, projectForm({ projectName: target.projectName, organization: org.name, description: 'changed' })],
      [`/projects/${target.projectName}/edit`, projectForm({ projectName: target.projectName, organization: org.name, more: '1' })],
      [`/projects/${target.projectName}/delete`, {}],
    ];
    for (const [action, form] of posts) {
      // The token of a page this user may open (its own project's).
      const res = await submit(other, `/projects/${elsewhere.projectName}`, action, form);
      expect(res.status, action).toBe(403);
      expect(res.body, action).toContain('You do not have permission');
    }
    for (const path of ['/organizations/new', `/organizations/${org.name}/edit`, `/organizations/${org.name}/delete`, '/projects/new',
      `/projects/${target.projectName}/edit`, `/projects/${target.projectName}/delete`]) {
      expect((await other.get(path)).status, path).toBe(403);
    }
    expect((await api(`/api/organizations/${org.name}`)).body).toEqual(before.org);
    expect((await api(`/api/projects/${target.projectName}`)).body).toEqual(before.project);
    expect((await api(`/api/organizations/${newName}`)).status).toBe(404);
    expect((await api(`/api/projects/${newName}`)).status).toBe(404);
    // No link to a form it may not use; its own project's "Edit project" is there (PROJECT.UPDATE on it).
    expect((await other.get('/')).body).not.toContain('/projects/new');
    const ownOrganization = await other.get(`/organizations/${elsewhereOrg.name}`);
    expect(ownOrganization.status).toBe(200);
    expect(ownOrganization.body).not.toMatch(/\/(edit|delete)"|projects\/new/);
    expect((await other.get(`/projects/${elsewhere.projectName}`)).body).toContain(`/projects/${elsewhere.projectName}/edit`);
  });
});
