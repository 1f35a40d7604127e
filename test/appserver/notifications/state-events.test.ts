import { until } from '../../helpers/eventually.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appserverEvents, type MessageStateChange } from '../../../src/appserver/events.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  aDataMessage, aNotification, aProject, aStoredNotification, aSubject, call, errorBody, expectStatus, messagingPath, unique, type Subject,
} from '../../fixtures/appserver.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const eventsPath = (s: Subject, id: number) => `${messagingPath(s)}/${id}/state_events`;
const postEvent = (s: Subject, id: number, body: unknown) => call(t.app, 'POST', eventsPath(s, id), body);
const eventsOf = async (s: Subject, id: number) => expectStatus(await call(t.app, 'GET', eventsPath(s, id)), 200) as Record<string, unknown>[];
const getUser = async (s: Subject) => expectStatus(await call(t.app, 'GET', `/projects/${s.projectId}/users/${s.subjectId}`), 200);

describe('POST {U}/messaging/notifications/{id}/state_events (E3)', () => {
  it.each(['DELIVERED', 'OPENED', 'DISMISSED', 'ERRORED', 'UNKNOWN'])('accepts %s with and without associatedInfo; the answer includes it', async (state) => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const plain = expectStatus(await postEvent(s, n.id, { state, time: '2030-06-29T15:30:00.125Z' }), 200);
    expect(plain).toContainEqual({ id: expect.any(Number), notificationId: n.id, state, time: 1908977400.125, associatedInfo: null });
    const withInfo = expectStatus(await postEvent(s, n.id, { state, time: 1908977401, associatedInfo: '{"source":"tap"}' }), 200);
    expect(withInfo).toContainEqual({ id: expect.any(Number), notificationId: n.id, state, time: 1908977401, associatedInfo: '{"source":"tap"}' });
    expect(await eventsOf(s, n.id)).toEqual(withInfo);
    expect(withInfo.map((e: { state: string }) => e.state)).toEqual(['ADDED', 'SCHEDULED', state, state]);
  });

  it('accepts the questionnaire app\'s body {notificationId, state, time} (no associatedInfo)', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const time = new Date();
    const res = expectStatus(await postEvent(s, n.id, JSON.parse(JSON.stringify({ notificationId: n.id, state: 'DELIVERED', time }))), 200);
    expect(res).toContainEqual({ id: expect.any(Number), notificationId: n.id, state: 'DELIVERED', time: time.getTime() / 1000, associatedInfo: null });
  });

  it('stores associatedInfo given as a JSON string or "" (none), and refuses one that is not a JSON object', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expectStatus(await postEvent(s, n.id, { state: 'OPENED', time: 1908977401, associatedInfo: '{"source":"tap","screen":"home"}' }), 200);
    expectStatus(await postEvent(s, n.id, { state: 'DISMISSED', time: 1908977402, associatedInfo: '' }), 200);
    for (const bad of ['not json', '[1,2]', '"text"']) {
      const res = await postEvent(s, n.id, { state: 'OPENED', time: 1908977403, associatedInfo: bad });
      expect(expectStatus(res, 400)).toEqual(errorBody(400, 'associatedInfo must be a JSON object of strings', eventsPath(s, n.id)));
    }
    const posted = (await eventsOf(s, n.id)).slice(2);
    expect(posted).toEqual([
      { id: expect.any(Number), notificationId: n.id, state: 'OPENED', time: 1908977401, associatedInfo: '{"source":"tap","screen":"home"}' },
      { id: expect.any(Number), notificationId: n.id, state: 'DISMISSED', time: 1908977402, associatedInfo: null },
    ]);
  });

  it.each(['SCHEDULED', 'EXECUTED', 'ADDED', 'CANCELLED', 'FOO'])('refuses the state %s with 400 and stores nothing', async (state) => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const res = await postEvent(s, n.id, { state, time: '2030-06-29T15:30:00Z' });
    expect(expectStatus(res, 400)).toEqual(errorBody(
      400, `The state ${state} is not an external state and cannot be updated by this endpoint.`, eventsPath(s, n.id),
    ));
    expect((await eventsOf(s, n.id)).map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('refuses the 21st posted event with 409; ADDED, SCHEDULED and UPDATED do not count', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expectStatus(await call(t.app, 'PUT', messagingPath(s), aNotification({ id: n.id, sourceId: n.sourceId, title: 'Changed' })), 200);
    for (let i = 0; i < 20; i++) expectStatus(await postEvent(s, n.id, { state: 'UNKNOWN', time: 1908977400 + i }), 200);
    const res = await postEvent(s, n.id, { state: 'OPENED', time: 1908977500 });
    expect(expectStatus(res, 409)).toEqual(errorBody(409, 'The max limit of state changes(20) has been reached. Cannot add new states.', eventsPath(s, n.id)));
    const events = await eventsOf(s, n.id);
    expect(events).toHaveLength(23);
    expect(events.filter((e) => e.state === 'OPENED')).toEqual([]);
  });

  it('answers 404 for another user\'s notification, an unknown one, an unknown user', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app, { projectId: s.projectId });
    const foreign = await aStoredNotification(t.app, other);
    for (const id of [foreign.id, 999999999]) {
      expect(expectStatus(await postEvent(s, id, { state: 'OPENED', time: 1908977400 }), 404))
        .toEqual(errorBody(404, expect.stringContaining(String(id)), eventsPath(s, id)));
    }
    const ghost = { ...s, subjectId: unique('sub') };
    expect(expectStatus(await postEvent(ghost, foreign.id, { state: 'OPENED' }), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', eventsPath(ghost, foreign.id)));
    expect((await eventsOf(other, foreign.id)).map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('DELIVERED sets the user\'s lastDelivered and OPENED its lastOpened to the event time', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expect(s.user.lastDelivered).toBeNull();
    expectStatus(await postEvent(s, n.id, { state: 'DELIVERED', time: '2030-06-29T15:30:00.250Z' }), 200);
    expect(await getUser(s)).toMatchObject({ lastDelivered: 1908977400.25, lastOpened: s.user.lastOpened });
    expectStatus(await postEvent(s, n.id, { state: 'OPENED', time: 1908977460 }), 200);
    expect(await getUser(s)).toMatchObject({ lastDelivered: 1908977400.25, lastOpened: 1908977460 });
    expectStatus(await postEvent(s, n.id, { state: 'DISMISSED', time: 1908977999 }), 200);
    expect(await getUser(s)).toMatchObject({ lastDelivered: 1908977400.25, lastOpened: 1908977460 });
  });

  it('defaults a missing time to now', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const res = expectStatus(await postEvent(s, n.id, { state: 'UNKNOWN', time: null }), 200) as { state: string; time: number }[];
    const posted = res.find((e) => e.state === 'UNKNOWN')!;
    expect(Math.abs(posted.time - Date.now() / 1000)).toBeLessThan(60);
  });
});

