import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  aDataMessage, aProject, aStoredNotification, aSubject, call, errorBody, expectStatus, messagingPath, unique, type Subject,
} from '../../fixtures/appserver.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const dataPath = (s: Subject) => messagingPath(s, 'data');
const listOf = async (s: Subject) => expectStatus(await call(t.app, 'GET', dataPath(s)), 200).dataMessages as { id: number }[];
async function aStoredDataMessage(s: Subject, overrides: Record<string, unknown> = {}) {
  return expectStatus(await call(t.app, 'POST', dataPath(s), aDataMessage(overrides)), 201) as Record<string, unknown> & { id: number };
}

describe('POST {U}/messaging/data (D6)', () => {
  it('creates a data message: 201, Location, the whole DTO with epoch-second instants', async () => {
    const s = await aSubject(t.app);
    const body = aDataMessage({ priority: 'normal', mutableContent: true });
    const res = await call(t.app, 'POST', dataPath(s), body);
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/messaging/data/${dto.id}`);
    expect(res.body).toContain('"scheduledTime":1908977158.054');
    expect(dto).toEqual({
      id: expect.any(Number),
      scheduledTime: 1908977158.054,
      delivered: false,
      ttlSeconds: 3600,
      sourceId: body.sourceId,
      fcmMessageId: expect.any(String),
      fcmTopic: null,
      fcmCondition: null,
      appPackage: 'org.phidatalab.radar_armt',
      sourceType: 'aRMT',
      dataMap: { action: 'SYNC' },
      priority: 'NORMAL',
      mutableContent: true,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(Math.abs(dto.createdAt - Date.now() / 1000)).toBeLessThan(60);
    expect(expectStatus(await call(t.app, 'GET', `/messaging/data/${dto.id}`), 200)).toEqual(dto);
    expect(await listOf(s)).toEqual([dto]);
  });

  it('accepts scheduledTime as epoch seconds and keeps a client fcmMessageId', async () => {
    const s = await aSubject(t.app);
    const fcmMessageId = unique('msg');
    const dto = await aStoredDataMessage(s, { scheduledTime: 1908977158, fcmMessageId });
    expect(dto).toMatchObject({ scheduledTime: 1908977158, fcmMessageId });
    const other = await aStoredDataMessage(s);
    expect(other.fcmMessageId).not.toBe(dto.fcmMessageId);
  });

  it('answers a repeat (same sourceId, scheduledTime, ttlSeconds) with 208 and the ErrorDetails body', async () => {
    const s = await aSubject(t.app);
    const body = aDataMessage();
    const original = expectStatus(await call(t.app, 'POST', dataPath(s), body), 201);
    // Other fields do not matter, and the same instant in epoch seconds is the same time.
    const repeat = { ...body, scheduledTime: 1908977158.054, dataMap: { action: 'OTHER' }, appPackage: 'other', sourceType: 'other' };
    const res = await call(t.app, 'POST', dataPath(s), repeat);
    expect(expectStatus(res, 208)).toEqual(errorBody(208, expect.stringContaining('The Data Message Already exists'), dataPath(s)));
    expect(await listOf(s)).toEqual([original]);
    await aStoredDataMessage(s, { ...body, ttlSeconds: 60 });
    await aStoredDataMessage(s, { ...body, scheduledTime: 1908977159 });
    await aStoredDataMessage(s, { ...body, sourceId: unique('src') });
    expect(await listOf(s)).toHaveLength(4);
  });

  it.each(['sourceId', 'appPackage', 'sourceType', 'scheduledTime'])('answers 400 without %s and stores nothing', async (field) => {
    const s = await aSubject(t.app);
    const body: Record<string, unknown> = aDataMessage();
    delete body[field];
    expect(expectStatus(await call(t.app, 'POST', dataPath(s), body), 400)).toEqual(errorBody(400, expect.stringContaining(field), dataPath(s)));
    expect(await listOf(s)).toEqual([]);
  });

  it('answers 404 for an unknown project or user', async () => {
    const path = `/projects/${unique('missing')}/users/x/messaging/data`;
    expect(expectStatus(await call(t.app, 'POST', path, aDataMessage()), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', path));
    const userPath = `/projects/${await aProject(t.app)}/users/${unique('sub')}/messaging/data`;
    expect(expectStatus(await call(t.app, 'POST', userPath, aDataMessage()), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', userPath));
  });
});

describe('POST {U}/messaging/data/batch (D7)', () => {
  it('returns only the new ones: 2 new + 1 existing → 2; repeats within the batch are dropped', async () => {
    const s = await aSubject(t.app);
    const existing = aDataMessage();
    const stored = await aStoredDataMessage(s, existing);
    const fresh = [aDataMessage(), aDataMessage()];
    const res = await call(t.app, 'POST', `${dataPath(s)}/batch`, { dataMessages: [fresh[0], existing, fresh[1], { ...fresh[0] }] });
    const out = expectStatus(res, 200).dataMessages as Record<string, unknown>[];
    expect(out.map((d) => d.sourceId)).toEqual([fresh[0]!.sourceId, fresh[1]!.sourceId]);
    expect((await listOf(s)).map((d) => d.id)).toEqual([stored.id, ...out.map((d) => d.id)]);
  });

  it('refuses more than 200 with 400 and stores nothing', async () => {
    const s = await aSubject(t.app);
    const path = `${dataPath(s)}/batch`;
    const res = await call(t.app, 'POST', path, { dataMessages: Array.from({ length: 201 }, () => aDataMessage()) });
    expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), path));
    expect(await listOf(s)).toEqual([]);
  });
});

describe('PUT {U}/messaging/data (D8)', () => {
  it('changes scheduledTime and ttlSeconds', async () => {
    const s = await aSubject(t.app);
    const d = await aStoredDataMessage(s);
    const dto = expectStatus(await call(t.app, 'PUT', dataPath(s), aDataMessage({
      id: d.id, sourceId: d.sourceId, scheduledTime: '2031-01-01T00:00:00Z', ttlSeconds: 120,
    })), 200);
    expect(dto).toMatchObject({ id: d.id, scheduledTime: 1924992000, ttlSeconds: 120, createdAt: d.createdAt });
    expect(expectStatus(await call(t.app, 'GET', `/messaging/data/${d.id}`), 200)).toEqual(dto);
  });

  it('answers 417 without id and 404 for an unknown or another user\'s id', async () => {
    const s = await aSubject(t.app);
    const path = dataPath(s);
    expect(expectStatus(await call(t.app, 'PUT', path, aDataMessage()), 417))
      .toEqual(errorBody(417, 'ID must be supplied for updating the data message', path));
    expect(expectStatus(await call(t.app, 'PUT', path, aDataMessage({ id: 999999999 })), 404))
      .toEqual(errorBody(404, 'Data message does not exist. Please create first', path));
    const other = await aSubject(t.app);
    const foreign = await aStoredDataMessage(other);
    expect(expectStatus(await call(t.app, 'PUT', path, aDataMessage({ id: foreign.id, ttlSeconds: 1 })), 404))
      .toEqual(errorBody(404, 'Data message does not exist. Please create first', path));
    expect(expectStatus(await call(t.app, 'GET', `/messaging/data/${foreign.id}`), 200)).toEqual(foreign);
  });
});

describe('DELETE (D9, D10)', () => {
  it('deletes one: 200 with an empty body, then it is gone; unknown or another user\'s → 404', async () => {
    const s = await aSubject(t.app);
    const keep = await aStoredDataMessage(s);
    const gone = await aStoredDataMessage(s);
    const res = await call(t.app, 'DELETE', `${dataPath(s)}/${gone.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect((await listOf(s)).map((d) => d.id)).toEqual([keep.id]);
    expect((await call(t.app, 'GET', `/messaging/data/${gone.id}`)).statusCode).toBe(404);
    const other = await aSubject(t.app);
    const foreign = await aStoredDataMessage(other);
    for (const id of [gone.id, foreign.id]) {
      const path = `${dataPath(s)}/${id}`;
      expect(expectStatus(await call(t.app, 'DELETE', path), 404)).toEqual(errorBody(404, 'Data message with the provided ID does not exist.', path));
    }
    expect(await listOf(other)).toEqual([foreign]);
  });

  it('deletes all of the user\'s data messages, not their notifications', async () => {
    const s = await aSubject(t.app);
    await aStoredDataMessage(s);
    await aStoredDataMessage(s);
    const n = await aStoredNotification(t.app, s);
    const res = await call(t.app, 'DELETE', `${dataPath(s)}/all`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await listOf(s)).toEqual([]);
    expect(expectStatus(await call(t.app, 'GET', messagingPath(s)), 200)).toEqual({ notifications: [n] });
  });
});

describe('GET (D1, D2, D4, D5)', () => {
  it('lists all, per project and per user; unknown id or project → 404', async () => {
    const a = await aSubject(t.app);
    const b = await aSubject(t.app, { projectId: a.projectId });
    const elsewhere = await aSubject(t.app);
    const da = await aStoredDataMessage(a);
    const db = await aStoredDataMessage(b);
    const de = await aStoredDataMessage(elsewhere);
    expect(expectStatus(await call(t.app, 'GET', `/projects/${a.projectId}/messaging/data`), 200)).toEqual({ dataMessages: [da, db] });
    expect(await listOf(b)).toEqual([db]);
    expect(expectStatus(await call(t.app, 'GET', '/messaging/data'), 200).dataMessages).toEqual(expect.arrayContaining([da, db, de]));
    expect(expectStatus(await call(t.app, 'GET', '/messaging/data/999999999'), 404))
      .toEqual(errorBody(404, 'Data message not found with id 999999999', '/messaging/data/999999999'));
    const missing = unique('missing');
    expect(expectStatus(await call(t.app, 'GET', `/projects/${missing}/messaging/data`), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', `/projects/${missing}/messaging/data`));
  });

  it('keeps notifications and data messages apart', async () => {
    const s = await aSubject(t.app);
    const d = await aStoredDataMessage(s);
    const n = await aStoredNotification(t.app, s);
    expect((await call(t.app, 'GET', `/messaging/notifications/${d.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/data/${n.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `${dataPath(s)}/${n.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `${messagingPath(s)}/${d.id}`)).statusCode).toBe(404);
    expect(await listOf(s)).toEqual([d]);
    expect(expectStatus(await call(t.app, 'GET', messagingPath(s)), 200)).toEqual({ notifications: [n] });
  });
});
