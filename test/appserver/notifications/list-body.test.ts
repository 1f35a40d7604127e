/**
 * The message lists read their rows as JSON arrays built in SQL, not through Drizzle's row
 * mapping (issue 30 item 7). Their bodies must stay byte for byte what they were: every field in
 * the DTO's order, nulls written as null, instants as epoch seconds with the milliseconds as
 * fraction (PostgreSQL's microseconds cut as a JS Date cuts them, before 1970 too), strings
 * escaped as JSON.stringify escapes them, a data map's keys in the stored order. The expected
 * texts below are written out by hand, so the test holds the service to them on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/platform/database.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aProject, aSubject, call, expectStatus, messagingPath, type Subject } from '../../fixtures/appserver.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const db = () => t.app.db.db as Database;

/** Sets the columns the API does not take (delivered, created_at, updated_at) to fixed values. */
async function fix(id: number, values: { delivered?: boolean; createdAt: string; updatedAt: string }) {
  await db().execute(sql`update appserver.messages set delivered = ${values.delivered ?? false},
    created_at = ${values.createdAt}::timestamptz, updated_at = ${values.updatedAt}::timestamptz where id = ${id}`);
}

const TRICKY = 'Tap "here" \\ now\nthen \u0001 é😀 </script>';
const TRICKY_JSON = '"Tap \\"here\\" \\\\ now\\nthen \\u0001 é😀 </script>"';

