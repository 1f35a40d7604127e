/**
 * `/api/projects` (managementportal.md §2.3, §14 ProjectResourceIntTest): create, update, list,
 * read, delete, source types and roles of a project, with whole bodies, alert headers, what is
 * stored (rows and revisions), and who may and who may not: system admin, organization admin of
 * `main`, project admin of the project, project admin of a project in another organization,
 * participant, client credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { projects, projectSourceTypes, revisionChanges, revisions, sources, sourceTypes, sourceData } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
/** Project `P` in `main` with its admin, and `Q` in another organization with its admin. */
let P: Json;
let Q: Json;
let otherOrg: string;
const tokens: Record<'orgAdmin' | 'projectAdmin' | 'otherAdmin' | 'participant' | 'client' | 'clientNoRead', string> = {} as never;
let armt: { id: number };

const timestamp = expect.stringMatching(radarTimestamp);
const accessDenied = { message: 'error.accessDenied', description: expect.stringContaining('does not have permission'), fieldErrors: null };
const db = () => t.app.db.db;

async function createProject(body: Json, bearer = admin) {
  const res = await mp.call('POST', '/api/projects', { bearer, body });
  if (res.status !== 201) throw new Error(`project not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const projectBody = (over: Json = {}) => ({ projectName: unique('project'), description: 'A study', location: 'London', organizationName: 'main', ...over });

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  otherOrg = unique('org');
  expect((await mp.call('POST', '/api/organizations', { bearer: admin, body: { name: otherOrg, description: 'Other', location: 'Elsewhere' } })).status).toBe(201);
  const [type] = await db().insert(sourceTypes).values({
    producer: 'RADAR', model: unique('aRMT-App'), catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true,
    name: 'RADAR_aRMT', description: 'questionnaires', appProvider: 'org.radarcns.application', assessmentType: 'questionnaire',
  }).returning();
  await db().insert(sourceData).values({ sourceDataType: 'RADAR_QUESTIONNAIRE', sourceDataName: unique('data'), sourceTypeId: type!.id });
  armt = type!;
  P = await createProject(projectBody({ sourceTypes: [{ id: armt.id }] }));
  Q = await createProject(projectBody({ organizationName: otherOrg }));
  Object.assign(tokens, await mp.principals(P, Q, ['PROJECT.READ', 'PROJECT.CREATE', 'PROJECT.UPDATE', 'ROLE.READ'], admin));
});
afterAll(async () => { await t.close(); });

describe('POST /api/projects', () => {
  it('creates a project: 201, Location, alert headers, the full DTO, stored with its author and a revision', async () => {
    const name = unique('project');
    const res = await mp.call('POST', '/api/projects', {
      bearer: admin,
      body: {
        projectName: name, humanReadableProjectName: 'My Study', description: 'A study', location: 'London', organizationName: 'main',
        startDate: '1970-01-01T00:00:00Z', endDate: '2030-06-01T12:00:00+02:00', projectStatus: 'PLANNING',
        attributes: { 'Privacy-policy-url': 'https://example.org/privacy', 'Work-package': 'WP1' }, sourceTypes: [{ id: armt.id }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/projects/${name}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.project.created');
    expect(res.headers['x-managementportalapp-params']).toBe(name);
    const main = (await mp.call('GET', '/api/organizations/main', { bearer: admin })).body;
    expect(res.body).toEqual({
      id: expect.any(Number), projectName: name, humanReadableProjectName: 'My Study', description: 'A study',
      organization: { id: main.id, name: 'main', description: main.description, location: main.location, projects: [] },
      organizationName: 'main', location: 'London', startDate: '1970-01-01T00:00:00.000Z', projectStatus: 'PLANNING',
      endDate: '2030-06-01T10:00:00.000Z',
      sourceTypes: [{ id: armt.id, producer: 'RADAR', model: expect.any(String), catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true, name: 'RADAR_aRMT' }],
      attributes: { 'Privacy-policy-url': 'https://example.org/privacy', 'Work-package': 'WP1', 'Human-readable-project-name': 'My Study' },
      persistentTokenTimeout: 31 * 86400 * 1000,
    });
    const [row] = await db().select().from(projects).where(eq(projects.projectName, name));
    expect(row).toMatchObject({ createdBy: 'admin', lastModifiedBy: 'admin', organizationId: main.id, projectStatus: 'PLANNING' });
    const [change] = await db().select().from(revisionChanges).innerJoin(revisions, eq(revisions.id, revisionChanges.revisionId))
      .where(and(eq(revisionChanges.entityType, 'project'), eq(revisionChanges.entityKey, name)));
    expect(change).toMatchObject({ revisions: { author: 'admin' }, revision_changes: { revisionType: 'ADD', entityId: row!.id, entity: res.body } });
  });

  it('takes what the deployment tests post: the organization object, whole source types, null dates, status by ordinal', async () => {
    const org = (await mp.call('GET', '/api/organizations/main', { bearer: admin })).body; // with its `projects`
    const type = (await mp.call('GET', `/api/projects/${P.projectName}/source-types`, { bearer: admin })).body[0];
    const name = unique('test');
    const res = await mp.call('POST', '/api/projects', {
      bearer: admin,
      body: { organization: org, projectName: name, description: 'd', location: '', sourceTypes: [{ ...type, sourceData: [{ id: 1 }] }], startDate: null, endDate: null, projectStatus: 1, groups: [{ name: 'x' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ projectName: name, organizationName: 'main', location: '', projectStatus: 'ONGOING', sourceTypes: [{ id: armt.id }] });
    expect(res.body).not.toHaveProperty('startDate');
    expect(res.body).not.toHaveProperty('groups');
    const links = await db().select().from(projectSourceTypes).where(eq(projectSourceTypes.projectId, res.body.id));
    expect(links).toEqual([{ projectId: res.body.id, sourceTypeId: armt.id }]);
  });

  it('required fields: 400 error.validation with a field error for each missing one; nothing stored', async () => {
    const res = await mp.call('POST', '/api/projects', { bearer: admin, body: { organizationName: 'main' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'error.validation', description: expect.any(String),
      fieldErrors: [
        { objectName: 'projectDTO', field: 'projectName', message: 'NotNull: must not be null' },
        { objectName: 'projectDTO', field: 'description', message: 'NotNull: must not be null' },
        { objectName: 'projectDTO', field: 'location', message: 'NotNull: must not be null' },
      ],
    });
    for (const field of ['projectName', 'description', 'location']) {
      const body: Json = projectBody();
      delete body[field];
      const one = await mp.call('POST', '/api/projects', { bearer: admin, body });
      expect(one.body.fieldErrors).toEqual([{ objectName: 'projectDTO', field, message: 'NotNull: must not be null' }]);
      if (body.projectName) expect(await db().select().from(projects).where(eq(projects.projectName, body.projectName))).toEqual([]);
    }
    const badName = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ projectName: 'a/b' }) });
    expect(badName.status).toBe(400);
    expect(badName.body.fieldErrors[0]).toMatchObject({ field: 'projectName', message: expect.stringMatching(/^Pattern: /) });
    const badStatus = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ projectStatus: 'DONE' }) });
    expect(badStatus.body).toMatchObject({ message: 'error.validation', fieldErrors: [{ field: 'projectStatus' }] });
    const badDate = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ startDate: 'yesterday' }) });
    expect(badDate.status).toBe(400);
    const typeWithoutId = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ sourceTypes: [{ model: 'x' }] }) });
    expect(typeWithoutId.body.fieldErrors).toEqual([{ objectName: 'projectDTO', field: 'sourceTypes[0].id', message: 'NotNull: must not be null' }]);
  });

  it('no organization: 400 error.validation; unknown organization or source type: 404', async () => {
    const body = projectBody();
    delete (body as Json).organizationName;
    const res = await mp.call('POST', '/api/projects', { bearer: admin, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Organization must be provided', entityName: 'project', errorCode: 'error.validation', params: { timestamp } });
    const org = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ organizationName: 'nowhere' }) });
    expect(org.status).toBe(404);
    expect(org.body).toEqual({ message: 'Organization not found with name', entityName: 'organization', errorCode: 'error.organizationNameNotFound', params: { timestamp, name: 'nowhere' } });
    const type = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ sourceTypes: [{ id: 987654 }] }) });
    expect(type.status).toBe(404);
    expect(type.body).toMatchObject({ errorCode: 'error.sourceTypeNotFound', params: { id: '987654' } });
  });

  it('an existing id or name: 400 idexists / nameexists with the failure headers', async () => {
    const withId = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ id: P.id }) });
    expect(withId.status).toBe(400);
    expect(withId.body).toEqual({ message: 'A new project cannot already have an ID', entityName: 'project', errorCode: 'error.idexists', params: { timestamp } });
    expect(withId.headers['x-managementportalapp-error']).toBe('error.idexists');
    expect(withId.headers['x-managementportalapp-params']).toBe('project');
    const sameName = await mp.call('POST', '/api/projects', { bearer: admin, body: projectBody({ projectName: P.projectName }) });
    expect(sameName.status).toBe(400);
    expect(sameName.body).toMatchObject({ errorCode: 'error.nameexists', entityName: 'project' });
  });

  it('who may create: global or organization admin of the organization, clients with PROJECT.CREATE', async () => {
    expect((await mp.call('POST', '/api/projects', { bearer: tokens.orgAdmin, body: projectBody() })).status).toBe(201);
    expect((await mp.call('POST', '/api/projects', { bearer: tokens.client, body: projectBody() })).status).toBe(201);
    const denied = await mp.call('POST', '/api/projects', { bearer: tokens.orgAdmin, body: projectBody({ organizationName: otherOrg }) });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(accessDenied);
    for (const who of ['projectAdmin', 'otherAdmin', 'participant', 'clientNoRead'] as const) {
      expect((await mp.call('POST', '/api/projects', { bearer: tokens[who], body: projectBody() })).status, who).toBe(403);
    }
    expect((await mp.call('POST', '/api/projects', { body: projectBody() })).status).toBe(401);
  });
});

describe('GET /api/projects', () => {
  it('lists full DTOs with paging headers; minimized gives id and name; accepts size=2147483647', async () => {
    const res = await mp.call('GET', '/api/projects?page=0&size=2147483647', { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe(String(res.body.length));
    const p = res.body.find((x: Json) => x.id === P.id);
    expect(p).toEqual(P);
    const minimized = await mp.call('GET', '/api/projects?minimized=true', { bearer: admin });
    expect(minimized.body).toContainEqual({ id: P.id, projectName: P.projectName });
    expect(minimized.body.every((x: Json) => Object.keys(x).length === 2)).toBe(true);
  });

  it('pages and sorts: sort=id,desc, Link with next, unknown sort 400', async () => {
    const all = (await mp.call('GET', '/api/projects?sort=id,desc', { bearer: admin })).body.map((x: Json) => x.id);
    expect(all).toEqual([...all].sort((a: number, b: number) => b - a));
    const page = await mp.call('GET', '/api/projects?page=1&size=1&sort=id,asc', { bearer: admin });
    expect(page.body.map((x: Json) => x.id)).toEqual([[...all].sort((a: number, b: number) => a - b)[1]]);
    expect(page.headers.link).toContain('rel="next"');
    expect(page.headers.link).toContain('rel="prev"');
    const bad = await mp.call('GET', '/api/projects?sort=password,asc', { bearer: admin });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: 'error.validation', fieldErrors: [{ field: 'sort' }] });
  });

  it('shows each caller what it may read: all, its organization\'s, its project; participants and clients without the scope 403', async () => {
    const names = async (bearer: string) => (await mp.call('GET', '/api/projects?minimized=true', { bearer })).body.map((x: Json) => x.projectName);
    expect(await names(admin)).toEqual(expect.arrayContaining([P.projectName, Q.projectName]));
    expect(await names(tokens.client)).toEqual(expect.arrayContaining([P.projectName, Q.projectName]));
    const orgAdmin = await names(tokens.orgAdmin);
    expect(orgAdmin).toContain(P.projectName);
    expect(orgAdmin).not.toContain(Q.projectName);
    expect(await names(tokens.projectAdmin)).toEqual([P.projectName]);
    expect(await names(tokens.otherAdmin)).toEqual([Q.projectName]);
    const counted = await mp.call('GET', '/api/projects', { bearer: tokens.otherAdmin });
    expect(counted.headers['x-total-count']).toBe('1');
    for (const who of ['participant', 'clientNoRead'] as const) {
      const res = await mp.call('GET', '/api/projects', { bearer: tokens[who] });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
  });
});

describe('GET /api/projects/{projectName}', () => {
  it('returns the full DTO; unknown: 404 error.projectNameNotFound', async () => {
    const res = await mp.call('GET', `/api/projects/${P.projectName}`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(P);
    expect(res.body.organization.name).toBe('main');
    const missing = await mp.call('GET', '/api/projects/no-such-project', { bearer: admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Project not found with projectName no-such-project', entityName: 'project', errorCode: 'error.projectNameNotFound', params: { timestamp, projectName: 'no-such-project' } });
    expect(missing.headers['x-managementportalapp-error']).toBe('error.projectNameNotFound');
  });

  it('who may read it', async () => {
    for (const who of ['orgAdmin', 'projectAdmin', 'client'] as const) {
      expect((await mp.call('GET', `/api/projects/${P.projectName}`, { bearer: tokens[who] })).status, who).toBe(200);
    }
    for (const who of ['otherAdmin', 'participant', 'clientNoRead'] as const) {
      const res = await mp.call('GET', `/api/projects/${P.projectName}`, { bearer: tokens[who] });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
  });

  it('source types (reduced) and roles of a project', async () => {
    const types = await mp.call('GET', `/api/projects/${P.projectName}/source-types`, { bearer: tokens.projectAdmin });
    expect(types.status).toBe(200);
    expect(types.body).toEqual([{ id: armt.id, producer: 'RADAR', model: expect.any(String), catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true, name: 'RADAR_aRMT' }]);
    expect((await mp.call('GET', `/api/projects/${Q.projectName}/source-types`, { bearer: admin })).body).toEqual([]);
    const roles = await mp.call('GET', `/api/projects/${P.projectName}/roles`, { bearer: tokens.projectAdmin });
    expect(roles.status).toBe(200);
    expect(roles.body).toEqual(expect.arrayContaining([
      { id: expect.any(Number), projectId: P.id, projectName: P.projectName, authorityName: 'ROLE_PROJECT_ADMIN' },
      { id: expect.any(Number), projectId: P.id, projectName: P.projectName, authorityName: 'ROLE_PARTICIPANT' },
    ]));
    expect(roles.body).toHaveLength(2);
    expect((await mp.call('GET', `/api/projects/${P.projectName}/roles`, { bearer: tokens.otherAdmin })).status).toBe(403);
    expect((await mp.call('GET', `/api/projects/${P.projectName}/source-types`, { bearer: tokens.participant })).status).toBe(403);
    expect((await mp.call('GET', '/api/projects/nope/roles', { bearer: admin })).status).toBe(404);
  });
});

describe('PUT /api/projects', () => {
  const update = (p: Json, over: Json = {}) => ({
    id: p.id, projectName: p.projectName, description: p.description, location: p.location, organization: p.organization,
    attributes: p.attributes, sourceTypes: p.sourceTypes ?? [], ...over,
  });

  it('updates: 200, updated alert, stored, revision MOD; humanReadableProjectName mirrors the attribute', async () => {
    const p = await createProject(projectBody({ sourceTypes: [{ id: armt.id }] }));
    const res = await mp.call('PUT', '/api/projects', {
      bearer: tokens.orgAdmin,
      body: update(p, { description: 'Changed', projectStatus: 'ENDED', humanReadableProjectName: 'Readable', attributes: { 'Privacy-policy-url': 'https://x.org/p' }, sourceTypes: [] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.project.updated');
    expect(res.headers['x-managementportalapp-params']).toBe(p.projectName);
    const { sourceTypes: _dropped, ...rest } = p;
    expect(res.body).toEqual({
      ...rest, description: 'Changed', projectStatus: 'ENDED', humanReadableProjectName: 'Readable',
      attributes: { 'Privacy-policy-url': 'https://x.org/p', 'Human-readable-project-name': 'Readable' },
    });
    expect((await mp.call('GET', `/api/projects/${p.projectName}`, { bearer: admin })).body).toEqual(res.body);
    const [row] = await db().select().from(projects).where(eq(projects.id, p.id));
    expect(row!.lastModifiedBy).toMatch(/^user-/);
    const changes = await db().select().from(revisionChanges).where(and(eq(revisionChanges.entityType, 'project'), eq(revisionChanges.entityId, p.id)));
    expect(changes.map((c) => c.revisionType)).toEqual(['ADD', 'MOD']);
  });

  it('the name cannot change; unknown id 404; no id creates (201)', async () => {
    const renamed = await mp.call('PUT', '/api/projects', { bearer: admin, body: update(P, { projectName: unique('renamed') }) });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toEqual({ message: 'The project name cannot be modified.', entityName: 'project', errorCode: 'error.validation', params: { timestamp } });
    const unknown = await mp.call('PUT', '/api/projects', { bearer: admin, body: update(P, { id: 99999999 }) });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorCode: 'error.projectIdNotFound', params: { id: '99999999' } });
    const created = await mp.call('PUT', '/api/projects', { bearer: admin, body: projectBody() });
    expect(created.status).toBe(201);
    expect(created.headers['x-managementportalapp-alert']).toBe('managementPortalApp.project.created');
    const noOrg = await mp.call('PUT', '/api/projects', { bearer: admin, body: update(P, { organization: null }) });
    expect(noOrg.body).toMatchObject({ errorCode: 'error.validation', message: 'Organization must be provided' });
  });

  it('who may update; moving to another organization needs PROJECT.UPDATE on both', async () => {
    const p = await createProject(projectBody());
    const admins = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: p.projectName });
    expect((await mp.call('PUT', '/api/projects', { bearer: admins.token, body: update(p) })).status).toBe(200);
    expect((await mp.call('PUT', '/api/projects', { bearer: tokens.client, body: update(p) })).status).toBe(200);
    for (const who of ['otherAdmin', 'participant', 'projectAdmin'] as const) {
      const res = await mp.call('PUT', '/api/projects', { bearer: tokens[who], body: update(p) });
      expect(res.status, who).toBe(403);
    }
    const move = update(p, { organization: { name: otherOrg } });
    expect((await mp.call('PUT', '/api/projects', { bearer: tokens.orgAdmin, body: move })).status).toBe(403);
    expect((await mp.call('PUT', '/api/projects', { bearer: admins.token, body: move })).status).toBe(403);
    // An admin of the target organization cannot take a project from another organization.
    const otherOrgAdmin = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: otherOrg });
    expect((await mp.call('PUT', '/api/projects', { bearer: otherOrgAdmin.token, body: move })).status).toBe(403);
    expect((await db().select().from(projects).where(eq(projects.id, p.id)))[0]!.organizationName).toBe('main');
    const moved = await mp.call('PUT', '/api/projects', { bearer: admin, body: move });
    expect(moved.status).toBe(200);
    expect(moved.body.organizationName).toBe(otherOrg);
    expect((await mp.call('GET', `/api/projects/${p.projectName}`, { bearer: tokens.orgAdmin })).status).toBe(403);
  });
});

describe('DELETE /api/projects/{projectName}', () => {
  it('deletes: 200, alert, gone, revision DEL; unknown 404', async () => {
    const p = await createProject(projectBody({ sourceTypes: [{ id: armt.id }] }));
    expect((await mp.call('POST', `/api/projects/${p.projectName}/groups`, { bearer: admin, body: { name: 'g1' } })).status).toBe(201);
    const res = await mp.call('DELETE', `/api/projects/${p.projectName}`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.project.deleted');
    expect(res.headers['x-managementportalapp-params']).toBe(p.projectName);
    expect((await mp.call('GET', `/api/projects/${p.projectName}`, { bearer: admin })).status).toBe(404);
    const [del] = await db().select().from(revisionChanges).where(and(eq(revisionChanges.entityId, p.id), eq(revisionChanges.revisionType, 'DEL')));
    expect(del).toMatchObject({ entityType: 'project', entityKey: p.projectName, entity: { ...p, groups: [{ name: 'g1' }] } });
    expect((await mp.call('DELETE', '/api/projects/no-such-project', { bearer: admin })).status).toBe(404);
  });

  it('a project with subjects or sources: 400 ErrorVM error.projectNotEmpty, nothing deleted', async () => {
    const res = await mp.call('DELETE', `/api/projects/${P.projectName}`, { bearer: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error.projectNotEmpty', description: expect.stringContaining('1 subject(s)'), fieldErrors: null });
    expect(await db().select().from(projects).where(eq(projects.id, P.id))).toHaveLength(1);
    const p = await createProject(projectBody());
    const [type] = await db().select().from(sourceTypes).limit(1);
    await db().insert(sources).values({ sourceName: unique('source'), sourceTypeId: type!.id, projectId: p.id });
    const withSource = await mp.call('DELETE', `/api/projects/${p.projectName}`, { bearer: admin });
    expect(withSource.body).toMatchObject({ message: 'error.projectNotEmpty', description: expect.stringContaining('1 source(s)') });
  });

  it('who may delete: its project admin and organization admin, not another project\'s admin or a participant', async () => {
    const p = await createProject(projectBody());
    const own = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: p.projectName });
    for (const who of ['otherAdmin', 'participant', 'client'] as const) {
      expect((await mp.call('DELETE', `/api/projects/${p.projectName}`, { bearer: tokens[who] })).status, who).toBe(403);
    }
    expect((await mp.call('DELETE', `/api/projects/${p.projectName}`, { bearer: own.token })).status).toBe(200);
    const q = await createProject(projectBody());
    expect((await mp.call('DELETE', `/api/projects/${q.projectName}`, { bearer: tokens.orgAdmin })).status).toBe(200);
  });
});
