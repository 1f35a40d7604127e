/**
 * Issue 33 item 4: `GET /messaging/notifications/filtered` and `/messaging/data/filtered` (stubs
 * in the reference): filters by type (notifications), delivered, ttlSeconds and the scheduled
 * time's bounds, ordered by scheduled time, at most `limit` (default 100, above 1,000 a 400). The
 * rows are the DTOs the unfiltered lists show. Who may call them: test/security/permission-matrix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/platform/database.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aDataMessage, aNotification, aSubject, call, errorBody, expectStatus, messagingPath, type Subject } from '../../fixtures/appserver.js';

let t: TestApp;
let s: Subject;
type Dto = Record<string, unknown> & { id: number };
const ids: Record<string, number> = {};
let listed: Dto[];

beforeAll(async () => {
  t = await buildTestApp();
  s = await aSubject(t.app);
  const add = async (name: string, overrides: Record<string, unknown>) => {
    ids[name] = (expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification(overrides)), 201) as Dto).id;
  };
  await add('a', { type: 'PHQ8', ttlSeconds: 60, scheduledTime: '2041-01-03T00:00:00Z' });
  await add('b', { type: 'PHQ8', ttlSeconds: 120, scheduledTime: '2041-01-01T00:00:00Z' });
  await add('c', { type: 'ESM', ttlSeconds: 60, scheduledTime: '2041-01-02T00:00:00Z' });
  // `delivered` is set by the scheduler, not by the API.
  await (t.app.db.db as Database).execute(sql`update appserver.messages set delivered = true where id = ${ids.c!}`);
  listed = (expectStatus(await call(t.app, 'GET', messagingPath(s)), 200) as { notifications: Dto[] }).notifications;
});
afterAll(async () => { await t?.close(); });

const filtered = async (query: string) =>
  (expectStatus(await call(t.app, 'GET', `/messaging/notifications/filtered${query}`), 200) as { notifications: Dto[] }).notifications;
/** The unfiltered list's DTOs of the named notifications, in that order. */
const dtos = (...names: string[]) => names.map((name) => listed.find((n) => n.id === ids[name])!);

describe('GET /messaging/notifications/filtered', () => {
  it('without filters: every notification, by scheduled time, as the lists show them', async () => {
    expect(await filtered('')).toEqual(dtos('b', 'c', 'a'));
  });

  it('filters by type, delivered and ttlSeconds, together too', async () => {
    expect(await filtered('?type=PHQ8')).toEqual(dtos('b', 'a'));
    expect(await filtered('?type=phq8')).toEqual([]);
    expect(await filtered('?delivered=true')).toEqual(dtos('c'));
    expect(await filtered('?delivered=false')).toEqual(dtos('b', 'a'));
    expect(await filtered('?ttlSeconds=60')).toEqual(dtos('c', 'a'));
    expect(await filtered('?ttlSeconds=60&delivered=false&type=PHQ8')).toEqual(dtos('a'));
  });

  it('bounds the scheduled time by startTime and endTime, both included, as ISO instants or epoch seconds', async () => {
    expect(await filtered('?startTime=2041-01-02T00:00:00Z')).toEqual(dtos('c', 'a'));
    expect(await filtered(`?endTime=${Date.parse('2041-01-02T00:00:00Z') / 1000}`)).toEqual(dtos('b', 'c'));
    expect(await filtered('?startTime=2041-01-01T12:00:00%2B01:00&endTime=2041-01-02T23:59:59Z')).toEqual(dtos('c'));
    expect(await filtered('?startTime=2041-01-04T00:00:00Z')).toEqual([]);
  });

  it('answers at most limit rows (default 100), the first by scheduled time', async () => {
    expect(await filtered('?limit=2')).toEqual(dtos('b', 'c'));
    const many = Array.from({ length: 101 }, (_, i) => aNotification({ type: 'MANY', scheduledTime: `2042-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z` }));
    expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications: many }), 200);
    const page = await filtered('?type=MANY');
    expect(page).toHaveLength(100);
    const times = page.map((n) => n.scheduledTime as number);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(await filtered('?type=MANY&limit=1000')).toHaveLength(101);
  });

  it('refuses a limit above 1,000 or below 1, and a bound that is no instant, with 400 and the error body', async () => {
    for (const [query, message] of [
      ['?limit=1001', 'Validation failed: querystring/limit must be <= 1000'],
      ['?limit=0', 'Validation failed: querystring/limit must be >= 1'],
      ['?startTime=yesterday', 'startTime must be an ISO-8601 instant or epoch seconds, got "yesterday"'],
      ['?endTime=2041-01-01T00:00:00', 'endTime must be an ISO-8601 instant or epoch seconds, got "2041-01-01T00:00:00"'],
      ['?delivered=maybe', 'Validation failed: querystring/delivered must be boolean'],
    ] as const) {
      const res = await call(t.app, 'GET', `/messaging/notifications/filtered${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toEqual(errorBody(400, message, '/messaging/notifications/filtered'));
    }
  });
});

describe('GET /messaging/data/filtered', () => {
  it('filters data messages alike (no type), by scheduled time, at most limit', async () => {
    const add = async (overrides: Record<string, unknown>) =>
      (expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), aDataMessage(overrides)), 201) as Dto).id;
    const late = await add({ ttlSeconds: 30, scheduledTime: '2043-01-02T00:00:00Z' });
    const early = await add({ ttlSeconds: 30, scheduledTime: '2043-01-01T00:00:00Z' });
    const other = await add({ ttlSeconds: 40, scheduledTime: '2043-01-01T12:00:00Z' });
    const all = (expectStatus(await call(t.app, 'GET', messagingPath(s, 'data')), 200) as { dataMessages: Dto[] }).dataMessages;
    const byId = (...wanted: number[]) => wanted.map((id) => all.find((m) => m.id === id)!);
    const get = async (query: string) =>
      (expectStatus(await call(t.app, 'GET', `/messaging/data/filtered${query}`), 200) as { dataMessages: Dto[] }).dataMessages;
    expect(await get('')).toEqual(byId(early, other, late));
    expect(await get('?ttlSeconds=30')).toEqual(byId(early, late));
    expect(await get('?startTime=2043-01-01T06:00:00Z&delivered=false')).toEqual(byId(other, late));
    expect(await get('?limit=1')).toEqual(byId(early));
    const res = await call(t.app, 'GET', '/messaging/data/filtered?limit=5000');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(errorBody(400, 'Validation failed: querystring/limit must be <= 1000', '/messaging/data/filtered'));
  });
});