describe('the message lists', () => {
  let s: Subject;
  let full: number;
  let bare: number;

  beforeAll(async () => {
    const projectId = await aProject(t.app);
    s = await aSubject(t.app, { projectId });
    full = expectStatus(await call(t.app, 'POST', messagingPath(s), {
      title: TRICKY, body: 'Body', type: 'PHQ8', ttlSeconds: 300, sourceId: 'src-full', fcmMessageId: 'fcm-full', fcmTopic: 'topic', fcmCondition: "'a' in topics",
      appPackage: 'org.phidatalab.radar_armt', sourceType: 'aRMT', priority: 'high', mutableContent: true,
      scheduledTime: '2031-02-03T04:05:06.789Z', additionalData: { zeta: '1', a: 'x"y' }, sound: 'default', badge: '3', subtitle: 'Sub', icon: 'ic',
      color: '#a0B1c2', bodyLocKey: 'bk', bodyLocArgs: 'ba', titleLocKey: 'tk', titleLocArgs: 'ta', androidChannelId: 'chan', tag: 'tag',
      clickAction: 'OPEN', emailEnabled: true, emailTitle: 'Mail', emailBody: 'Mail body',
    }), 201).id;
    bare = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}?schedule=false`, {
      title: 'T', type: 'ESM', sourceId: 'src-bare', fcmMessageId: 'fcm-bare', appPackage: 'p', sourceType: 'aRMT', scheduledTime: 1908977158,
    }), 201).id;
    // Microseconds that a Date cuts to .678 and, before 1970, to -0.001.
    await fix(full, { delivered: true, createdAt: '2030-01-02 03:04:05.678999+00', updatedAt: '1969-12-31 23:59:59.9995+00' });
    await fix(bare, { createdAt: '2030-01-02 03:04:05+00', updatedAt: '2030-01-02 03:04:05.0004+00' });
  });

  const notificationsBody = () => '{"notifications":['
    + `{"id":${full},"scheduledTime":1927857906.789,"delivered":true,"ttlSeconds":300,"sourceId":"src-full","fcmMessageId":"fcm-full",`
    + '"fcmTopic":"topic","fcmCondition":"\'a\' in topics","appPackage":"org.phidatalab.radar_armt","sourceType":"aRMT","priority":"HIGH",'
    + `"mutableContent":true,"createdAt":1893553445.678,"updatedAt":-0.001,"title":${TRICKY_JSON},"body":"Body","type":"PHQ8",`
    + '"additionalData":{"a":"x\\"y","zeta":"1"},"sound":"default","badge":"3","subtitle":"Sub","icon":"ic","color":"#a0B1c2",'
    + '"bodyLocKey":"bk","bodyLocArgs":"ba","titleLocKey":"tk","titleLocArgs":"ta","androidChannelId":"chan","tag":"tag","clickAction":"OPEN",'
    + '"emailEnabled":true,"emailTitle":"Mail","emailBody":"Mail body"},'
    + `{"id":${bare},"scheduledTime":1908977158,"delivered":false,"ttlSeconds":0,"sourceId":"src-bare","fcmMessageId":"fcm-bare",`
    + '"fcmTopic":null,"fcmCondition":null,"appPackage":"p","sourceType":"aRMT","priority":null,"mutableContent":false,'
    + '"createdAt":1893553445,"updatedAt":1893553445,"title":"T","body":null,"type":"ESM","additionalData":null,"sound":null,"badge":null,'
    + '"subtitle":null,"icon":null,"color":null,"bodyLocKey":null,"bodyLocArgs":null,"titleLocKey":null,"titleLocArgs":null,'
    + '"androidChannelId":null,"tag":null,"clickAction":null,"emailEnabled":false,"emailTitle":null,"emailBody":null}]}';

  it("a user's notifications: every field, nulls, instants and escapes as before", async () => {
    const res = await call(t.app, 'GET', messagingPath(s));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(notificationsBody());
  });

  it("the project's list and the token's list show the same DTOs", async () => {
    expect((await call(t.app, 'GET', `/projects/${s.projectId}/messaging/notifications`)).body).toBe(notificationsBody());
    const all = JSON.parse((await call(t.app, 'GET', '/messaging/notifications')).body) as { notifications: { id: number }[] };
    expect(JSON.stringify({ notifications: all.notifications.filter((n) => n.id === full || n.id === bare) })).toBe(notificationsBody());
    // Scheduling the user's notifications answers their list (with the scheduled one's new updatedAt).
    const scheduled = await call(t.app, 'POST', `${messagingPath(s)}/schedule`);
    expect(scheduled.statusCode).toBe(200);
    expect(scheduled.body).toBe((await call(t.app, 'GET', messagingPath(s))).body);
  });

  it("a user's data messages: the map, nulls and instants as before", async () => {
    const withMap = expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), {
      sourceId: 'd-1', fcmMessageId: 'fcm-d1', appPackage: 'p', sourceType: 'aRMT', scheduledTime: '2031-02-03T04:05:06.789Z', ttlSeconds: 60,
      priority: 'normal', dataMap: { b: TRICKY, aa: '' },
    }), 201).id;
    const without = expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), {
      sourceId: 'd-2', fcmMessageId: 'fcm-d2', appPackage: 'p', sourceType: 'aRMT', scheduledTime: '1969-12-31T23:59:59.999Z',
    }), 201).id;
    await fix(withMap, { createdAt: '2030-01-02 03:04:05.678999+00', updatedAt: '2030-01-02 03:04:05.678999+00' });
    await fix(without, { createdAt: '2030-01-02 03:04:05+00', updatedAt: '2030-01-02 03:04:05+00' });
    const res = await call(t.app, 'GET', messagingPath(s, 'data'));
    expect(res.body).toBe('{"dataMessages":['
      + `{"id":${withMap},"scheduledTime":1927857906.789,"delivered":false,"ttlSeconds":60,"sourceId":"d-1","fcmMessageId":"fcm-d1",`
      + '"fcmTopic":null,"fcmCondition":null,"appPackage":"p","sourceType":"aRMT","priority":"NORMAL","mutableContent":false,'
      + `"createdAt":1893553445.678,"updatedAt":1893553445.678,"dataMap":{"b":${TRICKY_JSON},"aa":""}},`
      + `{"id":${without},"scheduledTime":-0.001,"delivered":false,"ttlSeconds":0,"sourceId":"d-2","fcmMessageId":"fcm-d2",`
      + '"fcmTopic":null,"fcmCondition":null,"appPackage":"p","sourceType":"aRMT","priority":null,"mutableContent":false,'
      + '"createdAt":1893553445,"updatedAt":1893553445,"dataMap":null}]}');
  });

  it('an empty data map is listed as the created DTO shows it', async () => {
    const other = await aSubject(t.app, { projectId: s.projectId });
    const created = await call(t.app, 'POST', messagingPath(other), { title: 'T', type: 'ESM', sourceId: 'src-empty', appPackage: 'p', sourceType: 'aRMT', scheduledTime: 1908977158, additionalData: {} });
    const map = JSON.stringify((expectStatus(created, 201) as { additionalData: unknown }).additionalData);
    expect(map).toBe('{}');
    expect((await call(t.app, 'GET', messagingPath(other))).body).toContain(`"additionalData":${map},`);
  });

  it('an empty list is an empty array; an unknown user is 404', async () => {
    const other = await aSubject(t.app, { projectId: s.projectId });
    expect((await call(t.app, 'GET', messagingPath(other))).body).toBe('{"notifications":[]}');
    expect((await call(t.app, 'GET', messagingPath(other, 'data'))).body).toBe('{"dataMessages":[]}');
    expect((await call(t.app, 'GET', messagingPath({ projectId: s.projectId, subjectId: 'nobody' }))).statusCode).toBe(404);
  });
});
