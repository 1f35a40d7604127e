/**
 * `/api/source-data` over HTTP (managementportal.md §2.7, SourceDataResourceIntTest of §14 incl.
 * `allSourceDataWithPagination`): statuses, whole bodies, alert and error headers, what is stored,
 * the source type's revision, and a client's changes. Who may read (SOURCEDATA.READ holders) and
 * change (global only) is in test/security/permission-matrix.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { revisionChanges, sourceData, sourceTypes } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let type: typeof sourceTypes.$inferSelect;
const timestamp = expect.stringMatching(radarTimestamp);
const db = () => t.app.db.db;

/** SourceDataResourceIntTest's entity, with a unique name. */
const anInput = (extra: Json = {}) => ({
  sourceDataType: 'AAAAAAAAAA', sourceDataName: unique('AAAAAAAAAAAAA'), processingState: 'RAW', keySchema: 'AAAAAAAAAAC',
  valueSchema: 'AAAAAAAAAAA', topic: 'AAAAAAAAAAAAAAA', unit: 'AAAAAAAAAAAAAAC', frequency: 'AAAAAAAAAAAA', ...extra,
});
const dto = (input: Json) => ({
  id: expect.any(Number), sourceDataType: input.sourceDataType ?? input.topic, sourceDataName: input.sourceDataName,
  frequency: input.frequency ?? null, unit: input.unit ?? null, processingState: input.processingState ?? null, dataClass: input.dataClass ?? null,
  keySchema: input.keySchema ?? null, valueSchema: input.valueSchema ?? null, topic: input.topic ?? null, provider: input.provider ?? null, enabled: input.enabled ?? true,
});
const stored = async (name: string) => (await db().select().from(sourceData).where(eq(sourceData.sourceDataName, name)))[0];
const dataCount = async () => (await db().select({ n: count() }).from(sourceData))[0]!.n;
const typeChanges = (typeId: number) => db().select({ revisionType: revisionChanges.revisionType, entity: revisionChanges.entity })
  .from(revisionChanges).where(and(eq(revisionChanges.entityType, 'sourceType'), eq(revisionChanges.entityId, typeId))).orderBy(revisionChanges.id);

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  type = (await db().insert(sourceTypes).values({ producer: 'RADAR', model: unique('model'), catalogVersion: '1.0.0', sourceTypeScope: 'PASSIVE' }).returning())[0]!;
});
afterAll(async () => { await t?.close(); });