describe('GET state events (E1, E2)', () => {
  it('E1 lists a notification\'s events by id alone; an unknown id gives 404', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expectStatus(await postEvent(s, n.id, { state: 'OPENED', time: 1908977400 }), 200);
    const byId = expectStatus(await call(t.app, 'GET', `/messaging/notifications/${n.id}/state_events`), 200);
    expect(byId).toEqual(await eventsOf(s, n.id));
    expect(byId.map((e: { state: string }) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'OPENED']);
    // Reference bug fixed (issue 21 item 7): an unknown id listed [] instead of 404.
    expect(expectStatus(await call(t.app, 'GET', '/messaging/notifications/999999999/state_events'), 404))
      .toEqual(errorBody(404, 'Notification not found with id 999999999', '/messaging/notifications/999999999/state_events'));
  });

  it('E1 does not list a data message\'s events', async () => {
    const s = await aSubject(t.app);
    const d = expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), aDataMessage()), 201);
    expect(expectStatus(await call(t.app, 'GET', `/messaging/notifications/${d.id}/state_events`), 404).message).toBe(`Notification not found with id ${d.id}`);
  });

  it('E2 answers 404 for another user\'s notification and for an unknown project', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app, { projectId: s.projectId });
    const foreign = await aStoredNotification(t.app, other);
    const path = eventsPath(s, foreign.id);
    expect(expectStatus(await call(t.app, 'GET', path), 404)).toEqual(errorBody(404, expect.stringContaining(String(foreign.id)), path));
    const nowhere = { projectId: unique('missing'), subjectId: s.subjectId };
    expect(expectStatus(await call(t.app, 'GET', eventsPath(nowhere as Subject, foreign.id)), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', eventsPath(nowhere as Subject, foreign.id)));
  });
});

