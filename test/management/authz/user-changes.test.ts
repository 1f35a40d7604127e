/**
 * Issue 28 item 1: a user is changed only by someone who could grant every role that user holds.
 * A project admin of A reached a user through any one of the user's projects, so it could rewrite
 * the e-mail of (then take over by password reset), delete, re-mail or re-role a user who also
 * held ROLE_SYS_ADMIN, an organization role elsewhere, or a role in another project. Over the API
 * and the admin UI; every refusal is 403 and the user reads back unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { uiClient, csrfOf } from '../../helpers/ui-client.js';
import { anOrganization, aProjectIn, mainOrganization } from '../../fixtures/management.js';
import { findUserByLogin } from '../../../src/management/security/queries.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let A: { id: number; projectName: string };
let A2: { id: number; projectName: string };
let B: { id: number; projectName: string };
let other: { id: number; name: string };
let padmin: { login: string; token: string };
let oadmin: { login: string; token: string };

const role = (authorityName: string, project?: { id: number; projectName: string }) =>
  (project ? { authorityName, projectId: project.id, projectName: project.projectName } : { authorityName });
const orgRole = (authorityName: string, organization: { id: number; name: string }) => ({ authorityName, organizationId: organization.id, organizationName: organization.name });

/** The targets: what each holds beside a role in A. */
const TARGETS = {
  'a system admin': () => [role('ROLE_SYS_ADMIN'), role('ROLE_PROJECT_ANALYST', A)],
  'a user of A and of B (another organization)': () => [role('ROLE_PROJECT_ANALYST', A), role('ROLE_PROJECT_ANALYST', B)],
  'an organization admin of another organization': () => [orgRole('ROLE_ORGANIZATION_ADMIN', other), role('ROLE_PROJECT_ANALYST', A)],
} as const;
type Target = keyof typeof TARGETS;

/** A new, not activated user with `roles`, created by the sys admin; its UserDTO. */
async function aUser(roles: Json[]): Promise<Json> {
  const login = unique('multi');
  const res = await mp.call('POST', '/api/users', { bearer: admin, body: { login, firstName: 'Multi', lastName: 'Role', email: `${login}@example.org`, langKey: 'en', roles } });
  expect(res.status).toBe(201);
  return res.body;
}
const readBack = async (login: string) => (await mp.call('GET', `/api/users/${login}`, { bearer: admin })).body;
const rolesOf = (dto: Json) => (dto.roles as Json[]).map((r) => `${r.authorityName}@${r.projectName ?? r.organizationName ?? ''}`).sort();

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  other = await anOrganization(db);
  A = await aProjectIn(db, main);
  A2 = await aProjectIn(db, main);
  B = await aProjectIn(db, other);
  padmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: A.projectName });
  oadmin = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: main.name });
});
afterAll(async () => t?.close());

