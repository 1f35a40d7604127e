/**
 * `/api/organizations` (managementportal.md §2.4, §14 OrganizationResourceIntTest): create,
 * update, list, read, an organization's projects and delete (not in the reference: issue 31), with whole bodies, alert headers, what is
 * stored, and who may and who may not: system admin, organization admin of `main`, project admin of
 * a project in `main`, project admin of a project in another organization, participant, client
 * credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { organizations, revisionChanges, roles } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let main: Json;
let other: Json;
/** `P` and `P2` in `main`, `Q` in `other`. */
let P: Json;
let P2: Json;
let Q: Json;
const tokens: Record<'orgAdmin' | 'projectAdmin' | 'otherAdmin' | 'participant' | 'client' | 'clientNoRead', string> = {} as never;

const timestamp = expect.stringMatching(radarTimestamp);
const accessDenied = { message: 'error.accessDenied', description: expect.stringContaining('does not have permission'), fieldErrors: null };
const db = () => t.app.db.db;
const orgBody = (over: Json = {}) => ({ name: unique('org'), description: 'An organization', location: 'Amsterdam', ...over });

async function post(path: string, body: Json, bearer = admin) {
  const res = await mp.call('POST', path, { bearer, body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
/** A project as it appears inside an organization: no organization, no source types, no token timeout. */
const reduced = (p: Json) => {
  const { organization: _o, sourceTypes: _s, persistentTokenTimeout: _t, ...rest } = p;
  return rest;
};

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  other = await post('/api/organizations', orgBody());
  const project = (organizationName: string) => post('/api/projects', { projectName: unique('project'), description: 'd', location: 'l', organizationName });
  P = await project('main');
  P2 = await project('main');
  Q = await project(other.name);
  main = (await mp.call('GET', '/api/organizations/main', { bearer: admin })).body;
  Object.assign(tokens, await mp.principals(P, Q, ['ORGANIZATION.READ', 'ORGANIZATION.CREATE', 'ORGANIZATION.UPDATE', 'PROJECT.READ'], admin));
});
afterAll(async () => { await t.close(); });

describe('POST /api/organizations', () => {
  it('creates: 201, Location, alert headers, OrganizationDTO with no projects, stored with its author and a revision', async () => {
    const body = orgBody();
    const res = await mp.call('POST', '/api/organizations', { bearer: admin, body });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/organizations/${body.name}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.organization.created');
    expect(res.headers['x-managementportalapp-params']).toBe(body.name);
    expect(res.body).toEqual({ id: expect.any(Number), ...body, projects: [] });
    const [row] = await db().select().from(organizations).where(eq(organizations.name, body.name));
    expect(row).toMatchObject({ id: res.body.id, createdBy: 'admin', description: 'An organization', location: 'Amsterdam' });
    const [change] = await db().select().from(revisionChanges)
      .where(and(eq(revisionChanges.entityType, 'organization'), eq(revisionChanges.entityId, res.body.id)));
    expect(change).toMatchObject({ revisionType: 'ADD', entityKey: body.name, entity: res.body });
  });

  it('required fields: 400 error.validation with field errors; nothing stored', async () => {
    const res = await mp.call('POST', '/api/organizations', { bearer: admin, body: { name: null, unknownField: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'error.validation', description: expect.any(String),
      fieldErrors: ['name', 'description', 'location'].map((field) => ({ objectName: 'organizationDTO', field, message: 'NotNull: must not be null' })),
    });
    const name = unique('org');
    const noLocation = await mp.call('POST', '/api/organizations', { bearer: admin, body: { name, description: 'd' } });
    expect(noLocation.body.fieldErrors).toEqual([{ objectName: 'organizationDTO', field: 'location', message: 'NotNull: must not be null' }]);
    expect(await db().select().from(organizations).where(eq(organizations.name, name))).toEqual([]);
    const badName = await mp.call('POST', '/api/organizations', { bearer: admin, body: orgBody({ name: 'a/b' }) });
    expect(badName.body.fieldErrors).toEqual([{ objectName: 'organizationDTO', field: 'name', message: expect.stringMatching(/^Pattern: /) }]);
  });

  it('an existing id: 400 idexists; an existing name: 409 nameexists', async () => {
    const withId = await mp.call('POST', '/api/organizations', { bearer: admin, body: orgBody({ id: main.id }) });
    expect(withId.status).toBe(400);
    expect(withId.body).toEqual({ message: 'A new organization cannot already have an ID', entityName: 'organization', errorCode: 'error.idexists', params: { timestamp } });
    const sameName = await mp.call('POST', '/api/organizations', { bearer: admin, body: orgBody({ name: 'main' }) });
    expect(sameName.status).toBe(409);
    expect(sameName.body).toEqual({ message: 'An organization with this name already exists', entityName: 'organization', errorCode: 'error.nameexists', params: { timestamp } });
    expect(sameName.headers['x-managementportalapp-error']).toBe('error.nameexists');
    expect(sameName.headers['x-managementportalapp-params']).toBe('organization');
  });

  it('only system admins and clients with ORGANIZATION.CREATE create organizations', async () => {
    expect((await mp.call('POST', '/api/organizations', { bearer: tokens.client, body: orgBody() })).status).toBe(201);
    const createOnly = await mp.clientCredentials(['ORGANIZATION.CREATE'], admin);
    expect((await mp.call('POST', '/api/organizations', { bearer: createOnly, body: orgBody() })).status).toBe(201);
    for (const who of ['orgAdmin', 'projectAdmin', 'otherAdmin', 'participant', 'clientNoRead'] as const) {
      const res = await mp.call('POST', '/api/organizations', { bearer: tokens[who], body: orgBody() });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
    expect((await mp.call('POST', '/api/organizations', { body: orgBody() })).status).toBe(401);
  });
});

describe('GET /api/organizations', () => {
  it('lists every organization with its projects (reduced) for a system admin; accepts the client\'s paging', async () => {
    const res = await mp.call('GET', '/api/organizations?page=0&size=2147483647', { bearer: admin });
    expect(res.status).toBe(200);
    const byName = new Map(res.body.map((o: Json) => [o.name, o]));
    expect(byName.get('main')).toEqual({ id: main.id, name: 'main', description: main.description, location: main.location, projects: [reduced(P), reduced(P2)] });
    expect(byName.get(other.name)).toEqual({ ...other, projects: [reduced(Q)] });
    expect((await mp.call('GET', '/api/organizations', { bearer: tokens.client })).body).toEqual(res.body);
  });

  it('shows each caller its organizations and, inside them, only the projects it may see', async () => {
    const list = async (bearer: string) => (await mp.call('GET', '/api/organizations', { bearer })).body
      .map((o: Json) => ({ name: o.name, projects: o.projects.map((p: Json) => p.projectName) }));
    expect(await list(tokens.orgAdmin)).toEqual([{ name: 'main', projects: [P.projectName, P2.projectName] }]);
    expect(await list(tokens.projectAdmin)).toEqual([{ name: 'main', projects: [P.projectName] }]);
    expect(await list(tokens.otherAdmin)).toEqual([{ name: other.name, projects: [Q.projectName] }]);
    for (const who of ['participant', 'clientNoRead'] as const) {
      const res = await mp.call('GET', '/api/organizations', { bearer: tokens[who] });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
  });
});

describe('GET /api/organizations/{name}', () => {
  it('returns the organization; unknown: 404 error.organizationNameNotFound', async () => {
    expect((await mp.call('GET', `/api/organizations/${other.name}`, { bearer: admin })).body).toEqual({ ...other, projects: [reduced(Q)] });
    const missing = await mp.call('GET', '/api/organizations/no-such-org', { bearer: admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Organization not found with name no-such-org', entityName: 'organization', errorCode: 'error.organizationNameNotFound', params: { timestamp, name: 'no-such-org' } });
  });

  it('who may read it', async () => {
    expect((await mp.call('GET', '/api/organizations/main', { bearer: tokens.orgAdmin })).body.projects).toHaveLength(2);
    const mine = await mp.call('GET', '/api/organizations/main', { bearer: tokens.projectAdmin });
    expect(mine.status).toBe(200);
    expect(mine.body.projects).toEqual([reduced(P)]);
    expect((await mp.call('GET', '/api/organizations/main', { bearer: tokens.client })).status).toBe(200);
    for (const who of ['otherAdmin', 'participant', 'clientNoRead'] as const) {
      expect((await mp.call('GET', '/api/organizations/main', { bearer: tokens[who] })).status, who).toBe(403);
    }
    // Not knowing the organization is no reason to tell a caller without rights that it does not exist.
    expect((await mp.call('GET', '/api/organizations/no-such-org', { bearer: tokens.projectAdmin })).status).toBe(403);
  });

  it('its projects: full DTOs, for those holding PROJECT.READ on the organization', async () => {
    const all = await mp.call('GET', '/api/organizations/main/projects', { bearer: admin });
    expect(all.status).toBe(200);
    expect(all.body).toEqual([P, P2]);
    expect((await mp.call('GET', '/api/organizations/main/projects', { bearer: tokens.orgAdmin })).body).toEqual([P, P2]);
    expect((await mp.call('GET', `/api/organizations/${other.name}/projects`, { bearer: tokens.client })).body).toEqual([Q]);
    // A project role holds PROJECT.READ on its project only, not on the organization (radar-auth), as in the reference.
    for (const who of ['projectAdmin', 'otherAdmin', 'participant', 'clientNoRead'] as const) {
      expect((await mp.call('GET', '/api/organizations/main/projects', { bearer: tokens[who] })).status, who).toBe(403);
    }
    expect((await mp.call('GET', '/api/organizations/no-such-org/projects', { bearer: admin })).status).toBe(404);
  });
});

describe('PUT /api/organizations', () => {
  it('an organization admin updates its organization: 200, updated alert, stored, revision MOD', async () => {
    const org = await post('/api/organizations', orgBody());
    const orgAdmin = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: org.name });
    const res = await mp.call('PUT', '/api/organizations', { bearer: orgAdmin.token, body: { ...org, location: 'Other location' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.organization.updated');
    expect(res.headers['x-managementportalapp-params']).toBe(org.name);
    expect(res.body).toEqual({ ...org, location: 'Other location' });
    expect((await mp.call('GET', `/api/organizations/${org.name}`, { bearer: admin })).body.location).toBe('Other location');
    const [row] = await db().select().from(organizations).where(eq(organizations.id, org.id));
    expect(row!.lastModifiedBy).toBe(orgAdmin.login);
    const changes = await db().select().from(revisionChanges).where(and(eq(revisionChanges.entityType, 'organization'), eq(revisionChanges.entityId, org.id)));
    expect(changes.map((c) => c.revisionType)).toEqual(['ADD', 'MOD']);
  });

  it('the right is checked on the organization changed, not on the name in the body; renaming is for system admins', async () => {
    const org = await post('/api/organizations', orgBody());
    // Reference bug fixed: an admin of main could overwrite any organization by sending its id with the name `main`.
    const hijack = await mp.call('PUT', '/api/organizations', { bearer: tokens.orgAdmin, body: { ...org, name: 'main' } });
    expect(hijack.status).toBe(403);
    const orgAdmin = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: org.name });
    expect((await mp.call('PUT', '/api/organizations', { bearer: orgAdmin.token, body: { ...org, name: unique('renamed') } })).status).toBe(403);
    for (const who of ['projectAdmin', 'otherAdmin', 'participant'] as const) {
      expect((await mp.call('PUT', '/api/organizations', { bearer: tokens[who], body: org })).status, who).toBe(403);
    }
    const taken = await mp.call('PUT', '/api/organizations', { bearer: admin, body: { ...org, name: other.name } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ errorCode: 'error.nameexists' });
    const newName = unique('renamed');
    const renamed = await mp.call('PUT', '/api/organizations', { bearer: admin, body: { ...org, name: newName } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...org, name: newName });
    expect((await db().select().from(organizations).where(eq(organizations.id, org.id)))[0]!.name).toBe(newName);
  });

  it('without id creates (201, system admins only); unknown id 404; required fields 400', async () => {
    const created = await mp.call('PUT', '/api/organizations', { bearer: admin, body: orgBody() });
    expect(created.status).toBe(201);
    expect(created.headers['x-managementportalapp-alert']).toBe('managementPortalApp.organization.created');
    expect((await mp.call('PUT', '/api/organizations', { bearer: tokens.orgAdmin, body: orgBody() })).status).toBe(403);
    const unknown = await mp.call('PUT', '/api/organizations', { bearer: admin, body: orgBody({ id: 99999999 }) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorCode: 'error.organizationNameNotFound', params: { id: '99999999' } });
    const invalid = await mp.call('PUT', '/api/organizations', { bearer: admin, body: { id: main.id, name: 'main' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.fieldErrors.map((e: Json) => e.field)).toEqual(['description', 'location']);
  });
});

describe('DELETE /api/organizations/{name}', () => {
  it('its organization admin deletes an empty organization: 200, deleted alert, gone with its roles, revision DEL', async () => {
    const org = await post('/api/organizations', orgBody());
    const orgAdmin = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: org.name });
    const res = await mp.call('DELETE', `/api/organizations/${org.name}`, { bearer: orgAdmin.token });
    expect(res.status).toBe(200);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.organization.deleted');
    expect(res.headers['x-managementportalapp-params']).toBe(org.name);
    expect((await mp.call('GET', `/api/organizations/${org.name}`, { bearer: admin })).status).toBe(404);
    expect(await db().select().from(roles).where(eq(roles.organizationId, org.id))).toEqual([]);
    const [change] = await db().select().from(revisionChanges)
      .where(and(eq(revisionChanges.entityType, 'organization'), eq(revisionChanges.entityId, org.id), eq(revisionChanges.revisionType, 'DEL')));
    expect(change).toMatchObject({ entityKey: org.name, entity: { id: org.id, name: org.name, projects: [] } });
  });

  it('refuses an organization that still has projects: 400 error.organizationNotEmpty; nothing deleted', async () => {
    const res = await mp.call('DELETE', `/api/organizations/${other.name}`, { bearer: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error.organizationNotEmpty', description: `Organization ${other.name} still has 1 project(s)`, fieldErrors: null });
    expect((await mp.call('GET', `/api/organizations/${other.name}/projects`, { bearer: admin })).body).toHaveLength(1);
  });

  it('unknown: 404 error.organizationNameNotFound; project admins and other organizations\' admins: 403, nothing deleted', async () => {
    const unknown = await mp.call('DELETE', `/api/organizations/${unique('org')}`, { bearer: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ entityName: 'organization', errorCode: 'error.organizationNameNotFound' });
    const org = await post('/api/organizations', orgBody());
    for (const bearer of [tokens.orgAdmin, tokens.projectAdmin, tokens.otherAdmin, tokens.participant]) {
      const res = await mp.call('DELETE', `/api/organizations/${org.name}`, { bearer });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
    expect((await mp.call('GET', `/api/organizations/${org.name}`, { bearer: admin })).status).toBe(200);
  });
});
