/**
 * `/api/users` over HTTP (managementportal.md §2.1–§2.2, UserResourceIntTest of §14): UserDTO
 * shapes, validation, duplicates, filters and paging, and who may do what (§4 with quirk 7 fixed:
 * a project or organization admin reaches only users with a role in its project or organization).
 * No response may ever carry a reset key, an activation key or a password hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type ApiResponse, type Json, type Method } from '../../../helpers/management-api.js';
import { aParticipant, anOrganization, aProjectIn as fixtureProjectIn, mainOrganization } from '../../../fixtures/management.js';
import { subjects, users } from '../../../../src/management/schema.js';
import { findUserByLogin } from '../../../../src/management/security/queries.js';
import { latestChangeByKey } from '../../../../src/management/api/revisions/queries.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

/** Every call goes through here: no body may leak a secret of an account. */
async function call(method: Method, path: string, opts: { bearer?: string; body?: unknown } = {}): Promise<ApiResponse> {
  const res = await mp.call(method, path, opts);
  const text = JSON.stringify(res.body ?? '');
  for (const secret of ['resetKey', 'reset_key', 'activationKey', 'password', '$2a$', '$2b$']) expect(text).not.toContain(secret);
  return res;
}

interface Org { id: number; name: string }
interface Project { id: number; projectName: string }
let main: Org;
let other: Org;
let projA: Project;
let projB: Project;
let projC: Project;
let pa: { login: string; token: string };
let oa: { login: string; token: string };
let participant: { login: string; token: string };

const aProjectIn = (org: Org): Promise<Project> => fixtureProjectIn(t.app.db.db, org);

const projectRole = (authorityName: string, project: Project) => ({ authorityName, projectId: project.id });
const expectedRole = (authorityName: string, project: Project) =>
  ({ id: expect.any(Number), projectId: project.id, projectName: project.projectName, authorityName });

/** A new user created by `token` (admin by default) with `roles`; returns the response. */
async function createUser(roles: unknown[], opts: { token?: string; login?: string; extra?: Record<string, unknown> } = {}) {
  const login = opts.login ?? unique('u');
  return call('POST', '/api/users', { bearer: opts.token ?? admin, body: { login, firstName: 'First', lastName: 'Last', email: `${login}@example.org`, roles, ...opts.extra } });
}

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  main = await mainOrganization(db);
  other = await anOrganization(db);
  projA = await aProjectIn(main);
  projB = await aProjectIn(main);
  projC = await aProjectIn(other);
  pa = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: projA.projectName });
  oa = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
  const p = await aParticipant(db, { project: projA, password: 'Passw0rd' });
  participant = { login: p.login, token: await mp.tokenOf(p.login, 'Passw0rd') };
});
afterAll(async () => { await t?.close(); });

