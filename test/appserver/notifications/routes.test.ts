import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  aNotification, aProject, aStoredNotification, aSubject, call, errorBody, expectStatus, messagingPath, unique, type Subject,
} from '../../fixtures/appserver.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const listOf = async (s: Subject) => expectStatus(await call(t.app, 'GET', messagingPath(s)), 200).notifications as { id: number }[];
const statesOf = async (s: Subject, id: number) =>
  (expectStatus(await call(t.app, 'GET', `${messagingPath(s)}/${id}/state_events`), 200) as { state: string }[]).map((e) => e.state);

describe('POST {U}/messaging/notifications (N6)', () => {
  it('creates a notification: 201, Location, the whole DTO with epoch-second instants', async () => {
    const s = await aSubject(t.app);
    const body = aNotification({ additionalData: { action: 'QUESTIONNAIRE_TRIGGER' } });
    const res = await call(t.app, 'POST', messagingPath(s), body);
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/messaging/notifications/${dto.id}`);
    expect(res.body).toContain('"scheduledTime":1908977158.054');
    expect(dto).toEqual({
      id: expect.any(Number),
      scheduledTime: 1908977158.054,
      delivered: false,
      title: 'Test Title',
      body: 'Test Body',
      ttlSeconds: 86400,
      sourceId: body.sourceId,
      fcmMessageId: expect.any(String),
      fcmTopic: null,
      fcmCondition: null,
      type: 'ESM',
      appPackage: 'org.phidatalab.radar_armt',
      sourceType: 'aRMT',
      additionalData: { action: 'QUESTIONNAIRE_TRIGGER' },
      priority: null,
      sound: null,
      badge: null,
      subtitle: null,
      icon: null,
      color: null,
      bodyLocKey: null,
      bodyLocArgs: null,
      titleLocKey: null,
      titleLocArgs: null,
      androidChannelId: null,
      tag: null,
      clickAction: null,
      emailEnabled: false,
      emailTitle: null,
      emailBody: null,
      mutableContent: false,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(Math.abs(dto.createdAt - Date.now() / 1000)).toBeLessThan(60);
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${dto.id}`), 200)).toEqual(dto);
    expect(await listOf(s)).toEqual([dto]);
    expect(expectStatus(await call(t.app, 'GET', '/messaging/notifications'), 200).notifications).toContainEqual(dto);
  });

  it('accepts scheduledTime as epoch seconds', async () => {
    const s = await aSubject(t.app);
    const dto = await aStoredNotification(t.app, s, { scheduledTime: 1908977158 });
    expect(dto.scheduledTime).toBe(1908977158);
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${dto.id}`), 200).scheduledTime).toBe(1908977158);
  });

  it('keeps a client fcmMessageId and generates a unique one otherwise', async () => {
    const s = await aSubject(t.app);
    const fcmMessageId = unique('msg');
    expect((await aStoredNotification(t.app, s, { fcmMessageId })).fcmMessageId).toBe(fcmMessageId);
    const a = await aStoredNotification(t.app, s);
    const b = await aStoredNotification(t.app, s);
    expect(a.fcmMessageId).toEqual(expect.any(String));
    expect(a.fcmMessageId).not.toBe('');
    expect(a.fcmMessageId).not.toBe(b.fcmMessageId);
  });

  it('takes null for the optional fields and echoes them as null', async () => {
    const s = await aSubject(t.app);
    const dto = await aStoredNotification(t.app, s, { id: null, body: null, fcmTopic: null, priority: null, badge: null, additionalData: null });
    expect(dto).toMatchObject({ body: null, fcmTopic: null, priority: null, badge: null, additionalData: null });
  });

  it('answers a duplicate with 409 {message, errorMessage, dto} carrying the original', async () => {
    const s = await aSubject(t.app);
    const body = aNotification();
    const original = expectStatus(await call(t.app, 'POST', messagingPath(s), body), 201);
    // The same instant given as epoch seconds is the same notification.
    for (const repeat of [body, { ...body, scheduledTime: 1908977158.054, fcmMessageId: unique('msg') }]) {
      const res = await call(t.app, 'POST', messagingPath(s), repeat);
      const err = expectStatus(res, 409);
      expect(err).toEqual({
        message: expect.stringMatching(/^The Notification Already exists\. Please Use update endpoint /),
        errorMessage: 'The Notification Already exists. Please Use update endpoint',
        dto: original,
      });
    }
    expect(await listOf(s)).toEqual([original]);
  });

  it('is not a duplicate when title, body, type, ttlSeconds, sourceId or scheduledTime differ', async () => {
    const s = await aSubject(t.app);
    const body = aNotification();
    await aStoredNotification(t.app, s, body);
    const variants = [{ title: 'Other' }, { body: 'Other' }, { type: 'PHQ8' }, { ttlSeconds: 60 }, { sourceId: unique('src') }, { scheduledTime: 1908977159 }];
    for (const v of variants) expectStatus(await call(t.app, 'POST', messagingPath(s), { ...body, ...v }), 201);
    expect(await listOf(s)).toHaveLength(1 + variants.length);
  });

  it('answers 404 for an unknown project or user', async () => {
    const projectId = unique('missing');
    const path = `/projects/${projectId}/users/x/messaging/notifications`;
    expect(expectStatus(await call(t.app, 'POST', path, aNotification()), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', path));
    const known = await aProject(t.app);
    const userPath = `/projects/${known}/users/${unique('sub')}/messaging/notifications`;
    expect(expectStatus(await call(t.app, 'POST', userPath, aNotification()), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', userPath));
    expect(expectStatus(await call(t.app, 'GET', userPath), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', userPath));
  });

  it.each(['title', 'sourceId', 'type', 'appPackage', 'sourceType', 'scheduledTime'])('answers 400 without %s and stores nothing', async (field) => {
    const s = await aSubject(t.app);
    const body: Record<string, unknown> = aNotification();
    delete body[field];
    expect(expectStatus(await call(t.app, 'POST', messagingPath(s), body), 400))
      .toEqual(errorBody(400, expect.stringContaining(field), messagingPath(s)));
    expect(await listOf(s)).toEqual([]);
  });

  it('POST /project/{p}/users/{s}/notifications is the same operation', async () => {
    const s = await aSubject(t.app);
    const res = await call(t.app, 'POST', `/project/${s.projectId}/users/${s.subjectId}/notifications`, aNotification());
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/messaging/notifications/${dto.id}`);
    expect(await listOf(s)).toEqual([dto]);
    expect(await statesOf(s, dto.id)).toEqual(['ADDED', 'SCHEDULED']);
  });
});

