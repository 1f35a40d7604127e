/**
 * What a signed-in user is offered (issue 31 item 11), over plain HTTP:
 * - the navbar lists exactly the pages the user may open: each listed page answers 200, each left
 *   out answers 403 (one rule, ui/nav.ts, decides both);
 * - the user form's role rows offer only the authorities, projects and organizations the user may
 *   give (a system admin: all), and a role typed past them is refused (403 page, nothing stored);
 * - "Edit subject" offers only the projects the subject may be moved to; another is refused;
 * - a protected OAuth client's forms are refused saying why, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { anOrganization, aProjectIn, aSubjectIn } from '../../fixtures/management.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let org: { id: number; name: string };
let P: { id: number; projectName: string };
let P2: { id: number; projectName: string };
let Q: { id: number; projectName: string };
let otherOrg: { id: number; name: string };

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  org = await anOrganization(db);
  otherOrg = await anOrganization(db);
  P = await aProjectIn(db, org);
  P2 = await aProjectIn(db, org);
  Q = await aProjectIn(db, otherOrg);
});
afterAll(async () => { await t?.close(); });

const api = (path: string) => mc.call('GET', path, { bearer: admin });

async function signedIn(login: string, password = 'Passw0rd') {
  const client = uiClient(t.app);
  expect((await client.signIn(login, password)).status).toBe(303);
  return client;
}

/** A user signed in to the UI holding `roles` (authority and referent). */
async function userWith(roles: { authorityName: string; projectName?: string; organizationName?: string }[]) {
  const [first, ...rest] = roles;
  const user = await mc.userWithRole(first!.authorityName, { project: first!.projectName, organization: first!.organizationName });
  if (rest.length > 0) {
    const res = await mc.call('PUT', `/api/users/${user.login}/roles`, { bearer: admin, body: roles });
    expect(res.status).toBe(204);
  }
  return { login: user.login, ui: await signedIn(user.login) };
}

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

const navOf = (html: string) => [...(/<nav aria-label="[^"]*">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '').matchAll(/<li><a href="\/managementportal([^"]*)">/g)].map((m) => m[1]!);
/** The options of the select `id` of a page: [value, label]. */
function optionsOf(html: string, id: string): [string, string][] {
  const select = new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '';
  return [...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1]!, m[2]!]);
}
const valuesOf = (html: string, id: string) => optionsOf(html, id).map(([value]) => value);

const ALL_PAGES = ['/', '/organizations', '/source-types', '/notifications', '/users', '/oauth-clients', '/audits', '/account/settings'];

describe('the navbar', () => {
  it('lists exactly the pages each user may open: a listed page answers 200, one left out 403', async () => {
    const cases: [string, ReturnType<typeof uiClient>, string[]][] = [
      ['system admin', await signedIn('admin', 'admin'), ALL_PAGES],
      ['organization admin', (await userWith([{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationName: org.name }])).ui,
        ALL_PAGES.filter((p) => p !== '/audits')],
      ['project admin', (await userWith([{ authorityName: 'ROLE_PROJECT_ADMIN', projectName: P.projectName }])).ui,
        ALL_PAGES.filter((p) => p !== '/audits')],
      // No USER.* permission: no Users page.
      ['project analyst', (await userWith([{ authorityName: 'ROLE_PROJECT_ANALYST', projectName: P.projectName }])).ui,
        ALL_PAGES.filter((p) => p !== '/audits' && p !== '/users')],
    ];
    for (const [who, client, expected] of cases) {
      const home = await client.get('/');
      expect(navOf(home.body), who).toEqual(expected);
      for (const path of ALL_PAGES) {
        const res = await client.get(path);
        expect(res.status, `${who} ${path}`).toBe(expected.includes(path) ? 200 : 403);
      }
    }
  });
});