describe('POST /api/users', () => {
  it('creates an inactive user with a reset key, answers its UserDTO and records the revision', async () => {
    const login = unique('New-User');
    const before = Date.now();
    const res = await call('POST', '/api/users', {
      bearer: admin,
      body: { login, firstName: 'Ada', lastName: 'Lovelace', email: `${login}@example.org`, activated: true, password: 'ignored1', roles: [projectRole('ROLE_PROJECT_ADMIN', projA)] },
    });
    expect(res.status).toBe(201);
    const lower = login.toLowerCase();
    expect(res.headers.location).toBe(`/api/users/${lower}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('userManagement.created');
    expect(res.headers['x-managementportalapp-params']).toBe(lower);
    expect(res.body).toEqual({
      id: expect.any(Number), login: lower, firstName: 'Ada', lastName: 'Lovelace', email: `${login}@example.org`,
      activated: false, langKey: 'en', createdBy: 'admin', createdDate: iso, lastModifiedBy: 'admin', lastModifiedDate: iso,
      roles: [expectedRole('ROLE_PROJECT_ADMIN', projA)], authorities: ['ROLE_PROJECT_ADMIN'],
    });
    const row = (await findUserByLogin(t.app.db.db, lower))!;
    expect(row.activated).toBe(false);
    expect(row.resetKey).toMatch(/^\d{20}$/);
    expect(row.resetDate!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.passwordHash).toBeNull(); // no password until the reset link sets one
    const change = (await latestChangeByKey(t.app.db.db, 'user', lower))!;
    expect(change).toMatchObject({ revisionType: 'ADD', entityId: res.body.id, entity: res.body });
  });

  it('keeps the given language', async () => {
    const res = await createUser([], { extra: { langKey: 'nl' } });
    expect(res.status).toBe(201);
    expect(res.body.langKey).toBe('nl');
  });

  it.each([
    ['a login outside the id pattern', { login: 'bad/login' }, 'login'],
    ['a login of 51 characters', { login: 'x'.repeat(51) }, 'login'],
    ['an empty login', { login: '' }, 'login'],
    ['an e-mail shorter than 5', { email: 'a@b' }, 'email'],
    ['an invalid e-mail', { email: 'not-an-email' }, 'email'],
    ['a one-letter language', { langKey: 'e' }, 'langKey'],
    ['a six-letter language', { langKey: 'abcdef' }, 'langKey'],
    ['a first name of 51 characters', { firstName: 'f'.repeat(51) }, 'firstName'],
  ])('refuses %s with 400 error.validation and stores nothing', async (_what, change, field) => {
    const login = unique('invalid');
    const res = await call('POST', '/api/users', { bearer: admin, body: { login, email: `${login}@example.org`, ...change } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'error.validation', description: expect.any(String),
      fieldErrors: [expect.objectContaining({ objectName: 'body', field })],
    });
    expect(await findUserByLogin(t.app.db.db, login)).toBeUndefined();
  });

  it('refuses an id, a taken login (any case) and a taken e-mail with 400 and the reference\'s error keys', async () => {
    const existing = (await createUser([])).body;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ id: 1, login: unique('x'), email: `${unique('x')}@example.org` }, 'error.idexists', 'A new user cannot already have an ID'],
      [{ login: existing.login.toUpperCase(), email: `${unique('x')}@example.org` }, 'error.userexists', 'Login already in use'],
      [{ login: unique('x'), email: existing.email }, 'error.emailexists', 'Email already in use'],
    ];
    for (const [body, errorCode, message] of cases) {
      const res = await call('POST', '/api/users', { bearer: admin, body });
      expect(res.status).toBe(400);
      expect(res.headers['x-managementportalapp-error']).toBe(errorCode);
      expect(res.headers['x-managementportalapp-params']).toBe('userManagement');
      expect(res.body).toEqual({ message, entityName: 'userManagement', errorCode, params: { timestamp: expect.stringMatching(radarTimestamp) } });
    }
  });

  it('refuses unknown authorities and roles without their project (400/404 error.invalidAuthority), creating nothing', async () => {
    const login = unique('roles');
    const unknown = await createUser([{ authorityName: 'ROLE_NOPE' }], { login });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      message: 'Authority not found with authorityName', entityName: 'userManagement', errorCode: 'error.invalidAuthority',
      params: { timestamp: expect.stringMatching(radarTimestamp), authorityName: 'ROLE_NOPE' },
    });
    const noProject = await createUser([{ authorityName: 'ROLE_PROJECT_ADMIN' }], { login });
    expect(noProject.status).toBe(400);
    expect(noProject.body.message).toBe('Authority with authorityName should have project ID');
    const noOrg = await createUser([{ authorityName: 'ROLE_ORGANIZATION_ADMIN' }], { login });
    expect(noOrg.body.message).toBe('Authority with authorityName should have organization ID');
    const missing = await createUser([{ authorityName: 'ROLE_PROJECT_ADMIN', projectId: 987654321 }], { login });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ errorCode: 'error.invalidAuthority', params: { authorityName: 'ROLE_PROJECT_ADMIN', projectId: '987654321' } });
    expect(await findUserByLogin(t.app.db.db, login)).toBeUndefined();
  });

  it('lets an admin create users only with roles it may give', async () => {
    const cc = await mp.clientCredentials(['USER.CREATE', 'ROLE.UPDATE'], admin);
    const ccReadOnly = await mp.clientCredentials(['USER.READ'], admin);
    const cases: [string, string, unknown[], number][] = [
      ['project admin, role in its project', pa.token, [projectRole('ROLE_PROJECT_ANALYST', projA)], 201],
      ['project admin, role in another project', pa.token, [projectRole('ROLE_PROJECT_ANALYST', projB)], 403],
      ['project admin, roles in its and another project', pa.token, [projectRole('ROLE_PROJECT_ANALYST', projA), projectRole('ROLE_PROJECT_OWNER', projB)], 403],
      ['project admin, no role', pa.token, [], 403],
      ['project admin, its organization\'s admin', pa.token, [{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: main.id }], 403],
      ['project admin, system admin', pa.token, [{ authorityName: 'ROLE_SYS_ADMIN' }], 403],
      ['organization admin, role in its organization', oa.token, [projectRole('ROLE_PROJECT_OWNER', projB)], 201],
      ['organization admin, its organization by name', oa.token, [{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationName: 'main' }], 201],
      ['organization admin, role in another organization', oa.token, [projectRole('ROLE_PROJECT_OWNER', projC)], 403],
      ['organization admin, no role', oa.token, [], 403],
      ['participant', participant.token, [projectRole('ROLE_PROJECT_ANALYST', projA)], 403],
      ['client with USER.CREATE and ROLE.UPDATE', cc, [projectRole('ROLE_PROJECT_ANALYST', projC)], 201],
      ['client without USER.CREATE', ccReadOnly, [], 403],
      ['system admin, no role', admin, [], 201],
      ['system admin, system admin role', admin, [{ authorityName: 'ROLE_SYS_ADMIN' }], 201],
    ];
    for (const [who, token, roles, status] of cases) {
      const login = unique('perm');
      const res = await createUser(roles, { token, login });
      expect(res.status, who).toBe(status);
      if (status === 403) {
        expect(res.body.message, who).toBe('error.accessDenied');
        expect(await findUserByLogin(t.app.db.db, login), who).toBeUndefined();
      }
    }
  });
});

describe('GET /api/users', () => {
  const tag = unique('list');
  let uA: Json;
  let uB: Json;
  let uC: Json;
  let uNone: Json;
  let orgAdmin: Json;
  const logins = (res: ApiResponse) => (res.body as Json[]).map((u) => u.login);

  beforeAll(async () => {
    uA = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)], { login: `${tag}-a` })).body;
    uB = (await createUser([projectRole('ROLE_PROJECT_ADMIN', projB)], { login: `${tag}-b` })).body;
    uC = (await createUser([projectRole('ROLE_PROJECT_ADMIN', projC)], { login: `${tag}-c` })).body;
    uNone = (await createUser([], { login: `${tag}-none` })).body;
    orgAdmin = (await createUser([{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: other.id }], { login: `${tag}-org` })).body;
    // A participant whose login matches the filter: never listed.
    const p = await aParticipant(t.app.db.db, { project: projA });
    await t.app.db.db.update(users).set({ login: `${tag}-participant` }).where(eq(users.id, p.user.id));
  });

  it('lists the non-participant users a system admin asks for, with their DTOs', async () => {
    const res = await call('GET', `/api/users?login=${tag.toUpperCase()}&sort=login,asc`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([uA, uB, uC, uNone, orgAdmin]);
    expect(res.headers['x-total-count']).toBe('5');
    const all = await call('GET', '/api/users', { bearer: admin });
    expect(logins(all)).toContain('admin');
    expect(logins(all)).not.toContain(participant.login);
  });

  it('filters by e-mail, authority, project and organization as the reference\'s UserFilter', async () => {
    expect(logins(await call('GET', `/api/users?email=${tag}-B@EXAMPLE`, { bearer: admin }))).toEqual([uB.login]);
    expect(logins(await call('GET', `/api/users?login=${tag}&authority=project_analyst`, { bearer: admin }))).toEqual([uA.login]);
    expect(logins(await call('GET', `/api/users?login=${tag}&authority=PARTICIPANT`, { bearer: admin }))).toEqual([]);
    expect(logins(await call('GET', `/api/users?login=${tag}&authority=null&sort=id,asc`, { bearer: admin }))).toHaveLength(5);

    const projD = await aProjectIn(main);
    const uD = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projD)])).body;
    const pd = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: projD.projectName });
    const inD = logins(await call('GET', `/api/users?projectName=${projD.projectName.toUpperCase()}`, { bearer: admin }));
    expect(inD.sort()).toEqual([pd.login, uD.login].sort());
    const upper = logins(await call('GET', `/api/users?projectName=${projD.projectName}&includeUpperLevels=true`, { bearer: admin }));
    expect(upper).toEqual(expect.arrayContaining([pd.login, uD.login, oa.login, 'admin']));
    expect(upper).not.toContain(uB.login);
    expect(upper).not.toContain(orgAdmin.login);

    expect(logins(await call('GET', `/api/users?organization=${other.name}`, { bearer: admin }))).toEqual([orgAdmin.login]);
    const otherUpper = logins(await call('GET', `/api/users?organization=${other.name}&includeUpperLevels=true`, { bearer: admin }));
    expect(otherUpper).toEqual(expect.arrayContaining([orgAdmin.login, 'admin']));
    expect(otherUpper).not.toContain(uC.login); // project roles are not organization roles
  });

  it('shows each caller only the users it may read', async () => {
    const ccRead = await mp.clientCredentials(['USER.READ'], admin);
    const ccOther = await mp.clientCredentials(['PROJECT.READ'], admin);
    const query = `/api/users?login=${tag}&sort=login,asc`;
    expect(logins(await call('GET', query, { bearer: pa.token }))).toEqual([uA.login]);
    expect(logins(await call('GET', query, { bearer: oa.token }))).toEqual([uA.login, uB.login]);
    expect(logins(await call('GET', query, { bearer: ccRead }))).toEqual([uA.login, uB.login, uC.login, uNone.login, orgAdmin.login]);
    expect(logins(await call('GET', `/api/users?login=${pa.login}`, { bearer: pa.token }))).toEqual([pa.login]);
    for (const token of [participant.token, ccOther]) {
      const res = await call('GET', query, { bearer: token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'error.accessDenied', description: expect.any(String), fieldErrors: null });
    }
    expect((await call('GET', query)).status).toBe(401);
  });

  it('pages with X-Total-Count and Link, sorts, and leaves out provenance on request', async () => {
    const first = await call('GET', `/api/users?login=${tag}&size=2&page=0&sort=login,desc`, { bearer: admin });
    expect(logins(first)).toEqual([orgAdmin.login, uNone.login]);
    expect(first.headers['x-total-count']).toBe('5');
    expect(first.headers.link).toBe('</managementportal/api/users?page=1&size=2>; rel="next",</managementportal/api/users?page=2&size=2>; rel="last",</managementportal/api/users?page=0&size=2>; rel="first"');
    const last = await call('GET', `/api/users?login=${tag}&size=2&page=2&sort=login,desc`, { bearer: admin });
    expect(logins(last)).toEqual([uA.login]);
    const bare = await call('GET', `/api/users?login=${tag}-a&includeProvenance=false`, { bearer: admin });
    expect(bare.body).toEqual([{ ...uA, createdBy: null, createdDate: null, lastModifiedBy: null, lastModifiedDate: null }]);
    const badSort = await call('GET', '/api/users?sort=nope,asc', { bearer: admin });
    expect(badSort.status).toBe(400);
    expect(badSort.body.message).toBe('error.validation');
  });

  it('GET /api/users/{login}: 200 for who may read it, 404 for an unknown login, 403 otherwise', async () => {
    expect(await call('GET', `/api/users/${uA.login}`, { bearer: admin })).toMatchObject({ status: 200, body: uA });
    expect(await call('GET', `/api/users/${uA.login}`, { bearer: pa.token })).toMatchObject({ status: 200, body: uA });
    expect((await call('GET', `/api/users/${pa.login}`, { bearer: pa.token })).status).toBe(200);
    expect((await call('GET', `/api/users/${uB.login}`, { bearer: oa.token })).status).toBe(200);
    expect((await call('GET', `/api/users/${uB.login}`, { bearer: pa.token })).status).toBe(403);
    expect((await call('GET', `/api/users/${uC.login}`, { bearer: oa.token })).status).toBe(403);
    expect((await call('GET', `/api/users/${uNone.login}`, { bearer: oa.token })).status).toBe(403);
    expect((await call('GET', `/api/users/${uA.login}`, { bearer: participant.token })).status).toBe(403);
    expect((await call('GET', `/api/users/${uC.login}`, { bearer: await mp.clientCredentials(['USER.READ'], admin) })).status).toBe(200);
    const unknown = await call('GET', '/api/users/nobody-here', { bearer: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      message: 'User not found with login', entityName: 'userManagement', errorCode: 'error.entityNotFound',
      params: { timestamp: expect.stringMatching(radarTimestamp), user: 'nobody-here' },
    });
    // Unknown to someone who could not read it anyway: no hint that it does not exist.
    expect((await call('GET', '/api/users/nobody-here', { bearer: pa.token })).status).toBe(403);
  });
});

describe('PUT /api/users', () => {
  const body = (user: Json, change: Record<string, unknown> = {}) => ({
    id: user.id, login: user.login, firstName: user.firstName, lastName: user.lastName, email: user.email,
    activated: user.activated, langKey: user.langKey, roles: user.roles, ...change,
  });

  it('replaces the fields and roles, answers the UserDTO and records the revision', async () => {
    const user = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const res = await call('PUT', '/api/users', {
      bearer: admin,
      body: body(user, { firstName: 'New', lastName: 'Name', email: `new-${user.email}`, langKey: 'nl', activated: true, roles: [projectRole('ROLE_PROJECT_OWNER', projB)] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-managementportalapp-alert']).toBe('userManagement.updated');
    expect(res.headers['x-managementportalapp-params']).toBe(user.login);
    expect(res.body).toEqual({
      ...user, firstName: 'New', lastName: 'Name', email: `new-${user.email}`, langKey: 'nl', activated: true,
      lastModifiedDate: iso, roles: [expectedRole('ROLE_PROJECT_OWNER', projB)], authorities: ['ROLE_PROJECT_OWNER'],
    });
    expect((await call('GET', `/api/users/${user.login}`, { bearer: admin })).body).toEqual(res.body);
    expect(await latestChangeByKey(t.app.db.db, 'user', user.login)).toMatchObject({ revisionType: 'MOD', entity: res.body });
  });

  it('never changes the login; keeps roles and activation when they are left out', async () => {
    const user = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const { roles: _roles, activated: _activated, ...rest } = body(user, { login: unique('renamed'), firstName: 'Kept' });
    const res = await call('PUT', '/api/users', { bearer: admin, body: rest });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ login: user.login, firstName: 'Kept', activated: false, roles: user.roles });
  });

  it('refuses another user\'s e-mail (error.emailexists) or login (error.userexists) with 400', async () => {
    const user = (await createUser([])).body;
    const otherUser = (await createUser([])).body;
    const email = await call('PUT', '/api/users', { bearer: admin, body: body(user, { email: otherUser.email }) });
    expect(email.status).toBe(400);
    expect(email.headers['x-managementportalapp-error']).toBe('error.emailexists');
    expect(email.body).toMatchObject({ message: 'Email already in use', entityName: 'userManagement', errorCode: 'error.emailexists' });
    const login = await call('PUT', '/api/users', { bearer: admin, body: body(user, { login: otherUser.login }) });
    expect(login.status).toBe(400);
    expect(login.body).toMatchObject({ message: 'Login already in use', errorCode: 'error.userexists' });
    expect((await call('GET', `/api/users/${user.login}`, { bearer: admin })).body).toEqual(user);
  });

  it('needs an id (400 error.validation) of an existing user (404)', async () => {
    const noId = await call('PUT', '/api/users', { bearer: admin, body: { login: unique('x') } });
    expect(noId.status).toBe(400);
    expect(noId.body).toEqual({
      message: 'error.validation', description: expect.any(String),
      fieldErrors: [{ objectName: 'managedUserVM', field: 'id', message: 'NotNull: must not be null' }],
    });
    const unknown = await call('PUT', '/api/users', { bearer: admin, body: { id: 987654321, login: unique('x') } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorCode: 'error.entityNotFound', entityName: 'userManagement' });
  });

  it('lets a project admin change only its project\'s users and roles', async () => {
    const inA = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const inB = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projB)])).body;
    const ok = await call('PUT', '/api/users', { bearer: pa.token, body: body(inA, { firstName: 'ByPa', roles: [projectRole('ROLE_PROJECT_OWNER', projA)] }) });
    expect(ok.status).toBe(200);
    expect(ok.body.roles).toEqual([expectedRole('ROLE_PROJECT_OWNER', projA)]);
    const addB = await call('PUT', '/api/users', { bearer: pa.token, body: body(ok.body, { roles: [...ok.body.roles, projectRole('ROLE_PROJECT_OWNER', projB)] }) });
    expect(addB.status).toBe(403);
    expect((await call('PUT', '/api/users', { bearer: pa.token, body: body(inB, { firstName: 'Nope' }) })).status).toBe(403);
    expect((await call('GET', `/api/users/${inA.login}`, { bearer: admin })).body).toEqual(ok.body);
    expect((await call('GET', `/api/users/${inB.login}`, { bearer: admin })).body).toEqual(inB);
  });

  it('refuses to activate the account of a removed subject (403 error.invalidsubjectstate)', async () => {
    const p = await aParticipant(t.app.db.db, { project: projA, activated: false });
    await t.app.db.db.update(subjects).set({ removed: true }).where(eq(subjects.userId, p.user.id));
    const res = await call('PUT', '/api/users', { bearer: admin, body: { id: p.user.id, login: p.login, activated: true } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ entityName: 'userManagement', errorCode: 'error.invalidsubjectstate' });
  });
});

describe('DELETE /api/users/{login}', () => {
  it('deletes (200 with the alert), records the revision, and is idempotent', async () => {
    const user = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const res = await call('DELETE', `/api/users/${user.login}`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.headers['x-managementportalapp-alert']).toBe('userManagement.deleted');
    expect(res.headers['x-managementportalapp-params']).toBe(user.login);
    expect(await findUserByLogin(t.app.db.db, user.login)).toBeUndefined();
    expect(await latestChangeByKey(t.app.db.db, 'user', user.login)).toMatchObject({ revisionType: 'DEL', entity: user });
    expect((await call('DELETE', `/api/users/${user.login}`, { bearer: admin })).status).toBe(200);
  });

  it('lets a project admin delete only its project\'s users, and nobody delete a subject\'s account here', async () => {
    const inA = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const inB = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projB)])).body;
    expect((await call('DELETE', `/api/users/${inB.login}`, { bearer: pa.token })).status).toBe(403);
    expect((await call('DELETE', '/api/users/nobody-here', { bearer: pa.token })).status).toBe(403);
    expect((await call('DELETE', `/api/users/${inA.login}`, { bearer: participant.token })).status).toBe(403);
    expect((await call('DELETE', `/api/users/${inA.login}`, { bearer: pa.token })).status).toBe(200);
    expect(await findUserByLogin(t.app.db.db, inB.login)).toBeDefined();
    const subject = await call('DELETE', `/api/users/${participant.login}`, { bearer: admin });
    expect(subject.status).toBe(403);
    expect(subject.body).toMatchObject({ errorCode: 'error.invalidsubjectstate' });
    expect(await findUserByLogin(t.app.db.db, participant.login)).toBeDefined();
  });
});

describe('/api/users/{login}/roles', () => {
  it('reads and replaces the roles (204), creating a missing role row', async () => {
    const user = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const read = await call('GET', `/api/users/${user.login}/roles`, { bearer: admin });
    expect(read).toMatchObject({ status: 200, body: user.roles });
    const fresh = await aProjectIn(main);
    const put = await call('PUT', `/api/users/${user.login}/roles`, {
      bearer: admin, body: [projectRole('ROLE_PROJECT_AFFILIATE', fresh), { authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: other.id }],
    });
    expect(put.status).toBe(204);
    const after = await call('GET', `/api/users/${user.login}`, { bearer: admin });
    expect(after.body.roles).toEqual(expect.arrayContaining([
      expectedRole('ROLE_PROJECT_AFFILIATE', fresh),
      { id: expect.any(Number), organizationId: other.id, organizationName: other.name, authorityName: 'ROLE_ORGANIZATION_ADMIN' },
    ]));
    expect(after.body.roles).toHaveLength(2);
    expect(await latestChangeByKey(t.app.db.db, 'role', `${fresh.projectName}:ROLE_PROJECT_AFFILIATE`)).toMatchObject({ revisionType: 'ADD' });
  });

  it('answers 400 error.invalidAuthority, 404 for an unknown user, 403 outside the caller\'s projects', async () => {
    const user = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projA)])).body;
    const bad = await call('PUT', `/api/users/${user.login}/roles`, { bearer: admin, body: [{ authorityName: 'ROLE_ADMIN' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: 'error.invalidAuthority', params: { authorityName: 'ROLE_ADMIN' } });
    expect((await call('PUT', '/api/users/nobody-here/roles', { bearer: admin, body: [] })).status).toBe(404);
    expect((await call('GET', '/api/users/nobody-here/roles', { bearer: admin })).status).toBe(404);
    const inB = (await createUser([projectRole('ROLE_PROJECT_ANALYST', projB)])).body;
    expect((await call('GET', `/api/users/${inB.login}/roles`, { bearer: pa.token })).status).toBe(403);
    expect((await call('PUT', `/api/users/${inB.login}/roles`, { bearer: pa.token, body: [] })).status).toBe(403);
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: pa.token, body: [projectRole('ROLE_PROJECT_OWNER', projB)] })).status).toBe(403);
    // A project admin may not hand out its organization's admin role (radar-auth would let it).
    const orgAdmin = { authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: main.id };
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: pa.token, body: [projectRole('ROLE_PROJECT_ANALYST', projA), orgAdmin] })).status).toBe(403);
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: oa.token, body: [projectRole('ROLE_PROJECT_ANALYST', projA), orgAdmin] })).status).toBe(204);
    // Nor take it away; changing only the roles of its project is fine.
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: pa.token, body: [projectRole('ROLE_PROJECT_OWNER', projA)] })).status).toBe(403);
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: pa.token, body: [projectRole('ROLE_PROJECT_OWNER', projA), orgAdmin] })).status).toBe(204);
    const roles = (await call('GET', `/api/users/${user.login}/roles`, { bearer: pa.token })).body;
    expect(roles).toEqual(expect.arrayContaining([expectedRole('ROLE_PROJECT_OWNER', projA), { id: expect.any(Number), organizationId: main.id, organizationName: 'main', authorityName: 'ROLE_ORGANIZATION_ADMIN' }]));
    expect(roles).toHaveLength(2);
    expect((await call('PUT', `/api/users/${user.login}/roles`, { bearer: participant.token, body: [] })).status).toBe(403);
  });
});
