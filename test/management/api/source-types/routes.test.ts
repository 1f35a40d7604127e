/**
 * `/api/source-types` over HTTP (managementportal.md §2.7, SourceTypeResourceIntTest of §14 incl.
 * `idempotentPutWithoutId`): statuses, whole bodies, alert and error headers, source data saved with
 * their type, revisions, and a client's changes. Who may read (any role or client holding
 * SOURCETYPE.READ, §15.6 fixed) and change (global permission only) is in
 * test/security/permission-matrix.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { projects, projectSourceTypes, revisionChanges, sourceData, sources, sourceTypes } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const timestamp = expect.stringMatching(radarTimestamp);
const db = () => t.app.db.db;

/** A new source type as SourceTypeResourceIntTest builds it, with a unique model. */
const aType = (extra: Json = {}) => ({ producer: 'AAAAA AAAAA', model: unique('AAAAA AAAAA'), catalogVersion: 'AAAAAAAAAA', sourceTypeScope: 'ACTIVE', ...extra });
/** SourceDataResourceIntTest's entity, with a unique name. */
const aSourceData = (extra: Json = {}) => ({
  sourceDataType: 'AAAAAAAAAA', sourceDataName: unique('AAAAAAAAAAAAA'), processingState: 'RAW', keySchema: 'AAAAAAAAAAC',
  valueSchema: 'AAAAAAAAAAA', topic: 'AAAAAAAAAAAAAAA', unit: 'AAAAAAAAAAAAAAC', frequency: 'AAAAAAAAAAAA', ...extra,
});
const path = (t: Json) => `/api/source-types/${encodeURIComponent(t.producer)}/${encodeURIComponent(t.model)}/${encodeURIComponent(t.catalogVersion)}`;
const typeCount = async () => (await db().select({ n: count() }).from(sourceTypes))[0]!.n;
const dataCount = async () => (await db().select({ n: count() }).from(sourceData))[0]!.n;
const changesOf = (entityId: number) => db().select({ revisionType: revisionChanges.revisionType, entity: revisionChanges.entity })
  .from(revisionChanges).where(and(eq(revisionChanges.entityType, 'sourceType'), eq(revisionChanges.entityId, entityId))).orderBy(revisionChanges.id);

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => { await t?.close(); });

