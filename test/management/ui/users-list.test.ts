/**
 * The users list as coordinators use it (issue 31 item 7): search by login, name and e-mail (kept
 * in the URL, also by the column links), sort by a column's header (`aria-sort` says which), and
 * the created and modified columns. `GET /api/users?name=` filters the same way. Edit, Delete and
 * "Send activation link" show only on the rows of users the signed-in user may change (the
 * service's rule: the right in every scope the user holds a role in; never Delete on one's own
 * row); posting them anyway is the 403 page, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { aProjectIn, mainOrganization } from '../../fixtures/management.js';

let t: TestApp;
let ui: ReturnType<typeof uiClient>;
const tag = unique('ul').toLowerCase();
const people = [
  { login: `${tag}-a`, firstName: 'Ada', lastName: 'Lovelace', email: `zeta-${tag}@example.org` },
  { login: `${tag}-b`, firstName: 'Grace', lastName: 'Hopper', email: `alpha-${tag}@example.org` },
  { login: `${tag}-c`, firstName: 'Alan', lastName: 'Turing', email: `mid-${tag}@example.org` },
];

beforeAll(async () => {
  t = await buildTestApp();
  const api = managementClient(t.app);
  const admin = await api.tokenOf('admin', 'admin');
  for (const p of people) expect((await api.call('POST', '/api/users', { bearer: admin, body: { ...p, langKey: 'en', roles: [] } })).status).toBe(201);
  ui = uiClient(t.app);
  expect((await ui.signIn()).status).toBe(303);
});
afterAll(async () => { await t.close(); });

/** The logins of the list's rows, in order. */
const loginsOf = (html: string) => [...html.matchAll(/<tr>\s*<td>([^<]+)<\/td>/g)].map((m) => m[1]!).filter((login) => login.startsWith(tag));

describe('the users list', () => {
  it('finds users by part of their name, first or last, and by part of their e-mail', async () => {
    expect(loginsOf((await ui.get('/users?name=LOVE')).body)).toEqual([`${tag}-a`]);
    expect(loginsOf((await ui.get('/users?name=grace%20hop')).body)).toEqual([`${tag}-b`]);
    expect(loginsOf((await ui.get(`/users?email=alpha-${tag}`)).body)).toEqual([`${tag}-b`]);
    const page = (await ui.get(`/users?login=${tag}&email=example.org`)).body;
    expect(loginsOf(page)).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    // The search is kept in the form and in the column links.
    expect(page).toContain(`id="email-filter" name="email" value="example.org"`);
    expect(page).toContain(`href="/managementportal/users?login=${tag}&amp;email=example.org&amp;sort=email%2Casc"`);
  });

  it('sorts by a column header, and says which', async () => {
    const byEmail = (await ui.get(`/users?login=${tag}&sort=email,asc`)).body;
    expect(loginsOf(byEmail)).toEqual([`${tag}-b`, `${tag}-c`, `${tag}-a`]);
    expect(byEmail).toMatch(/<th scope="col" aria-sort="ascending"><a href="[^"]*sort=email%2Cdesc">Email ▲<\/a><\/th>/);
    expect(loginsOf((await ui.get(`/users?login=${tag}&sort=lastName,desc`)).body)).toEqual([`${tag}-c`, `${tag}-a`, `${tag}-b`]);
    expect((await ui.get('/users?sort=password,asc')).status).toBe(400);
  });

  it('shows when and by whom each user was created and last modified', async () => {
    const page = (await ui.get(`/users?login=${tag}-a`)).body;
    expect(page).toContain('>Created</a></th>');
    expect(page).toContain('>Last modified</a></th>');
    expect(page).toMatch(/<time[^>]*>[^<]*<\/time> · admin<\/td>/);
  });

  it('the API filters by name alike', async () => {
    const api = managementClient(t.app);
    const found = await api.call('GET', `/api/users?name=turing&login=${tag}`, { bearer: await api.tokenOf('admin', 'admin') });
    expect(found.status).toBe(200);
    expect((found.body as { login: string }[]).map((u) => u.login)).toEqual([`${tag}-c`]);
  });
});

