/**
 * `/api/roles` and `/api/authorities` over HTTP (managementportal.md §2.9): system admins create
 * and change roles, readers see the roles of their projects and organizations, and every change
 * records a revision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, type Json } from '../../../helpers/management-api.js';
import { aParticipant, anOrganization, aProjectIn as fixtureProjectIn, mainOrganization } from '../../../fixtures/management.js';
import { roles } from '../../../../src/management/schema.js';
import { latestChangeByKey } from '../../../../src/management/api/revisions/queries.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
interface Org { id: number; name: string }
interface Project { id: number; projectName: string }
let main: Org;
let other: Org;
let projA: Project;
let projB: Project;
let projC: Project;
let pa: { login: string; token: string };
let oa: { login: string; token: string };
let participant: string;

const aProjectIn = (org: Org): Promise<Project> => fixtureProjectIn(t.app.db.db, org);
const call = (...args: Parameters<typeof mp.call>) => mp.call(...args);
const roleOf = (authorityName: string, project: Project) =>
  ({ id: expect.any(Number), projectId: project.id, projectName: project.projectName, authorityName });
const accessDenied = { message: 'error.accessDenied', description: expect.any(String), fieldErrors: null };

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
  oa = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: main.name });
  const p = await aParticipant(db, { project: projA, password: 'Passw0rd' });
  participant = await mp.tokenOf(p.login, 'Passw0rd');
  // Roles of the three projects and of the other organization, for the list tests.
  for (const project of [projA, projB, projC]) await db.insert(roles).values({ authorityName: 'ROLE_PROJECT_ANALYST', projectId: project.id });
  await db.insert(roles).values({ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: other.id });
});
afterAll(async () => { await t?.close(); });

describe('GET /api/authorities', () => {
  const all = [
    { name: 'ROLE_SYS_ADMIN', scope: 'GLOBAL' },
    { name: 'ROLE_ORGANIZATION_ADMIN', scope: 'ORGANIZATION' },
    { name: 'ROLE_PROJECT_ADMIN', scope: 'PROJECT' },
    { name: 'ROLE_PROJECT_OWNER', scope: 'PROJECT' },
    { name: 'ROLE_PROJECT_AFFILIATE', scope: 'PROJECT' },
    { name: 'ROLE_PROJECT_ANALYST', scope: 'PROJECT' },
  ];

  it('lists the six non-participant authorities to holders of AUTHORITY.READ', async () => {
    expect(await call('GET', '/api/authorities', { bearer: admin })).toMatchObject({ status: 200, body: all });
    expect(await call('GET', '/api/authorities', { bearer: await mp.clientCredentials(['AUTHORITY.READ'], admin) })).toMatchObject({ status: 200, body: all });
    for (const token of [pa.token, oa.token, participant, await mp.clientCredentials(['ROLE.READ'], admin)]) {
      expect(await call('GET', '/api/authorities', { bearer: token })).toMatchObject({ status: 403, body: accessDenied });
    }
    expect((await call('GET', '/api/authorities')).status).toBe(401);
  });
});

describe('POST and PUT /api/roles', () => {
  it('creates a project role (201, Location, alert) and records its revision', async () => {
    const project = await aProjectIn(main);
    const res = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_PROJECT_OWNER', projectId: project.id } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(roleOf('ROLE_PROJECT_OWNER', project));
    expect(res.headers.location).toBe(`/api/roles/${project.projectName}/ROLE_PROJECT_OWNER`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.role.created');
    expect(res.headers['x-managementportalapp-params']).toBe(`${project.projectName}: ROLE_PROJECT_OWNER`);
    expect(await latestChangeByKey(t.app.db.db, 'role', `${project.projectName}:ROLE_PROJECT_OWNER`)).toMatchObject({ revisionType: 'ADD', entityId: res.body.id, entity: res.body });
    const newOrg = await aOrg();
    const org = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationName: newOrg.name } });
    expect(org.status).toBe(201);
    expect(org.body).toEqual({ id: expect.any(Number), organizationId: newOrg.id, organizationName: newOrg.name, authorityName: 'ROLE_ORGANIZATION_ADMIN' });
    expect(org.headers.location).toBe('/api/roles/ROLE_ORGANIZATION_ADMIN');
  });

  async function aOrg(): Promise<Org> {
    const row = await anOrganization(t.app.db.db);
    return row!;
  }

  it('answers 409 for an existing role, 400 for an id or a bad authority, 404 for an unknown project', async () => {
    const exists = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_PROJECT_ANALYST', projectId: projA.id } });
    expect(exists.status).toBe(409);
    expect(exists.body).toEqual({ message: 'Role already exists', entityName: 'role', errorCode: 'error.roleExists', params: { timestamp: expect.stringMatching(radarTimestamp), authorityName: 'ROLE_PROJECT_ANALYST' } });
    const withId = await call('POST', '/api/roles', { bearer: admin, body: { id: 5, authorityName: 'ROLE_PROJECT_ANALYST', projectId: projA.id } });
    expect(withId.status).toBe(400);
    expect(withId.headers['x-managementportalapp-error']).toBe('error.idexists');
    expect(withId.headers['x-managementportalapp-params']).toBe('role');
    const bad = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_USER' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ entityName: 'role', errorCode: 'error.invalidAuthority' });
    const noProject = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_PROJECT_ANALYST', projectName: 'no-such-project' } });
    expect(noProject.status).toBe(404);
    expect(noProject.body).toMatchObject({ errorCode: 'error.invalidAuthority', params: { projectId: 'no-such-project' } });
    const invalid = await call('POST', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_PROJECT_ANALYST', projectId: 'x' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toBe('error.validation');
  });

  it('is for system admins only, not for other admins or clients', async () => {
    const project = await aProjectIn(main);
    const body = { authorityName: 'ROLE_PROJECT_AFFILIATE', projectId: project.id };
    const cc = await mp.clientCredentials(['ROLE.CREATE', 'ROLE.UPDATE'], admin);
    for (const token of [pa.token, oa.token, participant, cc]) {
      expect(await call('POST', '/api/roles', { bearer: token, body })).toMatchObject({ status: 403, body: accessDenied });
      expect((await call('PUT', '/api/roles', { bearer: token, body: { ...body, id: 1 } })).status).toBe(403);
    }
    expect((await call('GET', `/api/roles/${project.projectName}/ROLE_PROJECT_AFFILIATE`, { bearer: admin })).status).toBe(404);
  });

  it('PUT changes a role (200, alert, revision); without an id it creates (201)', async () => {
    const project = await aProjectIn(main);
    const created = await call('PUT', '/api/roles', { bearer: admin, body: { authorityName: 'ROLE_PROJECT_AFFILIATE', projectId: project.id } });
    expect(created.status).toBe(201);
    const updated = await call('PUT', '/api/roles', { bearer: admin, body: { id: created.body.id, authorityName: 'ROLE_PROJECT_OWNER', projectId: project.id } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...roleOf('ROLE_PROJECT_OWNER', project), id: created.body.id });
    expect(updated.headers['x-managementportalapp-alert']).toBe('managementPortalApp.role.updated');
    expect(await latestChangeByKey(t.app.db.db, 'role', `${project.projectName}:ROLE_PROJECT_OWNER`)).toMatchObject({ revisionType: 'MOD', entity: updated.body });
    const clash = await call('PUT', '/api/roles', { bearer: admin, body: { id: created.body.id, authorityName: 'ROLE_PROJECT_ANALYST', projectId: projA.id } });
    expect(clash.status).toBe(409);
    const unknown = await call('PUT', '/api/roles', { bearer: admin, body: { id: 987654321, authorityName: 'ROLE_PROJECT_ANALYST', projectId: project.id } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ entityName: 'role', errorCode: 'error.entityNotFound' });
  });
});

describe('reading roles', () => {
  const keys = (list: Json[]) => list.map((r) => `${r.projectName ?? r.organizationName ?? ''}:${r.authorityName}`);

  it('GET /api/roles: all for a system admin, the caller\'s projects\' and organizations\' roles for others', async () => {
    const all = await call('GET', '/api/roles', { bearer: admin });
    expect(all.status).toBe(200);
    expect(keys(all.body)).toEqual(expect.arrayContaining([
      ':ROLE_SYS_ADMIN', `${projA.projectName}:ROLE_PROJECT_ANALYST`, `${projC.projectName}:ROLE_PROJECT_ANALYST`, `${other.name}:ROLE_ORGANIZATION_ADMIN`,
    ]));
    const byPa = keys((await call('GET', '/api/roles', { bearer: pa.token })).body);
    expect(byPa.sort()).toEqual([`${projA.projectName}:ROLE_PARTICIPANT`, `${projA.projectName}:ROLE_PROJECT_ADMIN`, `${projA.projectName}:ROLE_PROJECT_ANALYST`].sort());
    const byOa = keys((await call('GET', '/api/roles', { bearer: oa.token })).body);
    expect(byOa).toEqual(expect.arrayContaining([`${projA.projectName}:ROLE_PROJECT_ANALYST`, `${projB.projectName}:ROLE_PROJECT_ANALYST`, 'main:ROLE_ORGANIZATION_ADMIN']));
    expect(byOa).not.toContain(`${projC.projectName}:ROLE_PROJECT_ANALYST`);
    expect(byOa).not.toContain(`${other.name}:ROLE_ORGANIZATION_ADMIN`);
    expect(byOa).not.toContain(':ROLE_SYS_ADMIN');
    expect(await call('GET', '/api/roles', { bearer: participant })).toMatchObject({ status: 403, body: accessDenied });
    expect((await call('GET', '/api/roles', { bearer: await mp.clientCredentials(['PROJECT.READ'], admin) })).status).toBe(403);
    expect(keys((await call('GET', '/api/roles', { bearer: await mp.clientCredentials(['ROLE.READ'], admin) })).body)).toEqual(keys(all.body));
  });

  it('GET /api/roles/admin: the system admin role, for system admins', async () => {
    const res = await call('GET', '/api/roles/admin', { bearer: admin });
    expect(res).toMatchObject({ status: 200, body: [{ id: expect.any(Number), authorityName: 'ROLE_SYS_ADMIN' }] });
    expect(res.body[0]).toEqual({ id: expect.any(Number), authorityName: 'ROLE_SYS_ADMIN' });
    expect((await call('GET', '/api/roles/admin', { bearer: pa.token })).status).toBe(403);
    expect((await call('GET', '/api/roles/admin', { bearer: await mp.clientCredentials(['ROLE.READ'], admin) })).status).toBe(403);
  });

  it('GET /api/roles/{project}/{authority}: 200 within the caller\'s reach, 404 unknown, 403 elsewhere', async () => {
    const path = `/api/roles/${projA.projectName}/ROLE_PROJECT_ANALYST`;
    expect(await call('GET', path, { bearer: admin })).toMatchObject({ status: 200, body: roleOf('ROLE_PROJECT_ANALYST', projA) });
    expect(await call('GET', path, { bearer: pa.token })).toMatchObject({ status: 200, body: roleOf('ROLE_PROJECT_ANALYST', projA) });
    expect((await call('GET', path, { bearer: oa.token })).status).toBe(200);
    expect((await call('GET', `/api/roles/${projC.projectName}/ROLE_PROJECT_ANALYST`, { bearer: oa.token })).status).toBe(403);
    expect((await call('GET', `/api/roles/${projB.projectName}/ROLE_PROJECT_ANALYST`, { bearer: pa.token })).status).toBe(403);
    expect((await call('GET', path, { bearer: participant })).status).toBe(403);
    const unknown = await call('GET', `/api/roles/${projA.projectName}/ROLE_PROJECT_OWNER`, { bearer: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      message: 'Role not found with projectName and authorityName', entityName: 'role', errorCode: 'error.entityNotFound',
      params: { timestamp: expect.stringMatching(radarTimestamp), projectName: projA.projectName, authorityName: 'ROLE_PROJECT_OWNER' },
    });
    expect((await call('GET', '/api/roles/no-such-project/ROLE_PROJECT_OWNER', { bearer: pa.token })).status).toBe(403);
  });
});