describe('POST /api/source-types', () => {
  it('creates the type with its source data: 201, Location, alert headers, SourceTypeDTO, ADD revision', async () => {
    const input = aType({ name: 'Name', appProvider: 'org.example.Provider', canRegisterDynamically: true, sourceData: [aSourceData(), aSourceData({ sourceDataType: null, enabled: false })] });
    const res = await mp.call('POST', '/api/source-types', { bearer: admin, body: input });
    expect(res.status).toBe(201);
    const data = (d: Json) => ({
      id: expect.any(Number), sourceDataType: d.sourceDataType ?? d.topic, sourceDataName: d.sourceDataName, frequency: d.frequency, unit: d.unit,
      processingState: d.processingState, dataClass: null, keySchema: d.keySchema, valueSchema: d.valueSchema, topic: d.topic, provider: null, enabled: d.enabled ?? true,
    });
    const expected = {
      id: expect.any(Number), producer: input.producer, model: input.model, catalogVersion: input.catalogVersion, sourceTypeScope: 'ACTIVE',
      canRegisterDynamically: true, name: 'Name', appProvider: 'org.example.Provider', sourceData: input.sourceData.map(data),
    };
    expect(res.body).toEqual(expected);
    expect(res.headers.location).toBe(path(input));
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceType.created');
    expect(res.headers['x-managementportalapp-params']).toBe(`${input.producer} ${input.model} ${input.catalogVersion}`);
    const stored = await db().select().from(sourceData).where(eq(sourceData.sourceTypeId, res.body.id)).orderBy(sourceData.id);
    expect(stored.map((d) => [d.sourceDataName, d.sourceDataType, d.createdBy])).toEqual([
      [input.sourceData[0].sourceDataName, 'AAAAAAAAAA', 'admin'], [input.sourceData[1].sourceDataName, 'AAAAAAAAAAAAAAA', 'admin'],
    ]);
    expect(await changesOf(res.body.id)).toEqual([{ revisionType: 'ADD', entity: res.body }]);
    expect(await mp.call('GET', path(input), { bearer: admin })).toMatchObject({ status: 200, body: expected });
  });

  it('an existing producer/model/version is 409 error.sourceTypeExists with the key in params', async () => {
    const input = aType();
    expect((await mp.call('POST', '/api/source-types', { bearer: admin, body: input })).status).toBe(201);
    const before = await typeCount();
    const res = await mp.call('POST', '/api/source-types', { bearer: admin, body: input });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: 'A SourceType with the specified producer, model and version already exists. This combination needs to be unique.',
      entityName: 'sourceType', errorCode: 'error.sourceTypeExists',
      params: { timestamp, message: 'A SourceType with the specified producer, model and version already exists. This combination needs to be unique.', producer: input.producer, model: input.model, catalogVersion: input.catalogVersion },
    });
    expect(res.headers['x-managementportalapp-error']).toBe('error.sourceTypeExists');
    expect(await typeCount()).toBe(before);
  });

  it('an id is 400 error.idexists; missing model, version or scope is 400 error.validation; nothing stored', async () => {
    const before = await typeCount();
    const withId = await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ id: 1 }) });
    expect(withId.status).toBe(400);
    expect(withId.body).toEqual({ message: 'A new sourceType cannot already have an ID', entityName: 'sourceType', errorCode: 'error.idexists', params: { timestamp } });
    const missing = await mp.call('POST', '/api/source-types', { bearer: admin, body: { producer: 'p' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: ['model', 'catalogVersion', 'sourceTypeScope'].map((field) => ({ objectName: 'sourceTypeDTO', field, message: 'NotNull: must not be null' })) });
    for (const field of ['model', 'catalogVersion', 'sourceTypeScope']) {
      expect((await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ [field]: null }) })).body.fieldErrors).toEqual([{ objectName: 'sourceTypeDTO', field, message: 'NotNull: must not be null' }]);
    }
    expect((await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ producer: 'bad/producer' }) })).status).toBe(400);
    const noTopic = await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData({ sourceDataType: null, topic: null })] }) });
    expect(noTopic.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'sourceTypeDTO', field: 'sourceData[0].sourceDataType', message: 'NotNull: Source Data must contain a type or a topic' }] });
    expect(await typeCount()).toBe(before);
  });

  it('a source-data name in use is 409 error.sourceDataNameAvailable and nothing is stored', async () => {
    const first = await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData()] }) });
    const name = first.body.sourceData[0].sourceDataName;
    const [types, data] = [await typeCount(), await dataCount()];
    for (const sourceDataList of [[aSourceData({ sourceDataName: name })], [aSourceData({ sourceDataName: 'twice-x' }), aSourceData({ sourceDataName: 'twice-x' })]]) {
      const res = await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: sourceDataList }) });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ entityName: 'sourceData', errorCode: 'error.sourceDataNameAvailable', params: { sourceDataName: sourceDataList[0]!.sourceDataName } });
    }
    expect([await typeCount(), await dataCount()]).toEqual([types, data]);
  });
});