describe('listeners (app.events "message.state")', () => {
  async function recording<T>(fn: (seen: MessageStateChange[]) => Promise<T>) {
    const seen: MessageStateChange[] = [];
    const unsubscribe = appserverEvents(t.app.events).subscribe('message.state', (e) => { seen.push(e); });
    try {
      return await fn(seen);
    } finally {
      unsubscribe();
    }
  }
  const mine = (seen: MessageStateChange[], s: Subject) => seen.filter((e) => e.projectId === s.projectId && e.subjectId === s.subjectId);

  it('hear ADDED, SCHEDULED, UPDATED, posted states and CANCELLED', async () => {
    await recording(async (seen) => {
      const s = await aSubject(t.app);
      const owner = { kind: 'notification', projectId: s.projectId, subjectId: s.subjectId };
      const n = await aStoredNotification(t.app, s);
      await until(() => expect(mine(seen, s)).toEqual([
        { ...owner, messageId: n.id, state: 'ADDED', time: expect.any(Date), associatedInfo: null },
        { ...owner, messageId: n.id, state: 'SCHEDULED', time: expect.any(Date), associatedInfo: null },
      ]));
      seen.length = 0;
      expectStatus(await call(t.app, 'PUT', messagingPath(s), aNotification({ id: n.id, sourceId: n.sourceId, title: 'Changed' })), 200);
      await until(() => expect(mine(seen, s)).toEqual([{ ...owner, messageId: n.id, state: 'UPDATED', time: expect.any(Date), associatedInfo: null }]));
      seen.length = 0;
      expectStatus(await postEvent(s, n.id, { state: 'OPENED', time: '2030-06-29T15:30:00Z', associatedInfo: '{"source":"tap"}' }), 200);
      await until(() => expect(mine(seen, s)).toEqual([
        { ...owner, messageId: n.id, state: 'OPENED', time: new Date('2030-06-29T15:30:00Z'), associatedInfo: { source: 'tap' } },
      ]));
      seen.length = 0;
      expectStatus(await call(t.app, 'DELETE', `${messagingPath(s)}/${n.id}`), 200);
      await until(() => expect(mine(seen, s)).toEqual([{ ...owner, messageId: n.id, state: 'CANCELLED', time: expect.any(Date), associatedInfo: null }]));
    });
  });

  it('hear ADDED only for an unscheduled one, then SCHEDULED when it is scheduled', async () => {
    await recording(async (seen) => {
      const s = await aSubject(t.app);
      const n = await aStoredNotification(t.app, s, {}, '?schedule=false');
      await until(() => expect(mine(seen, s).map((e) => [e.messageId, e.state])).toEqual([[n.id, 'ADDED']]));
      expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/schedule`), 200);
      await until(() => expect(mine(seen, s).map((e) => [e.messageId, e.state])).toEqual([[n.id, 'ADDED'], [n.id, 'SCHEDULED']]));
    });
  });

  it('hear CANCELLED for each notification deleted by DELETE …/all, and nothing for a failed request', async () => {
    await recording(async (seen) => {
      const s = await aSubject(t.app);
      const a = await aStoredNotification(t.app, s);
      const b = await aStoredNotification(t.app, s);
      expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({ sourceId: a.sourceId, title: 'Third' })), 201);
      await until(() => expect(mine(seen, s)).toHaveLength(6));
      seen.length = 0;
      expectStatus(await postEvent(s, a.id, { state: 'FOO' }), 400);
      expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({ sourceId: a.sourceId })), 409);
      expectStatus(await call(t.app, 'DELETE', `${messagingPath(s)}/all`), 200);
      await until(() => expect(mine(seen, s).map((e) => e.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']));
      expect(mine(seen, s).map((e) => e.messageId)).toEqual(expect.arrayContaining([a.id, b.id]));
    });
  });

  it('hear CANCELLED for every message of a deleted user', async () => {
    await recording(async (seen) => {
      const s = await aSubject(t.app);
      const a = await aStoredNotification(t.app, s);
      const b = await aStoredNotification(t.app, s);
      await until(() => expect(mine(seen, s)).toHaveLength(4));
      seen.length = 0;
      expectStatus(await call(t.app, 'DELETE', `/projects/${s.projectId}/users/${s.subjectId}`), 200);
      await until(() => expect(mine(seen, s).map((e) => [e.messageId, e.state]).sort()).toEqual([[a.id, 'CANCELLED'], [b.id, 'CANCELLED']].sort()));
    });
  });

  it('hear data messages with kind "data"', async () => {
    await recording(async (seen) => {
      const projectId = await aProject(t.app);
      const s = await aSubject(t.app, { projectId });
      const d = expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), aDataMessage()), 201);
      await until(() => expect(mine(seen, s).map((e) => [e.kind, e.messageId, e.state])).toEqual([['data', d.id, 'ADDED'], ['data', d.id, 'SCHEDULED']]));
    });
  });
});
