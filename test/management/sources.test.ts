/**
 * `/api/sources` and `/api/projects/{projectName}/sources` over HTTP (managementportal.md §2.3,
 * §2.6, SourceResourceIntTest of §14): statuses, whole bodies, alert and error headers, what is
 * stored (rows and revisions), and who may do what (sys admin, organization admin, project admin of
 * the source's and of another project, participant, client credentials with and without the scope).
 * Projects, subjects and source types are inserted directly (their APIs are built elsewhere).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../helpers/management-api.js';
import {
  organizations, projects, projectSourceTypes, revisionChanges, revisions, roles, roleUsers, sources, sourceTypes, subjects, users,
} from '../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const timestamp = expect.stringMatching(radarTimestamp);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const db = () => t.app.db.db;

async function anOrganization() {
  const [row] = await db().insert(organizations).values({ name: unique('org'), description: 'd', location: 'l' }).returning();
  return row!;
}
async function aProjectIn(organizationId: number, typeIds: number[] = []) {
  const [row] = await db().insert(projects).values({ projectName: unique('project'), description: 'd', location: 'l', organizationId }).returning();
  if (typeIds.length > 0) await db().insert(projectSourceTypes).values(typeIds.map((sourceTypeId) => ({ projectId: row!.id, sourceTypeId })));
  return row!;
}
async function aSourceType(extra: Partial<typeof sourceTypes.$inferInsert> = {}) {
  const [row] = await db().insert(sourceTypes).values({ producer: 'RADAR', model: unique('model'), catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', ...extra }).returning();
  return row!;
}
/** A subject (user with ROLE_PARTICIPANT of the project). */
async function aSubject(projectId: number) {
  const login = unique('sub');
  const [user] = await db().insert(users).values({ login, activated: true }).returning();
  let [role] = await db().select().from(roles).where(and(eq(roles.projectId, projectId), eq(roles.authorityName, 'ROLE_PARTICIPANT')));
  role ??= (await db().insert(roles).values({ authorityName: 'ROLE_PARTICIPANT', projectId }).returning())[0];
  await db().insert(roleUsers).values({ userId: user!.id, roleId: role!.id });
  const [subject] = await db().insert(subjects).values({ userId: user!.id }).returning();
  return { id: subject!.id, login };
}
async function aSource(values: { projectId?: number | null; sourceTypeId: number; subjectId?: number | null; assigned?: boolean }) {
  const [row] = await db().insert(sources).values({ sourceName: unique('src'), assigned: false, ...values }).returning();
  return row!;
}
const storedSource = async (name: string) => (await db().select().from(sources).where(eq(sources.sourceName, name)))[0];
const changesOf = (entityId: number) => db().select({ revisionType: revisionChanges.revisionType, entity: revisionChanges.entity, author: revisions.author })
  .from(revisionChanges).innerJoin(revisions, eq(revisions.id, revisionChanges.revisionId))
  .where(and(eq(revisionChanges.entityType, 'source'), eq(revisionChanges.entityId, entityId))).orderBy(revisionChanges.id);

/** The full SourceTypeDTO of a type row without source data. */
const typeDto = (type: typeof sourceTypes.$inferSelect) => ({
  id: type.id, producer: type.producer, model: type.model, catalogVersion: type.catalogVersion,
  sourceTypeScope: type.sourceTypeScope, canRegisterDynamically: type.canRegisterDynamically,
});

let main: { id: number; name: string };
let other: { id: number; name: string };
let typeA: typeof sourceTypes.$inferSelect;
let typeB: typeof sourceTypes.$inferSelect;
let projectA: typeof projects.$inferSelect; // in main, types A and B
let projectB: typeof projects.$inferSelect; // in another organization, type A only
let projectC: typeof projects.$inferSelect; // in main, no types

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  main = (await db().select().from(organizations).where(eq(organizations.name, 'main')))[0]!;
  other = await anOrganization();
  typeA = await aSourceType({ name: 'Type A', canRegisterDynamically: true });
  typeB = await aSourceType();
  projectA = await aProjectIn(main.id, [typeA.id, typeB.id]);
  projectB = await aProjectIn(other.id, [typeA.id]);
  projectC = await aProjectIn(main.id);
});
afterAll(async () => { await t?.close(); });