describe('GET /api/source-types', () => {
  let created: Json;
  let sibling: Json;
  beforeAll(async () => {
    const producer = unique('producer');
    created = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ producer, model: 'M', description: 'desc', assessmentType: 'x', sourceData: [aSourceData()] }) })).body;
    sibling = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ producer, model: 'M', catalogVersion: 'v2' }) })).body;
    await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ producer, model: 'N' }) });
  });

  it('lists full DTOs, paged and sorted (allSourceTypesWithPagination)', async () => {
    const all = await mp.call('GET', '/api/source-types', { bearer: admin });
    expect(all.status).toBe(200);
    expect(all.body).toContainEqual(created);
    expect(all.headers['x-total-count']).toBe(String(all.body.length));
    const page = await mp.call('GET', '/api/source-types?page=0&size=5&sort=id,desc', { bearer: admin });
    expect(page.body.length).toBeLessThanOrEqual(5);
    expect(page.body.map((s: Json) => s.id)).toEqual([...page.body.map((s: Json) => s.id)].sort((a, b) => b - a));
    expect(page.body.map((s: Json) => s.id)).toContain(created.id);
    expect(page.headers.link).toContain('rel="first"');
    expect((await mp.call('GET', '/api/source-types?sort=secret,asc', { bearer: admin })).status).toBe(400);
  });

  it('by producer and by producer and model: reduced DTOs; by all three: the full DTO or 404', async () => {
    const reduced = (dto: Json) => {
      const { sourceData: _s, description: _d, assessmentType: _a, appProvider: _p, ...rest } = dto;
      return rest;
    };
    const byProducer = await mp.call('GET', `/api/source-types/${created.producer}`, { bearer: admin });
    expect(byProducer.body.map((s: Json) => s.model)).toEqual(['M', 'M', 'N']);
    expect(byProducer.body[0]).toEqual(reduced(created));
    expect((await mp.call('GET', `/api/source-types/${created.producer}/M`, { bearer: admin })).body).toEqual([reduced(created), reduced(sibling)]);
    expect((await mp.call('GET', '/api/source-types/nobody', { bearer: admin })).body).toEqual([]);
    expect((await mp.call('GET', path(created), { bearer: admin })).body).toEqual(created);
    const missing = await mp.call('GET', '/api/source-types/does/not/exist', { bearer: admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'SourceType not found with producer, model, version ', entityName: 'sourceType', errorCode: 'error.sourceTypeNotFound', params: { timestamp, 'producer-model-version': 'does-not-exist' } });
  });
});

describe('PUT /api/source-types', () => {
  it('updates the type (MOD revision), keeping source data when none are sent', async () => {
    const created = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData()] }) })).body;
    const updated = { ...created, producer: 'BBBBBBBBBB', model: unique('BBBBBBBBBB'), sourceTypeScope: 'PASSIVE' };
    delete updated.sourceData;
    const res = await mp.call('PUT', '/api/source-types', { bearer: admin, body: updated });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...updated, sourceData: created.sourceData });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceType.updated');
    expect((await changesOf(created.id)).map((c) => c.revisionType)).toEqual(['ADD', 'MOD']);
    expect((await db().select().from(sourceTypes).where(eq(sourceTypes.id, created.id)))[0]).toMatchObject({ producer: 'BBBBBBBBBB', sourceTypeScope: 'PASSIVE', lastModifiedBy: 'admin' });
  });

  it('sent source data replace the type\'s: kept by id and updated, new ones added, the rest removed', async () => {
    const created = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData(), aSourceData()] }) })).body;
    const [keep, drop] = created.sourceData;
    const added = aSourceData();
    const res = await mp.call('PUT', '/api/source-types', { bearer: admin, body: { ...created, sourceData: [{ ...keep, unit: 'Hz' }, added] } });
    expect(res.status).toBe(200);
    expect(res.body.sourceData).toEqual([{ ...keep, unit: 'Hz' }, expect.objectContaining({ sourceDataName: added.sourceDataName })]);
    expect(await db().select().from(sourceData).where(eq(sourceData.id, drop.id))).toEqual([]);
    // A source data of another type cannot be taken over.
    const other = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData()] }) })).body;
    const foreign = await mp.call('PUT', '/api/source-types', { bearer: admin, body: { ...created, sourceData: [other.sourceData[0]] } });
    expect(foreign).toMatchObject({ status: 400, body: { message: 'error.validation', fieldErrors: [{ objectName: 'sourceTypeDTO', field: 'sourceData[0].id', message: 'Invalid: is not a source data of this source type' }] } });
  });

  it('idempotentPutWithoutId: without id it creates (201), the same again is 409, nothing more stored', async () => {
    const [types, data] = [await typeCount(), await dataCount()];
    const input = aType({ sourceData: [aSourceData()] });
    const first = await mp.call('PUT', '/api/source-types', { bearer: admin, body: input });
    expect(first.status).toBe(201);
    expect(first.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceType.created');
    expect([await typeCount(), await dataCount()]).toEqual([types + 1, data + 1]);
    const again = await mp.call('PUT', '/api/source-types', { bearer: admin, body: input });
    expect(again).toMatchObject({ status: 409, body: { errorCode: 'error.sourceTypeExists' } });
    expect([await typeCount(), await dataCount()]).toEqual([types + 1, data + 1]);
  });

  it('an unknown id is 404; another type\'s key is 409', async () => {
    expect(await mp.call('PUT', '/api/source-types', { bearer: admin, body: aType({ id: 999_999 }) })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceTypeNotFound', params: { id: '999999' } } });
    const a = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType() })).body;
    const b = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType() })).body;
    expect(await mp.call('PUT', '/api/source-types', { bearer: admin, body: { ...b, model: a.model } })).toMatchObject({ status: 409, body: { errorCode: 'error.sourceTypeExists' } });
  });
});