describe('POST /api/source-data', () => {
  it('creates: 201, Location, alert headers, SourceDataDTO (no sourceType when unlinked), stored', async () => {
    const input = anInput();
    const res = await mp.call('POST', '/api/source-data', { bearer: admin, body: input });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(dto(input));
    expect(res.headers.location).toBe(`/api/source-data/${input.sourceDataName}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceData.created');
    expect(res.headers['x-managementportalapp-params']).toBe(input.sourceDataName);
    expect(await stored(input.sourceDataName)).toMatchObject({ id: res.body.id, sourceDataType: 'AAAAAAAAAA', topic: 'AAAAAAAAAAAAAAA', unit: 'AAAAAAAAAAAAAAC', sourceTypeId: null, createdBy: 'admin' });
  });

  it('linked to a source type: the DTO names it and the type records a MOD revision with the new topic', async () => {
    const input = anInput({ sourceType: { id: type.id, producer: 'ignored' } });
    const res = await mp.call('POST', '/api/source-data', { bearer: admin, body: input });
    expect(res.body).toEqual({ ...dto(input), sourceType: { id: type.id, model: type.model, producer: type.producer, catalogVersion: type.catalogVersion } });
    const [change] = (await typeChanges(type.id)).slice(-1);
    expect(change).toMatchObject({ revisionType: 'MOD', entity: { id: type.id, sourceData: expect.arrayContaining([expect.objectContaining({ sourceDataName: input.sourceDataName })]) } });
    expect(await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput({ sourceType: { id: 999_999 } }) })).toMatchObject({ status: 404, body: { errorCode: 'error.sourceTypeNotFound' } });
  });

  it('checkSourceDataTypeIsNotRequired: without a type the topic is the type; without both: 400 error.validation', async () => {
    const input = anInput({ sourceDataType: undefined });
    const res = await mp.call('POST', '/api/source-data', { bearer: admin, body: input });
    expect(res.status).toBe(201);
    expect(res.body.sourceDataType).toBe(input.topic);
    const before = await dataCount();
    const neither = await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput({ sourceDataType: null, topic: null }) });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'sourceDataDTO', field: 'sourceDataType', message: 'NotNull: Source Data must contain a type or a topic' }] });
    const noName = await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput({ sourceDataName: undefined }) });
    expect(noName.body.fieldErrors).toEqual([{ objectName: 'sourceDataDTO', field: 'sourceDataName', message: 'NotNull: must not be null' }]);
    expect((await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput({ sourceDataName: 'bad/name' }) })).status).toBe(400);
    expect(await dataCount()).toBe(before);
  });

  it('an id is 400 error.idexists; a used name is 409 error.sourceDataNameAvailable', async () => {
    const input = anInput();
    const withId = await mp.call('POST', '/api/source-data', { bearer: admin, body: { ...input, id: 1 } });
    expect(withId.status).toBe(400);
    expect(withId.body).toEqual({ message: 'A new sourceData cannot already have an ID', entityName: 'sourceData', errorCode: 'error.idexists', params: { timestamp } });
    expect(await stored(input.sourceDataName)).toBeUndefined();
    await mp.call('POST', '/api/source-data', { bearer: admin, body: input });
    const again = await mp.call('POST', '/api/source-data', { bearer: admin, body: input });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'SourceData already available with source-name', entityName: 'sourceData', errorCode: 'error.sourceDataNameAvailable', params: { timestamp, sourceDataName: input.sourceDataName } });
    expect(again.headers['x-managementportalapp-error']).toBe('error.sourceDataNameAvailable');
  });
});

describe('GET /api/source-data', () => {
  it('allSourceDataWithPagination: page=0&size=5&sort=id,desc with X-Total-Count and Link', async () => {
    const input = anInput();
    const created = (await mp.call('POST', '/api/source-data', { bearer: admin, body: input })).body;
    const res = await mp.call('GET', '/api/source-data?page=0&size=5&sort=id,desc', { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual(created); // the newest first
    expect(res.body.length).toBeLessThanOrEqual(5);
    expect(res.headers['x-total-count']).toBe(String(await dataCount()));
    expect(res.headers.link).toMatch(/page=0&size=5>; rel="first"/);
    const all = await mp.call('GET', '/api/source-data?sort=id,desc', { bearer: admin });
    expect(all.body).toContainEqual(created);
    expect(all.body).toHaveLength(await dataCount());
    expect((await mp.call('GET', '/api/source-data?sort=nope', { bearer: admin })).status).toBe(400);
  });

  it('one by name, or 404', async () => {
    const created = (await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput() })).body;
    expect(await mp.call('GET', `/api/source-data/${created.sourceDataName}`, { bearer: admin })).toMatchObject({ status: 200, body: created });
    const missing = await mp.call('GET', '/api/source-data/AAAAAAAAAAAAAAAAAAAAAAAAAA', { bearer: admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'SourceData not found', entityName: 'sourceData', errorCode: 'error.entityNotFound', params: { timestamp, sourceDataName: 'AAAAAAAAAAAAAAAAAAAAAAAAAA' } });
  });
});

describe('PUT and DELETE /api/source-data', () => {
  it('updates every field (200, alert); without id creates (201); unknown id 404; a used name 409', async () => {
    const created = (await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput() })).body;
    const updated = {
      id: created.id, sourceDataType: 'BBBBBBBBBB', sourceDataName: unique('BBBBBBBBBBAAA'), processingState: 'DERIVED', keySchema: 'BBBBBBBBBBC',
      valueSchema: 'BBBBBBBBBBB', topic: 'BBBBBBBBBBBBBBB', unit: 'BBBBBBBBBBBBBBC', frequency: 'BBBBBBBBBBBB',
    };
    const before = await dataCount();
    const res = await mp.call('PUT', '/api/source-data', { bearer: admin, body: updated });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...dto(updated), id: created.id });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceData.updated');
    expect(await stored(updated.sourceDataName)).toMatchObject({ id: created.id, processingState: 'DERIVED', lastModifiedBy: 'admin' });
    expect(await stored(created.sourceDataName)).toBeUndefined();
    expect(await dataCount()).toBe(before);

    const byPut = await mp.call('PUT', '/api/source-data', { bearer: admin, body: anInput() });
    expect(byPut.status).toBe(201);
    expect(await dataCount()).toBe(before + 1);
    expect(await mp.call('PUT', '/api/source-data', { bearer: admin, body: anInput({ id: 999_999 }) })).toMatchObject({ status: 404, body: { errorCode: 'error.entityNotFound', params: { id: '999999' } } });
    expect(await mp.call('PUT', '/api/source-data', { bearer: admin, body: { ...updated, sourceDataName: byPut.body.sourceDataName } })).toMatchObject({ status: 409, body: { errorCode: 'error.sourceDataNameAvailable' } });
  });

  it('moving source data between types records both types; delete 200 then 404', async () => {
    const [other] = await db().insert(sourceTypes).values({ producer: 'RADAR', model: unique('model'), catalogVersion: '1.0.0', sourceTypeScope: 'ACTIVE' }).returning();
    const created = (await mp.call('POST', '/api/source-data', { bearer: admin, body: anInput({ sourceType: { id: type.id } }) })).body;
    const [typeBefore, otherBefore] = [(await typeChanges(type.id)).length, (await typeChanges(other!.id)).length];
    await mp.call('PUT', '/api/source-data', { bearer: admin, body: { ...created, sourceType: { id: other!.id } } });
    expect((await typeChanges(type.id)).length).toBe(typeBefore + 1);
    expect((await typeChanges(other!.id)).slice(-1)[0]!.entity).toMatchObject({ sourceData: [expect.objectContaining({ id: created.id })] });
    expect(otherBefore).toBe(0);

    const res = await mp.call('DELETE', `/api/source-data/${created.sourceDataName}`, { bearer: admin });
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.sourceData.deleted');
    expect(res.headers['x-managementportalapp-params']).toBe(created.sourceDataName);
    expect(await stored(created.sourceDataName)).toBeUndefined();
    expect((await typeChanges(other!.id)).slice(-1)[0]!.entity).not.toHaveProperty('sourceData');
    expect(await mp.call('DELETE', `/api/source-data/${created.sourceDataName}`, { bearer: admin })).toMatchObject({ status: 404, body: { errorCode: 'error.entityNotFound' } });
  });
});

describe('changes by a client', () => {
  // Who may change source data is in test/security/permission-matrix.test.ts.
  it('are stored with the client as their author', async () => {
    const client = await mp.clientCredentials(['SOURCEDATA.CREATE', 'SOURCEDATA.UPDATE', 'SOURCEDATA.DELETE'], admin);
    const byClient = await mp.call('POST', '/api/source-data', { bearer: client, body: anInput() });
    expect(byClient.status).toBe(201);
    expect((await stored(byClient.body.sourceDataName))!.createdBy).toMatch(/^client-/);
  });
});