describe('scheduling (N6 ?schedule, N7, N8)', () => {
  it('schedules on create by default: ADDED then SCHEDULED', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expect(await statesOf(s, n.id)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('?schedule=false leaves it unscheduled until POST …/{id}/schedule', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s, {}, '?schedule=false');
    expect(await statesOf(s, n.id)).toEqual(['ADDED']);
    const dto = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/${n.id}/schedule`), 200);
    expect(dto).toMatchObject({ id: n.id, title: n.title, scheduledTime: n.scheduledTime });
    expect(await statesOf(s, n.id)).toEqual(['ADDED', 'SCHEDULED']);
    // Scheduling again adds nothing.
    expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/${n.id}/schedule`), 200);
    expect(await statesOf(s, n.id)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('POST …/schedule schedules all unscheduled ones and lists all of the user\'s', async () => {
    const s = await aSubject(t.app);
    const a = await aStoredNotification(t.app, s, {}, '?schedule=false');
    const b = await aStoredNotification(t.app, s, {}, '?schedule=false');
    const c = await aStoredNotification(t.app, s);
    const other = await aSubject(t.app, { projectId: s.projectId });
    const foreign = await aStoredNotification(t.app, other, {}, '?schedule=false');
    const res = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/schedule`), 200);
    expect(res.notifications.map((n: { id: number }) => n.id)).toEqual([a.id, b.id, c.id]);
    for (const n of [a, b, c]) expect(await statesOf(s, n.id)).toEqual(['ADDED', 'SCHEDULED']);
    expect(await statesOf(other, foreign.id)).toEqual(['ADDED']);
  });

  it('answers 404 for scheduling an unknown or another user\'s notification', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app);
    const foreign = await aStoredNotification(t.app, other, {}, '?schedule=false');
    for (const id of [999999999, foreign.id]) {
      const path = `${messagingPath(s)}/${id}/schedule`;
      expect(expectStatus(await call(t.app, 'POST', path), 404)).toEqual(errorBody(404, expect.stringContaining(String(id)), path));
    }
    expect(await statesOf(other, foreign.id)).toEqual(['ADDED']);
  });
});

describe('POST {U}/messaging/notifications/batch (N9)', () => {
  it('returns only the new ones: 2 new + 1 existing → 2', async () => {
    const s = await aSubject(t.app);
    const existing = aNotification();
    const stored = await aStoredNotification(t.app, s, existing);
    const fresh = [aNotification(), aNotification({ scheduledTime: 1908977158 })];
    const res = await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications: [fresh[0], existing, fresh[1]] });
    const out = expectStatus(res, 200).notifications as Record<string, unknown>[];
    expect(out.map((n) => n.sourceId)).toEqual([fresh[0]!.sourceId, fresh[1]!.sourceId]);
    expect(out[1]!.scheduledTime).toBe(1908977158);
    const list = await listOf(s);
    expect(list.map((n) => n.id)).toEqual([stored.id, ...out.map((n) => n.id)]);
    for (const n of out) expect(await statesOf(s, n.id as number)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('drops duplicates within the batch too', async () => {
    const s = await aSubject(t.app);
    const one = aNotification();
    const out = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications: [one, { ...one }, aNotification()] }), 200).notifications;
    expect(out).toHaveLength(2);
    expect(await listOf(s)).toHaveLength(2);
  });

  it('with ?schedule=false stores them unscheduled', async () => {
    const s = await aSubject(t.app);
    const out = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch?schedule=false`, { notifications: [aNotification()] }), 200).notifications;
    expect(await statesOf(s, out[0].id)).toEqual(['ADDED']);
  });

  it('takes 200 and refuses 201 with 400, storing nothing', async () => {
    const s = await aSubject(t.app);
    const path = `${messagingPath(s)}/batch`;
    const tooMany = Array.from({ length: 201 }, () => aNotification());
    expect(expectStatus(await call(t.app, 'POST', path, { notifications: tooMany }), 400)).toEqual(errorBody(400, expect.any(String), path));
    expect(await listOf(s)).toEqual([]);
    const out = expectStatus(await call(t.app, 'POST', path, { notifications: tooMany.slice(0, 200) }), 200).notifications;
    expect(out).toHaveLength(200);
  });

  // The batch stores its rows and their events in one statement (no transaction around it) and
  // builds its answer from what it sent: the answer must be what a read gives back.
  it('answers what is stored: each DTO as GET reads it, ADDED then SCHEDULED at its createdAt', async () => {
    const s = await aSubject(t.app);
    const sent = [
      aNotification({ additionalData: { action: 'QUESTIONNAIRE_TRIGGER' }, sound: 'default', emailEnabled: true, emailTitle: 'Mail' }),
      aNotification({ scheduledTime: '2031-01-01T00:00:00.5Z', priority: 'high', fcmMessageId: 'client-id' }),
    ];
    const out = expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications: sent }), 200).notifications as Record<string, unknown>[];
    expect(out).toHaveLength(2);
    for (const dto of out) {
      expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${dto.id as number}`), 200)).toEqual(dto);
      const events = expectStatus(await call(t.app, 'GET', `${messagingPath(s)}/${dto.id as number}/state_events`), 200) as { id: number; state: string; time: number }[];
      expect(events.map((e) => [e.state, e.time])).toEqual([['ADDED', dto.createdAt], ['SCHEDULED', dto.createdAt]]);
      expect(events[0]!.id).toBeLessThan(events[1]!.id);
    }
    expect(out[0]).toMatchObject({ additionalData: { action: 'QUESTIONNAIRE_TRIGGER' }, sound: 'default', emailEnabled: true, emailTitle: 'Mail' });
    expect(out[1]).toMatchObject({ scheduledTime: 1924992000.5, priority: 'HIGH', fcmMessageId: 'client-id' });
  });

  it('an empty batch is 200 with an empty list', async () => {
    const s = await aSubject(t.app);
    expect(expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications: [] }), 200)).toEqual({ notifications: [] });
  });
});

describe('PUT {U}/messaging/notifications (N10)', () => {
  it('changes title, body and scheduledTime and records UPDATED', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const res = await call(t.app, 'PUT', messagingPath(s), aNotification({
      id: n.id, sourceId: n.sourceId, title: 'New title', body: 'New body', scheduledTime: '2031-01-01T00:00:00.5Z',
    }));
    const dto = expectStatus(res, 200);
    expect(dto).toMatchObject({ id: n.id, title: 'New title', body: 'New body', scheduledTime: 1924992000.5, createdAt: n.createdAt });
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${n.id}`), 200)).toEqual(dto);
    expect(await statesOf(s, n.id)).toEqual(['ADDED', 'SCHEDULED', 'UPDATED']);
  });

  it('answers 417 without id and 404 for an unknown or another user\'s id', async () => {
    const s = await aSubject(t.app);
    const path = messagingPath(s);
    expect(expectStatus(await call(t.app, 'PUT', path, aNotification()), 417))
      .toEqual(errorBody(417, 'ID must be supplied for updating the notification', path));
    expect(expectStatus(await call(t.app, 'PUT', path, aNotification({ id: null })), 417))
      .toEqual(errorBody(417, 'ID must be supplied for updating the notification', path));
    expect(expectStatus(await call(t.app, 'PUT', path, aNotification({ id: 999999999 })), 404))
      .toEqual(errorBody(404, 'Notification does not exist. Please create first', path));
    const other = await aSubject(t.app);
    const foreign = await aStoredNotification(t.app, other);
    expect(expectStatus(await call(t.app, 'PUT', path, aNotification({ id: foreign.id, title: 'Hijacked' })), 404))
      .toEqual(errorBody(404, 'Notification does not exist. Please create first', path));
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${foreign.id}`), 200)).toEqual(foreign);
  });

  it('answers 409 when the update would duplicate another notification', async () => {
    const s = await aSubject(t.app);
    const a = aNotification();
    await aStoredNotification(t.app, s, a);
    const b = await aStoredNotification(t.app, s);
    const res = await call(t.app, 'PUT', messagingPath(s), { ...a, id: b.id });
    expect(expectStatus(res, 409)).toEqual(errorBody(409, expect.any(String), messagingPath(s)));
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${b.id}`), 200)).toEqual(b);
  });
});