describe('DELETE /api/source-types/{producer}/{model}/{version}', () => {
  it('deletes the type and its source data (200, alert, DEL revision); unknown is 404', async () => {
    const created = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType({ sourceData: [aSourceData()] }) })).body;
    const res = await mp.call('DELETE', path(created), { bearer: admin });
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceType.deleted');
    expect(res.headers['x-managementportalapp-params']).toBe(`${created.producer} ${created.model} ${created.catalogVersion}`);
    expect(await db().select().from(sourceTypes).where(eq(sourceTypes.id, created.id))).toEqual([]);
    expect(await db().select().from(sourceData).where(eq(sourceData.id, created.sourceData[0].id))).toEqual([]);
    expect((await changesOf(created.id)).map((c) => [c.revisionType, c.entity])).toEqual([['ADD', created], ['DEL', created]]);
    expect(await mp.call('DELETE', path(created), { bearer: admin })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceTypeNotFound' } });
  });

  it('a type used by projects is 403 error.sourceTypeInUse with the project names; used by a source too', async () => {
    const created = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType() })).body;
    const names = [unique('a'), unique('b')].sort();
    for (const projectName of names) {
      const [project] = await db().insert(projects).values({ projectName, description: 'd', location: 'l' }).returning();
      await db().insert(projectSourceTypes).values({ projectId: project!.id, sourceTypeId: created.id });
    }
    const res = await mp.call('DELETE', path(created), { bearer: admin });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'Cannot delete a source-type that is being used by project(s)', entityName: 'sourceType', errorCode: 'error.sourceTypeInUse', params: { timestamp, 'project-names': names.join('-') } });
    expect(res.headers['x-managementportalapp-error']).toBe('error.sourceTypeInUse');

    const used = (await mp.call('POST', '/api/source-types', { bearer: admin, body: aType() })).body;
    const [source] = await db().insert(sources).values({ sourceName: unique('src'), sourceTypeId: used.id }).returning();
    expect(await mp.call('DELETE', path(used), { bearer: admin })).toMatchObject({ status: 403, body: { errorCode: 'error.sourceTypeInUse', params: { 'source-names': source!.sourceName } } });
    expect(await db().select().from(sourceTypes).where(eq(sourceTypes.id, used.id))).toHaveLength(1);
  });
});

describe('changes by a client', () => {
  // Who may change source types is in test/security/permission-matrix.test.ts.
  it('are recorded as revisions and stored as an admin\'s are', async () => {
    const client = await mp.clientCredentials(['SOURCETYPE.CREATE', 'SOURCETYPE.UPDATE', 'SOURCETYPE.DELETE'], admin);
    const created = await mp.call('POST', '/api/source-types', { bearer: client, body: aType() });
    expect(created.status).toBe(201);
    expect((await changesOf(created.body.id))[0]).toBeDefined();
    expect((await mp.call('PUT', '/api/source-types', { bearer: client, body: { ...created.body, name: 'renamed' } })).body.name).toBe('renamed');
    expect((await mp.call('DELETE', path(created.body), { bearer: client })).status).toBe(200);
  });
});