describe.each(Object.keys(TARGETS) as Target[])('a project admin of A against %s', (target) => {
  let user: Json;
  beforeAll(async () => { user = await aUser(TARGETS[target]()); });

  it('cannot change the e-mail (PUT /api/users): 403, unchanged', async () => {
    const res = await mp.call('PUT', '/api/users', { bearer: padmin.token, body: { ...user, email: 'attacker@example.org' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: 'error.accessDenied' });
    expect((await readBack(user.login)).email).toBe(user.email);
  });

  it('cannot change the roles (PUT /api/users/{login}/roles, PUT /api/users with roles): 403, unchanged', async () => {
    const onlyA = [role('ROLE_PROJECT_ANALYST', A)];
    expect((await mp.call('PUT', `/api/users/${user.login}/roles`, { bearer: padmin.token, body: onlyA })).status).toBe(403);
    expect((await mp.call('PUT', '/api/users', { bearer: padmin.token, body: { ...user, roles: [...user.roles, role('ROLE_PROJECT_ADMIN', A)] } })).status).toBe(403);
    expect(rolesOf(await readBack(user.login))).toEqual(rolesOf(user));
  });

  it('cannot send it a new activation link: 403, the reset key unchanged', async () => {
    const before = (await findUserByLogin(t.app.db.db, user.login))!.resetKey;
    const res = await mp.call('POST', '/api/account/reset-activation/init', { bearer: padmin.token, body: user.login, headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(403);
    expect((await findUserByLogin(t.app.db.db, user.login))!.resetKey).toBe(before);
  });

  it('cannot delete it (DELETE /api/users/{login}): 403, still there', async () => {
    expect((await mp.call('DELETE', `/api/users/${user.login}`, { bearer: padmin.token })).status).toBe(403);
    expect((await mp.call('GET', `/api/users/${user.login}`, { bearer: admin })).status).toBe(200);
  });

  it('cannot do any of it in the admin UI: 403, unchanged', async () => {
    const ui = uiClient(t.app);
    expect((await ui.signIn(padmin.login, 'Passw0rd')).status).toBe(303);
    expect((await ui.get(`/users/${user.login}/edit`)).status).toBe(403);
    expect((await ui.get(`/users/${user.login}/delete`)).status).toBe(403);
    const csrf = csrfOf((await ui.get('/users')).body);
    const edit = await ui.post(`/users/${user.login}/edit`, { _csrf: csrf, login: user.login, firstName: 'Multi', lastName: 'Role', email: 'attacker@example.org', langKey: 'en' });
    expect(edit.status).toBe(403);
    expect((await ui.post(`/users/${user.login}/activation`, { _csrf: csrf })).status).toBe(403);
    expect((await ui.post(`/users/${user.login}/delete`, { _csrf: csrf })).status).toBe(403);
    const after = await readBack(user.login);
    expect(after).toMatchObject({ email: user.email, firstName: 'Multi' });
    expect(rolesOf(after)).toEqual(rolesOf(user));
  });

  it('the system admin still can', async () => {
    expect((await mp.call('PUT', '/api/users', { bearer: admin, body: { ...user, firstName: 'Changed' } })).status).toBe(200);
    expect((await readBack(user.login)).firstName).toBe('Changed');
    expect((await mp.call('DELETE', `/api/users/${user.login}`, { bearer: admin })).status).toBe(200);
    expect((await mp.call('GET', `/api/users/${user.login}`, { bearer: admin })).status).toBe(404);
  });
});

describe('who may still change whom', () => {
  it('a project admin changes and deletes a user whose only roles are in its project', async () => {
    const user = await aUser([role('ROLE_PROJECT_ANALYST', A)]);
    const res = await mp.call('PUT', '/api/users', { bearer: padmin.token, body: { ...user, email: `${user.login}@new.example.org` } });
    expect(res.status).toBe(200);
    expect((await readBack(user.login)).email).toBe(`${user.login}@new.example.org`);
    expect((await mp.call('DELETE', `/api/users/${user.login}`, { bearer: padmin.token })).status).toBe(200);
  });

  it('an organization admin reaches a user of two of its projects, not one who also holds a role in another organization', async () => {
    const inside = await aUser([role('ROLE_PROJECT_ANALYST', A), role('ROLE_PROJECT_ANALYST', A2)]);
    expect((await mp.call('PUT', '/api/users', { bearer: oadmin.token, body: { ...inside, lastName: 'Changed' } })).status).toBe(200);
    const outside = await aUser([role('ROLE_PROJECT_ANALYST', A), role('ROLE_PROJECT_ANALYST', B)]);
    expect((await mp.call('PUT', '/api/users', { bearer: oadmin.token, body: { ...outside, lastName: 'Changed' } })).status).toBe(403);
    expect((await readBack(outside.login)).lastName).toBe('Role');
  });

  it('a project admin of A and of B reaches a user of both', async () => {
    const both = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: A.projectName });
    const adminOfB = await mp.call('PUT', `/api/users/${both.login}/roles`, { bearer: admin, body: [role('ROLE_PROJECT_ADMIN', A), role('ROLE_PROJECT_ADMIN', B)] });
    expect(adminOfB.status).toBe(204);
    const token = await mp.tokenOf(both.login, 'Passw0rd');
    const user = await aUser([role('ROLE_PROJECT_ANALYST', A), role('ROLE_PROJECT_ANALYST', B)]);
    expect((await mp.call('PUT', '/api/users', { bearer: token, body: { ...user, lastName: 'Changed' } })).status).toBe(200);
  });

  it('a user\'s own account is unaffected: a project admin who also holds a role elsewhere edits its own account', async () => {
    const self = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: A.projectName });
    expect((await mp.call('PUT', `/api/users/${self.login}/roles`, { bearer: admin, body: [role('ROLE_PROJECT_ADMIN', A), role('ROLE_PROJECT_ANALYST', B)] })).status).toBe(204);
    const token = await mp.tokenOf(self.login, 'Passw0rd');
    const res = await mp.call('POST', '/api/account', { bearer: token, body: { login: self.login, firstName: 'Me', lastName: 'Myself', email: `${self.login}@example.org`, langKey: 'en' } });
    expect(res.status).toBe(204);
    expect((await readBack(self.login)).firstName).toBe('Me');
  });
});