describe('POST /api/sources', () => {
  it('creates with a generated sourceId: 201, Location, alert headers, SourceDTO, stored with an ADD revision', async () => {
    const sourceName = unique('device');
    const res = await mp.call('POST', '/api/sources', { bearer: admin, body: {
      sourceName, assigned: false, expectedSourceName: 'E4-123', attributes: { colour: 'red' },
      sourceType: { ...typeDto(typeA), name: 'whatever the client sends' }, project: { id: projectA.id, projectName: projectA.projectName },
      unknownField: 'ignored',
    } });
    expect(res.status).toBe(201);
    const expected = {
      id: expect.any(Number), sourceId: uuid, sourceName, expectedSourceName: 'E4-123', assigned: false,
      sourceType: { ...typeDto(typeA), name: 'Type A' }, subjectLogin: null,
      project: { id: projectA.id, projectName: projectA.projectName }, attributes: { colour: 'red' },
    };
    expect(res.body).toEqual(expected);
    expect(res.headers.location).toBe(`/api/sources/${sourceName}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.created');
    expect(res.headers['x-managementportalapp-params']).toBe(sourceName);
    const row = await storedSource(sourceName);
    expect(row).toMatchObject({ id: res.body.id, sourceId: res.body.sourceId, projectId: projectA.id, sourceTypeId: typeA.id, assigned: false, createdBy: 'admin', lastModifiedBy: 'admin' });
    expect(await changesOf(row!.id)).toEqual([{ revisionType: 'ADD', entity: res.body, author: 'admin' }]);
    // GET returns the same DTO.
    expect(await mp.call('GET', `/api/sources/${sourceName}`, { bearer: admin })).toMatchObject({ status: 200, body: expected });
  });

  it('finds the project by name and the type by producer, model and version; without a project it is a global source', async () => {
    const res = await mp.call('POST', '/api/sources', { bearer: admin, body: {
      sourceName: unique('device'), assigned: true, sourceType: { producer: typeB.producer, model: typeB.model, catalogVersion: typeB.catalogVersion },
      project: { projectName: projectA.projectName },
    } });
    expect(res).toMatchObject({ status: 201, body: { assigned: true, sourceType: { id: typeB.id }, project: { id: projectA.id, projectName: projectA.projectName }, attributes: {} } });
    const global = await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName: unique('device'), assigned: false, sourceType: { id: typeB.id } } });
    expect(global.status).toBe(201);
    expect(global.body).not.toHaveProperty('project');
  });

  it('refuses a given sourceId or id, a taken name and a missing assigned: 400 body A with the failure headers, nothing stored', async () => {
    const taken = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    const base = { sourceName: unique('device'), assigned: false, sourceType: { id: typeA.id }, project: { id: projectA.id } };
    const cases: [Json, string, string, Record<string, string>][] = [
      [{ ...base, sourceId: '0b0c2b3a-1d6e-4a0e-9f59-9d5e0f3f8a10' }, 'error.sourceIdExists', 'A new source cannot already have a Source ID', {}],
      [{ ...base, id: 1 }, 'error.idexists', 'A new source cannot already have an ID', {}],
      [{ ...base, sourceName: taken.sourceName }, 'error.sourceNameExists', 'Source name already in use', { sourceName: taken.sourceName }],
      [{ ...base, assigned: undefined }, 'error.sourceAssignedRequired', "A new source must have the 'assigned' field specified", {}],
    ];
    for (const [body, errorCode, message, params] of cases) {
      const res = await mp.call('POST', '/api/sources', { bearer: admin, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message, entityName: 'source', errorCode, params: { timestamp, ...params } });
      expect(res.headers['x-managementportalapp-error']).toBe(errorCode);
      expect(res.headers['x-managementportalapp-params']).toBe('source');
    }
    expect(await storedSource(base.sourceName)).toBeUndefined();
  });

  it('bad input is 400 error.validation; an unknown type or project is 404', async () => {
    const missing = await mp.call('POST', '/api/sources', { bearer: admin, body: { assigned: false } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [
      { objectName: 'sourceDTO', field: 'sourceName', message: 'NotNull: must not be null' },
      { objectName: 'sourceDTO', field: 'sourceType', message: 'NotNull: must not be null' },
    ] });
    for (const body of [{ sourceName: 'bad/name', assigned: false, sourceType: { id: typeA.id } }, { sourceName: unique('d'), assigned: 'maybe', sourceType: { id: typeA.id } }, '{not json']) {
      const res = await mp.call('POST', '/api/sources', { bearer: admin, body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: 'error.validation' });
    }
    const sourceName = unique('device');
    expect(await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName, assigned: false, sourceType: { id: 999_999 } } })).toMatchObject({
      status: 404, body: { entityName: 'sourceType', errorCode: 'error.sourceTypeNotFound', params: { timestamp, id: '999999' } },
    });
    expect(await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName, assigned: false, sourceType: { id: typeA.id }, project: { projectName: 'no-such-project' } } })).toMatchObject({
      status: 404, body: { entityName: 'project', errorCode: 'error.projectNameNotFound', params: { timestamp, projectName: 'no-such-project' } },
    });
    expect(await storedSource(sourceName)).toBeUndefined();
  });
});

describe('GET /api/sources/{sourceName}', () => {
  it('404 error.sourceNotFound for an unknown or deleted source', async () => {
    const deleted = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    await db().update(sources).set({ deleted: true }).where(eq(sources.id, deleted.id));
    for (const name of ['no-such-source', deleted.sourceName]) {
      const res = await mp.call('GET', `/api/sources/${name}`, { bearer: admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Source not found with sourceName', entityName: 'source', errorCode: 'error.sourceNotFound', params: { timestamp, sourceName: name } });
    }
  });

  it('shows the subject login of an assigned source', async () => {
    const subject = await aSubject(projectA.id);
    const source = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id, subjectId: subject.id, assigned: true });
    expect(await mp.call('GET', `/api/sources/${source.sourceName}`, { bearer: admin })).toMatchObject({
      status: 200, body: { sourceName: source.sourceName, sourceId: source.sourceId, assigned: true, subjectLogin: subject.login, expectedSourceName: null },
    });
  });
});

describe('PUT /api/sources', () => {
  it('updates name, attributes, assigned and subject (MOD revision); without id it creates (201)', async () => {
    const subject = await aSubject(projectA.id);
    const created = await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName: unique('device'), assigned: false, sourceType: { id: typeA.id }, project: { id: projectA.id } } });
    const newName = unique('renamed');
    const res = await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...created.body, sourceName: newName, assigned: true, subjectLogin: subject.login, attributes: { a: 'b' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, sourceName: newName, assigned: true, subjectLogin: subject.login, attributes: { a: 'b' } });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.updated');
    expect(res.headers['x-managementportalapp-params']).toBe(newName);
    expect(await storedSource(newName)).toMatchObject({ id: created.body.id, subjectId: subject.id, assigned: true });
    expect((await changesOf(created.body.id)).map((c) => [c.revisionType, c.entity.assigned])).toEqual([['ADD', false], ['MOD', true]]);

    const createdByPut = await mp.call('PUT', '/api/sources', { bearer: admin, body: { sourceName: unique('device'), assigned: false, sourceType: { id: typeA.id } } });
    expect(createdByPut.status).toBe(201);
    expect(createdByPut.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.created');
  });

  it('moving an assigned source is 403 error.sourceIsAssigned; to a project without its type 403 error.invalidTransfer; otherwise the type is kept', async () => {
    const subject = await aSubject(projectA.id);
    const assigned = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id, subjectId: subject.id, assigned: true });
    const move = (source: typeof assigned, project: Json, sourceType: Json = { id: source.sourceTypeId }) => mp.call('PUT', '/api/sources', {
      bearer: admin, body: { id: source.id, sourceName: source.sourceName, assigned: source.assigned, sourceType, project },
    });
    const isAssigned = await move(assigned, { id: projectB.id });
    expect(isAssigned.status).toBe(403);
    expect(isAssigned.body).toEqual({ message: 'Cannot transfer an assigned source', entityName: 'source', errorCode: 'error.sourceIsAssigned', params: { timestamp } });
    expect(isAssigned.headers['x-managementportalapp-error']).toBe('error.sourceIsAssigned');

    const free = await aSource({ projectId: projectA.id, sourceTypeId: typeB.id });
    for (const target of [{ id: projectB.id }, { id: projectC.id }, null]) {
      const res = await move(free, target);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: "Cannot transfer a source to a project which doesn't have compatible source-type", entityName: 'source', errorCode: 'error.invalidTransfer', params: { timestamp } });
    }
    expect(await storedSource(free.sourceName)).toMatchObject({ projectId: projectA.id });

    const movable = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    const moved = await move(movable, { id: projectB.id }, { id: typeB.id });
    expect(moved).toMatchObject({ status: 200, body: { project: { id: projectB.id, projectName: projectB.projectName }, sourceType: { id: typeA.id } } });
  });

  it('unknown source, subject or type: 404; a taken name: 400; missing assigned: 400 error.validation', async () => {
    const source = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    const body = { id: source.id, sourceName: source.sourceName, assigned: false, sourceType: { id: typeA.id }, project: { id: projectA.id } };
    expect(await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...body, id: 999_999 } })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceNotFound', params: { id: '999999' } } });
    expect(await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...body, subjectLogin: 'nobody' } })).toMatchObject({ status: 404, body: { entityName: 'subject', errorCode: 'error.subjectNotFound' } });
    expect(await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...body, sourceType: { id: 999_999 } } })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceTypeNotFound' } });
    const other = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    expect(await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...body, sourceName: other.sourceName } })).toMatchObject({ status: 400, body: { errorCode: 'error.sourceNameExists' } });
    expect(await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...body, assigned: null } })).toMatchObject({
      status: 400, body: { message: 'error.validation', fieldErrors: [{ objectName: 'sourceDTO', field: 'assigned', message: 'NotNull: must not be null' }] },
    });
    expect(await storedSource(source.sourceName)).toMatchObject({ id: source.id, lastModifiedBy: null });
  });
});

describe('DELETE /api/sources/{sourceName}', () => {
  it('deletes a never-assigned source (200, alert, DEL revision); assigned → 400; once assigned → 409; unknown → 404', async () => {
    const fresh = await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName: unique('device'), assigned: false, sourceType: { id: typeA.id }, project: { id: projectA.id } } });
    const deleted = await mp.call('DELETE', `/api/sources/${fresh.body.sourceName}`, { bearer: admin });
    expect(deleted).toMatchObject({ status: 200, body: undefined });
    expect(deleted.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.deleted');
    expect(deleted.headers['x-managementportalapp-params']).toBe(fresh.body.sourceName);
    expect(await storedSource(fresh.body.sourceName)).toBeUndefined();
    expect((await changesOf(fresh.body.id)).map((c) => c.revisionType)).toEqual(['ADD', 'DEL']);

    const assigned = await mp.call('POST', '/api/sources', { bearer: admin, body: { sourceName: unique('device'), assigned: true, sourceType: { id: typeA.id }, project: { id: projectA.id } } });
    const isAssigned = await mp.call('DELETE', `/api/sources/${assigned.body.sourceName}`, { bearer: admin });
    expect(isAssigned.status).toBe(400);
    expect(isAssigned.body).toEqual({ message: 'Cannot delete an assigned source', entityName: 'source', errorCode: 'error.sourceIsAssigned', params: { timestamp, sourceName: assigned.body.sourceName } });
    expect(isAssigned.headers['x-managementportalapp-error']).toBe('error.sourceIsAssigned');

    await mp.call('PUT', '/api/sources', { bearer: admin, body: { ...assigned.body, assigned: false } });
    const wasAssigned = await mp.call('DELETE', `/api/sources/${assigned.body.sourceName}`, { bearer: admin });
    expect(wasAssigned.status).toBe(409);
    expect(wasAssigned.body).toEqual({ message: 'Cannot delete a previously assigned source', entityName: 'source', errorCode: 'error.sourceRevisionIsAssigned', params: { timestamp, sourceName: assigned.body.sourceName } });
    expect(await storedSource(assigned.body.sourceName)).toBeDefined();

    expect(await mp.call('DELETE', '/api/sources/no-such-source', { bearer: admin })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceNotFound' } });
  });
});

describe('GET /api/projects/{projectName}/sources', () => {
  let project: typeof projects.$inferSelect;
  let free: typeof sources.$inferSelect;
  let taken: typeof sources.$inferSelect;
  let subjectLogin: string;
  beforeAll(async () => {
    project = await aProjectIn(main.id, [typeA.id]);
    const subject = await aSubject(project.id);
    subjectLogin = subject.login;
    free = await aSource({ projectId: project.id, sourceTypeId: typeA.id });
    taken = await aSource({ projectId: project.id, sourceTypeId: typeA.id, subjectId: subject.id, assigned: true });
    const gone = await aSource({ projectId: project.id, sourceTypeId: typeA.id });
    await db().update(sources).set({ deleted: true }).where(eq(sources.id, gone.id));
    await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
  });
  const full = (s: typeof sources.$inferSelect, login: string | null) => ({
    id: s.id, sourceId: s.sourceId, sourceName: s.sourceName, expectedSourceName: null, assigned: s.assigned,
    sourceType: { ...typeDto(typeA), name: 'Type A' }, subjectLogin: login, attributes: {},
  });

  it('pages SourceDTOs without project (X-Total-Count, Link), default size 20', async () => {
    const res = await mp.call('GET', `/api/projects/${project.projectName}/sources`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([full(free, null), full(taken, subjectLogin)]);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers.link).toContain('size=20');
    const sorted = await mp.call('GET', `/api/projects/${project.projectName}/sources?page=0&size=1&sort=id,desc`, { bearer: admin });
    expect(sorted.body).toEqual([full(taken, subjectLogin)]);
    expect(sorted.headers.link).toContain('rel="next"');
    expect((await mp.call('GET', `/api/projects/${project.projectName}/sources?sort=colour,asc`, { bearer: admin })).status).toBe(400);
  });

  it('assigned=… lists all (un)assigned sources unpaged; minimized gives MinimalSourceDetailsDTOs', async () => {
    const unassigned = await mp.call('GET', `/api/projects/${project.projectName}/sources?assigned=false`, { bearer: admin });
    expect(unassigned.body).toEqual([full(free, null)]);
    expect(unassigned.headers['x-total-count']).toBeUndefined();
    const minimal = await mp.call('GET', `/api/projects/${project.projectName}/sources?assigned=true&minimized=true`, { bearer: admin });
    expect(minimal.body).toEqual([{
      id: taken.id, sourceTypeId: typeA.id, sourceTypeProducer: typeA.producer, sourceTypeModel: typeA.model, sourceTypeCatalogVersion: typeA.catalogVersion,
      expectedSourceName: null, sourceId: taken.sourceId, sourceName: taken.sourceName, assigned: true, attributes: {},
    }]);
    const minimalPaged = await mp.call('GET', `/api/projects/${project.projectName}/sources?minimized=true`, { bearer: admin });
    expect(minimalPaged.body.map((s: Json) => s.sourceName)).toEqual([free.sourceName, taken.sourceName]);
    expect(minimalPaged.headers['x-total-count']).toBe('2');
  });

  it('404 error.projectNameNotFound for an unknown project', async () => {
    expect(await mp.call('GET', '/api/projects/no-such-project/sources', { bearer: admin })).toMatchObject({
      status: 404, body: { message: 'Project not found with projectName', entityName: 'project', errorCode: 'error.projectNameNotFound', params: { timestamp, projectName: 'no-such-project' } },
    });
  });
});

describe('permissions', () => {
  let sourceA: typeof sources.$inferSelect;
  let sourceB: typeof sources.$inferSelect;
  let tokens: Record<'orgAdmin' | 'projectAdmin' | 'otherProjectAdmin' | 'participant' | 'clientRead' | 'clientWrite' | 'clientNone', string>;
  beforeAll(async () => {
    sourceA = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    sourceB = await aSource({ projectId: projectB.id, sourceTypeId: typeA.id });
    tokens = {
      orgAdmin: (await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' })).token,
      projectAdmin: (await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: projectA.projectName })).token,
      otherProjectAdmin: (await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: projectB.projectName })).token,
      participant: (await mp.userWithRole('ROLE_PARTICIPANT', { project: projectA.projectName })).token,
      clientRead: await mp.clientCredentials(['SOURCE.READ'], admin),
      clientWrite: await mp.clientCredentials(['SOURCE.CREATE', 'SOURCE.UPDATE', 'SOURCE.DELETE'], admin),
      clientNone: await mp.clientCredentials(['SUBJECT.READ'], admin),
    };
  });
  const denied = { message: 'error.accessDenied', description: expect.any(String), fieldErrors: null };
  const names = (body: Json) => (body as Json[]).map((s) => s.sourceName);

  it('GET /api/sources lists the sources of the projects the caller may see', async () => {
    const all = await mp.call('GET', '/api/sources', { bearer: admin });
    expect(all.status).toBe(200);
    expect(names(all.body)).toEqual(expect.arrayContaining([sourceA.sourceName, sourceB.sourceName]));
    expect(Number(all.headers['x-total-count'])).toBe(all.body.length);
    const seenBy = async (token: string) => names((await mp.call('GET', '/api/sources?size=2000', { bearer: token })).body);
    expect(await seenBy(tokens.projectAdmin)).toContain(sourceA.sourceName);
    expect(await seenBy(tokens.projectAdmin)).not.toContain(sourceB.sourceName);
    expect((await mp.call('GET', '/api/sources', { bearer: tokens.projectAdmin })).body.every((s: Json) => s.project?.projectName === projectA.projectName)).toBe(true);
    expect(await seenBy(tokens.orgAdmin)).toContain(sourceA.sourceName);
    expect(await seenBy(tokens.orgAdmin)).not.toContain(sourceB.sourceName);
    expect(await seenBy(tokens.otherProjectAdmin)).toEqual(expect.arrayContaining([sourceB.sourceName]));
    expect(await seenBy(tokens.otherProjectAdmin)).not.toContain(sourceA.sourceName);
    expect(await seenBy(tokens.clientRead)).toEqual(expect.arrayContaining([sourceA.sourceName, sourceB.sourceName]));
    expect(await mp.call('GET', '/api/sources', { bearer: tokens.participant })).toMatchObject({ status: 403, body: denied });
    expect(await mp.call('GET', '/api/sources', { bearer: tokens.clientNone })).toMatchObject({ status: 403, body: denied });
  });

  it('reading one source and a project\'s sources follows the source\'s project', async () => {
    const get = async (token: string, source = sourceA) => (await mp.call('GET', `/api/sources/${source.sourceName}`, { bearer: token })).status;
    expect(await get(tokens.projectAdmin)).toBe(200);
    expect(await get(tokens.orgAdmin)).toBe(200);
    expect(await get(tokens.clientRead)).toBe(200);
    expect(await get(tokens.otherProjectAdmin)).toBe(403);
    expect(await get(tokens.orgAdmin, sourceB)).toBe(403);
    expect(await get(tokens.participant)).toBe(403);
    expect(await get(tokens.clientNone)).toBe(403);
    const list = async (token: string, project = projectA) => (await mp.call('GET', `/api/projects/${project.projectName}/sources`, { bearer: token })).status;
    expect(await list(tokens.projectAdmin)).toBe(200);
    expect(await list(tokens.orgAdmin)).toBe(200);
    expect(await list(tokens.clientRead)).toBe(200);
    expect(await list(tokens.otherProjectAdmin)).toBe(403);
    expect(await list(tokens.orgAdmin, projectB)).toBe(403);
    expect(await list(tokens.participant)).toBe(403);
    // An unknown project is no 404 for those who could not read it anyway.
    expect((await mp.call('GET', '/api/projects/no-such-project/sources', { bearer: tokens.projectAdmin })).status).toBe(403);
  });

  it('creating needs SOURCE.CREATE on the project; without a project it is global', async () => {
    const create = async (token: string, project: Json) => (await mp.call('POST', '/api/sources', {
      bearer: token, body: { sourceName: unique('device'), assigned: false, sourceType: { id: typeA.id }, ...(project ? { project } : {}) },
    }));
    expect((await create(tokens.projectAdmin, { id: projectA.id })).status).toBe(201);
    expect((await create(tokens.orgAdmin, { projectName: projectA.projectName })).status).toBe(201);
    expect((await create(tokens.clientWrite, null)).status).toBe(201);
    const refused = await create(tokens.projectAdmin, { id: projectB.id });
    expect(refused).toMatchObject({ status: 403, body: denied });
    expect((await create(tokens.orgAdmin, { id: projectB.id })).status).toBe(403);
    expect((await create(tokens.projectAdmin, null)).status).toBe(403);
    expect((await create(tokens.projectAdmin, { projectName: 'no-such-project' })).status).toBe(403);
    expect((await create(tokens.participant, { id: projectA.id })).status).toBe(403);
    expect((await create(tokens.clientRead, { id: projectA.id })).status).toBe(403);
  });

  it('updating needs SOURCE.UPDATE on the source and on the target project; deleting SOURCE.DELETE on the source', async () => {
    const source = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    const body = { id: source.id, sourceName: source.sourceName, assigned: false, sourceType: { id: typeA.id } };
    expect((await mp.call('PUT', '/api/sources', { bearer: tokens.otherProjectAdmin, body: { ...body, project: { id: projectA.id } } })).status).toBe(403);
    expect((await mp.call('PUT', '/api/sources', { bearer: tokens.participant, body: { ...body, project: { id: projectA.id } } })).status).toBe(403);
    // Project admin of A may not move the source into B, where it has no rights.
    expect((await mp.call('PUT', '/api/sources', { bearer: tokens.projectAdmin, body: { ...body, project: { id: projectB.id } } })).status).toBe(403);
    // Nor assign it to a subject of another project.
    const foreignSubject = await aSubject(projectB.id);
    expect((await mp.call('PUT', '/api/sources', { bearer: tokens.projectAdmin, body: { ...body, project: { id: projectA.id }, subjectLogin: foreignSubject.login } })).status).toBe(403);
    expect(await storedSource(source.sourceName)).toMatchObject({ projectId: projectA.id, subjectId: null });
    expect(await mp.call('PUT', '/api/sources', { bearer: tokens.projectAdmin, body: { ...body, project: { id: projectA.id }, attributes: { by: 'padmin' } } }))
      .toMatchObject({ status: 200, body: { attributes: { by: 'padmin' } } });
    expect((await mp.call('PUT', '/api/sources', { bearer: tokens.clientWrite, body: { ...body, project: { id: projectA.id } } })).status).toBe(200);

    expect((await mp.call('DELETE', `/api/sources/${source.sourceName}`, { bearer: tokens.otherProjectAdmin })).status).toBe(403);
    expect((await mp.call('DELETE', `/api/sources/${source.sourceName}`, { bearer: tokens.participant })).status).toBe(403);
    expect((await mp.call('DELETE', `/api/sources/${source.sourceName}`, { bearer: tokens.clientRead })).status).toBe(403);
    expect(await storedSource(source.sourceName)).toBeDefined();
    expect((await mp.call('DELETE', `/api/sources/${source.sourceName}`, { bearer: tokens.projectAdmin })).status).toBe(200);
    const another = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id });
    expect((await mp.call('DELETE', `/api/sources/${another.sourceName}`, { bearer: tokens.clientWrite })).status).toBe(200);
  });

  it('no token is 401', async () => {
    expect((await mp.call('GET', '/api/sources')).status).toBe(401);
    expect((await mp.call('POST', '/api/sources', { body: {} })).status).toBe(401);
  });
});
