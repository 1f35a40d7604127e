/**
 * `/api/sources` and `/api/projects/{projectName}/sources` over HTTP (managementportal.md §2.3,
 * §2.6, SourceResourceIntTest of §14): statuses, whole bodies, alert and error headers, what is
 * stored (rows and revisions). Who may do what is in test/security/permission-matrix.test.ts.
 * Projects, subjects and source types are inserted directly (their APIs are built elsewhere).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { anOrganization, aProjectIn, aSubjectIn, mainOrganization } from '../../../fixtures/management.js';
import {
  projects, revisionChanges, revisions, sources, sourceTypes,
} from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const timestamp = expect.stringMatching(radarTimestamp);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const db = () => t.app.db.db;

async function aSourceType(extra: Partial<typeof sourceTypes.$inferInsert> = {}) {
  const [row] = await db().insert(sourceTypes).values({ producer: 'RADAR', model: unique('model'), catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE', ...extra }).returning();
  return row!;
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
  main = await mainOrganization(db());
  other = await anOrganization(db());
  typeA = await aSourceType({ name: 'Type A', canRegisterDynamically: true });
  typeB = await aSourceType();
  projectA = await aProjectIn(db(), main, [typeA.id, typeB.id]);
  projectB = await aProjectIn(db(), other, [typeA.id]);
  projectC = await aProjectIn(db(), main);
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
    const subject = await aSubjectIn(db(), projectA.id);
    const source = await aSource({ projectId: projectA.id, sourceTypeId: typeA.id, subjectId: subject.id, assigned: true });
    expect(await mp.call('GET', `/api/sources/${source.sourceName}`, { bearer: admin })).toMatchObject({
      status: 200, body: { sourceName: source.sourceName, sourceId: source.sourceId, assigned: true, subjectLogin: subject.login, expectedSourceName: null },
    });
  });
});

describe('PUT /api/sources', () => {
  it('updates name, attributes, assigned and subject (MOD revision); without id it creates (201)', async () => {
    const subject = await aSubjectIn(db(), projectA.id);
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
    const subject = await aSubjectIn(db(), projectA.id);
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
    project = await aProjectIn(db(), main, [typeA.id]);
    const subject = await aSubjectIn(db(), project.id);
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