describe('the users list\'s Edit and Delete', () => {
  /** Which of Edit, Delete and "Send activation link" a row of `login` offers. */
  const actionsOf = (html: string, login: string) => ({
    edit: html.includes(`aria-label="Edit ${login}"`),
    delete: html.includes(`aria-label="Delete ${login}"`),
    activation: html.includes(`action="/managementportal/users/${login}/activation"`),
  });

  it('show only for users the signed-in user may change; posting anyway is 403 and changes nothing', async () => {
    const api = managementClient(t.app);
    const adminToken = await api.tokenOf('admin', 'admin');
    const db = t.app.db.db;
    const own = await aProjectIn(db, await mainOrganization(db));
    const other = await aProjectIn(db, await mainOrganization(db));
    const me = await api.userWithRole('ROLE_PROJECT_ADMIN', { project: own.projectName });
    const mark = unique('rights').toLowerCase();
    const create = async (login: string, roles: Json[]) =>
      expect((await api.call('POST', '/api/users', { bearer: adminToken, body: { login, firstName: 'R', lastName: mark, email: `${login}@example.org`, langKey: 'en', roles } })).status).toBe(201);
    // A colleague with a role in my project only; another who also administers a project I do not.
    const colleague = `${mark}-colleague`;
    const shared = `${mark}-shared`;
    await create(colleague, [{ authorityName: 'ROLE_PROJECT_ANALYST', projectName: own.projectName }]);
    await create(shared, [{ authorityName: 'ROLE_PROJECT_ANALYST', projectName: own.projectName }, { authorityName: 'ROLE_PROJECT_ADMIN', projectName: other.projectName }]);

    const mine = uiClient(t.app);
    expect((await mine.signIn(me.login, 'Passw0rd')).status).toBe(303);
    const list = (await mine.get(`/users?name=${mark}`)).body;
    expect(list).toContain(`<td>${colleague}</td>`);
    expect(list).toContain(`<td>${shared}</td>`);
    expect(actionsOf(list, colleague)).toEqual({ edit: true, delete: true, activation: true });
    expect(actionsOf(list, shared)).toEqual({ edit: false, delete: false, activation: false });
    // My own row: Edit, never Delete.
    const myRow = (await mine.get(`/users?login=${me.login}`)).body;
    expect(myRow).toContain(`<td>${me.login}</td>`);
    expect(actionsOf(myRow, me.login)).toMatchObject({ edit: true, delete: false });

    // What the list does not offer is refused when asked or posted anyway, and nothing changes.
    const csrf = csrfOf((await mine.get('/users')).body);
    expect((await mine.get(`/users/${shared}/edit`)).status).toBe(403);
    expect((await mine.get(`/users/${shared}/delete`)).status).toBe(403);
    const edited = await mine.post(`/users/${shared}/edit`, { _csrf: csrf, login: shared, firstName: 'Changed', lastName: mark, email: `${shared}@example.org`, langKey: 'en' });
    expect(edited.status).toBe(403);
    expect(edited.body).toContain('role="alert"');
    expect((await mine.post(`/users/${shared}/delete`, { _csrf: csrf })).status).toBe(403);
    expect((await mine.post(`/users/${shared}/activation`, { _csrf: csrf })).status).toBe(403);
    const stored = await api.call('GET', `/api/users/${shared}`, { bearer: adminToken });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ firstName: 'R', roles: expect.arrayContaining([expect.objectContaining({ projectName: other.projectName })]) as unknown });

    expect((await mine.get(`/users/${me.login}/delete`)).status).toBe(403);
    const self = await mine.post(`/users/${me.login}/delete`, { _csrf: csrf });
    expect(self.status).toBe(403);
    expect(self.body).toContain('You cannot delete your own account.');
    expect((await api.call('GET', `/api/users/${me.login}`, { bearer: adminToken })).status).toBe(200);
    expect((await mine.get('/users')).status).toBe(200); // still signed in

    // The colleague the list offers: deleted.
    expect((await mine.get(`/users/${colleague}/delete`)).status).toBe(200);
    expect((await mine.post(`/users/${colleague}/delete`, { _csrf: csrf })).status).toBe(303);
    expect((await api.call('GET', `/api/users/${colleague}`, { bearer: adminToken })).status).toBe(404);

    // A system admin may change both, but not delete itself.
    const all = (await ui.get(`/users?name=${mark}`)).body;
    expect(actionsOf(all, shared)).toEqual({ edit: true, delete: true, activation: true });
    const adminRow = (await ui.get('/users?login=admin')).body;
    expect(actionsOf(adminRow, 'admin')).toMatchObject({ edit: true, delete: false });
  });
});