describe('DELETE (N11–N13)', () => {
  it('deletes one: 200 with an empty body, then it is gone', async () => {
    const s = await aSubject(t.app);
    const keep = await aStoredNotification(t.app, s);
    const gone = await aStoredNotification(t.app, s);
    const res = await call(t.app, 'DELETE', `${messagingPath(s)}/${gone.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect((await listOf(s)).map((n) => n.id)).toEqual([keep.id]);
    expect((await call(t.app, 'GET', `/messaging/notifications/${gone.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/notifications/${gone.id}/state_events`)).statusCode).toBe(404);
  });

  it('answers 404 for an unknown or another user\'s notification and deletes nothing', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app, { projectId: s.projectId });
    const foreign = await aStoredNotification(t.app, other);
    for (const id of [999999999, foreign.id]) {
      const path = `${messagingPath(s)}/${id}`;
      expect(expectStatus(await call(t.app, 'DELETE', path), 404)).toEqual(errorBody(404, 'Notification with the provided ID does not exist.', path));
    }
    expect(await listOf(other)).toEqual([foreign]);
  });

  it('deletes all of the user\'s notifications, no one else\'s', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app, { projectId: s.projectId });
    await aStoredNotification(t.app, s);
    await aStoredNotification(t.app, s, {}, '?schedule=false');
    const foreign = await aStoredNotification(t.app, other);
    const res = await call(t.app, 'DELETE', `${messagingPath(s)}/all`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await listOf(s)).toEqual([]);
    expect(await listOf(other)).toEqual([foreign]);
  });

  it('DELETE …/tasks/{id} removes nothing when no notification has that task', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const res = await call(t.app, 'DELETE', `${messagingPath(s)}/tasks/999999999`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await listOf(s)).toEqual([n]);
  });
});

describe('GET (N1, N2, N4, N5)', () => {
  it('GET /messaging/notifications/{unknown} is 404', async () => {
    expect(expectStatus(await call(t.app, 'GET', '/messaging/notifications/999999999'), 404))
      .toEqual(errorBody(404, 'Notification not found with id 999999999', '/messaging/notifications/999999999'));
  });

  it('GET /projects/{p}/messaging/notifications lists those of all users of the project only', async () => {
    const a = await aSubject(t.app);
    const b = await aSubject(t.app, { projectId: a.projectId });
    const elsewhere = await aSubject(t.app);
    const na = await aStoredNotification(t.app, a);
    const nb = await aStoredNotification(t.app, b);
    await aStoredNotification(t.app, elsewhere);
    expect(expectStatus(await call(t.app, 'GET', `/projects/${a.projectId}/messaging/notifications`), 200)).toEqual({ notifications: [na, nb] });
    const missing = unique('missing');
    expect(expectStatus(await call(t.app, 'GET', `/projects/${missing}/messaging/notifications`), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', `/projects/${missing}/messaging/notifications`));
  });

  it('GET /messaging/notifications lists notifications of every user', async () => {
    const a = await aSubject(t.app);
    const b = await aSubject(t.app);
    const na = await aStoredNotification(t.app, a);
    const nb = await aStoredNotification(t.app, b);
    const all = expectStatus(await call(t.app, 'GET', '/messaging/notifications'), 200).notifications;
    expect(all).toEqual(expect.arrayContaining([na, nb]));
  });
});