describe('the user form\'s role rows', () => {
  it('offer a system admin every authority, "everywhere", and every organization and project', async () => {
    const ui = await signedIn('admin', 'admin');
    const page = (await ui.get('/users/new')).body;
    expect(valuesOf(page, 'role-0')).toEqual(['', 'ROLE_SYS_ADMIN', 'ROLE_ORGANIZATION_ADMIN', 'ROLE_PROJECT_ADMIN', 'ROLE_PROJECT_OWNER', 'ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']);
    const referents = optionsOf(page, 'referent-0');
    expect(referents[0]).toEqual(['', '(everywhere)']);
    for (const value of [`organization:${org.name}`, `organization:${otherOrg.name}`, `project:${P.projectName}`, `project:${Q.projectName}`]) {
      expect(referents.map(([v]) => v)).toContain(value);
    }
  });

  it('offer an organization admin its organization and its projects, and no system admin role', async () => {
    const { ui } = await userWith([{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationName: org.name }]);
    const page = (await ui.get('/users/new')).body;
    expect(valuesOf(page, 'role-0')).toEqual(['', 'ROLE_ORGANIZATION_ADMIN', 'ROLE_PROJECT_ADMIN', 'ROLE_PROJECT_OWNER', 'ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']);
    const [none, organization, ...projects] = optionsOf(page, 'referent-0');
    expect([none, organization]).toEqual([['', '(none)'], [`organization:${org.name}`, `Organization ${org.name}`]]);
    expect(projects.sort()).toEqual([P.projectName, P2.projectName].sort().map((name) => [`project:${name}`, `Project ${name}`]));
  });

  it('offer a project admin its project\'s roles only; a role typed past them is refused (403), nothing stored', async () => {
    const { ui } = await userWith([{ authorityName: 'ROLE_PROJECT_ADMIN', projectName: P.projectName }]);
    const page = (await ui.get('/users/new')).body;
    expect(valuesOf(page, 'role-0')).toEqual(['', 'ROLE_PROJECT_ADMIN', 'ROLE_PROJECT_OWNER', 'ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']);
    expect(optionsOf(page, 'referent-0')).toEqual([['', '(none)'], [`project:${P.projectName}`, `Project ${P.projectName}`]]);

    // What it is offered works.
    const mine = unique('offered');
    const created = await submit(ui, '/users/new', '/users/new', { login: mine, roleAuthority: ['ROLE_PROJECT_AFFILIATE'], roleReferent: [`project:${P.projectName}`] });
    expect(created.status).toBe(303);
    expect((await api(`/api/users/${mine}`)).body.roles).toEqual([expect.objectContaining({ authorityName: 'ROLE_PROJECT_AFFILIATE', projectName: P.projectName })]);

    // Anything else, typed into the form anyway: 403, nothing created.
    for (const [authority, referent] of [
      ['ROLE_PROJECT_ADMIN', `project:${Q.projectName}`], ['ROLE_PROJECT_ADMIN', `project:${P2.projectName}`],
      ['ROLE_ORGANIZATION_ADMIN', `organization:${org.name}`], ['ROLE_SYS_ADMIN', ''],
    ] as const) {
      const login = unique('refused');
      const res = await submit(ui, '/users/new', '/users/new', { login, roleAuthority: [authority], roleReferent: [referent] });
      expect(res.status, `${authority} ${referent}`).toBe(403);
      expect(res.body).toContain('You do not have permission');
      expect((await api(`/api/users/${login}`)).status).toBe(404);
    }

    // Editing a user of its project: the user's role is shown; adding one elsewhere is refused, nothing changed.
    const edit = (await ui.get(`/users/${mine}/edit`)).body;
    expect(optionsOf(edit, 'role-0').find(([, label]) => label === 'ROLE_PROJECT_AFFILIATE')).toBeDefined();
    expect(edit).toMatch(/<option value="ROLE_PROJECT_AFFILIATE" selected>/);
    expect(edit).toContain(`<option value="project:${P.projectName}" selected>`);
    const before = (await api(`/api/users/${mine}`)).body as Json;
    const res = await submit(ui, `/users/${mine}/edit`, `/users/${mine}/edit`, {
      firstName: 'Changed', roleAuthority: ['ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ADMIN'], roleReferent: [`project:${P.projectName}`, `project:${Q.projectName}`],
    });
    expect(res.status).toBe(403);
    expect((await api(`/api/users/${mine}`)).body).toEqual(before);
  });
});

describe('"Edit subject"', () => {
  it('offers the projects the subject may be moved to; another is refused and the subject stays', async () => {
    const subject = await aSubjectIn(t.app.db.db, P.id);
    const { ui } = await userWith([
      { authorityName: 'ROLE_PROJECT_ADMIN', projectName: P.projectName }, { authorityName: 'ROLE_PROJECT_ADMIN', projectName: P2.projectName },
    ]);
    const path = `/projects/${P.projectName}/subjects/${subject.login}/edit`;
    const page = await ui.get(path);
    expect(page.status).toBe(200);
    expect(valuesOf(page.body, 's-project')).toEqual([P.projectName, P2.projectName]);

    const refused = await submit(ui, path, path, { project: Q.projectName });
    expect(refused.status).toBe(403);
    expect((await api(`/api/subjects/${subject.login}`)).body.project.projectName).toBe(P.projectName);

    const moved = await submit(ui, path, path, { project: P2.projectName });
    expect(moved.status).toBe(303);
    expect((await api(`/api/subjects/${subject.login}`)).body.project.projectName).toBe(P2.projectName);
  });
});

describe('a protected OAuth client', () => {
  it('is refused to edit and delete, saying why (403); nothing changes', async () => {
    const ui = await signedIn('admin', 'admin');
    const before = (await api('/api/oauth-clients/ManagementPortalapp')).body as Json;
    const why = 'The OAuth client ManagementPortalapp is protected: it cannot be edited or deleted.';
    const edit = await submit(ui, '/oauth-clients', '/oauth-clients/ManagementPortalapp/edit', { scope: 'SUBJECT.READ', resourceIds: 'res_ManagementPortal' });
    expect(edit.status).toBe(403);
    expect(edit.body).toContain(why);
    const del = await submit(ui, '/oauth-clients', '/oauth-clients/ManagementPortalapp/delete', {});
    expect(del.status).toBe(403);
    expect(del.body).toContain(why);
    expect((await api('/api/oauth-clients/ManagementPortalapp')).body).toEqual(before);
    const list = (await ui.get('/oauth-clients')).body;
    expect(list).toContain('<strong>Protected</strong>');
    expect(list).toContain('id="protected-why"');
  });
});
