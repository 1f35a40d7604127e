/**
 * Delivery through the real firebase-admin client to a local FCM stub (FCM_EMULATOR_HOST):
 * message shapes, state events, TTL rules, token errors and retries. The scheduler ticks every
 * 20 ms; tests poll with deadlines.
 */
import { eq } from 'drizzle-orm';
import { until } from '../../helpers/eventually.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appserverEvents, type MessageStateChange } from '../../../src/appserver/events.js';
import { listStateEvents } from '../../../src/appserver/messages/queries.js';
import { messages } from '../../../src/appserver/schema.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { startFcmStub, type FcmStub, type Received } from '../../helpers/fcm-stub.js';
import {
  aDataMessage, aNotification, aSubject, call, expectStatus, messagingPath, type Subject,
} from '../../fixtures/appserver.js';

let stub: FcmStub;
let t: TestApp;
const heard: MessageStateChange[] = [];

beforeAll(async () => {
  stub = await startFcmStub();
  t = await buildTestApp({
    SCHEDULER_ENABLED: 'true',
    SCHEDULER_TICK_MS: '20',
    SCHEDULER_RETRY_SECONDS: '0',
    SCHEDULER_MAX_ATTEMPTS: '3',
    FCM_EMULATOR_HOST: stub.host,
    FCM_PROJECT_ID: 'stub-project',
  }, process.env.DEBUG_LOG ? { logger: { level: 'debug' } } : {});
  appserverEvents(t.app.events).subscribe('message.state', (e) => { heard.push(e); });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});
beforeEach(() => { stub.respond = () => undefined; });

const token = (s: Subject) => s.user.fcmToken as string;
const sentTo = (tok: string): Received[] => stub.received.filter((r) => r.message.token === tok);
const now = () => new Date().toISOString();

/** A message's state events: through the API for notifications; data messages have no such endpoint. */
async function stateEvents(s: Subject, id: number, kind: 'notifications' | 'data' = 'notifications') {
  if (kind === 'data') return listStateEvents(t.app.db.db, id);
  return expectStatus(await call(t.app, 'GET', `${messagingPath(s, kind)}/${id}/state_events`), 200) as { state: string; associatedInfo: string | null }[];
}

/** Waits until the message has reached one of the final states; returns its events. */
async function settled(s: Subject, id: number, kind: 'notifications' | 'data' = 'notifications', timeoutMs = 5000) {
  let events: { state: string; associatedInfo: string | null }[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    events = await stateEvents(s, id, kind);
    if (events.some((e) => e.state === 'EXECUTED' || e.state === 'ERRORED')) return events;
    if (Date.now() > deadline) expect.fail(`message ${id} not settled: ${JSON.stringify(events)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function addNotification(s: Subject, overrides: Record<string, unknown> = {}) {
  return expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({ scheduledTime: now(), ...overrides })), 201) as { id: number };
}

describe('a notification due now', () => {
  it('reaches FCM with the §5.3 shape (fixed), and gets SCHEDULED then EXECUTED', async () => {
    const s = await aSubject(t.app);
    const n = await addNotification(s, {
      title: 'Questionnaire', body: 'Time to fill in', ttlSeconds: 3600,
      additionalData: { questionnaire: 'phq8' }, subtitle: 'Daily', badge: '3', color: '#FF0000',
      androidChannelId: 'reminders', clickAction: 'OPEN', mutableContent: true, sound: 'ping.caf',
    });
    const events = await settled(s, n.id);
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'EXECUTED']);
    expect(events[2]!.associatedInfo).toBeNull();

    const [received, ...more] = sentTo(token(s));
    expect(more).toEqual([]);
    expect(received!.project).toBe('stub-project');
    expect(received!.authorization).toBe('Bearer emulator-token');
    const ttl = Number(/^(\d+)s$/.exec(received!.message.android ? (received!.message.android as { ttl: string }).ttl : '')?.[1]);
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect(received!.message).toEqual({
      token: token(s),
      notification: { title: 'Questionnaire', body: 'Time to fill in' },
      data: { questionnaire: 'phq8' },
      android: {
        priority: 'high',
        ttl: `${ttl}s`,
        data: { questionnaire: 'phq8' },
        notification: { title: 'Questionnaire', body: 'Time to fill in', sound: 'ping.caf', channel_id: 'reminders', color: '#FF0000', click_action: 'OPEN' },
      },
      apns: {
        headers: { 'apns-push-type': 'alert', 'apns-expiration': expect.stringMatching(/^\d{10}$/) },
        payload: {
          questionnaire: 'phq8',
          aps: { alert: { title: 'Questionnaire', body: 'Time to fill in', subtitle: 'Daily' }, sound: 'ping.caf', badge: 3, 'mutable-content': 1 },
        },
      },
    });
    // A listener hears SCHEDULED (from the add) and EXECUTED (from the scheduler).
    await until(() => {
      expect(heard.filter((e) => e.messageId === n.id).map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'EXECUTED']);
    });
    expect(heard.find((e) => e.messageId === n.id && e.state === 'EXECUTED')).toMatchObject({
      kind: 'notification', projectId: s.projectId, subjectId: s.subjectId, associatedInfo: null,
    });
  });

  it('without a body sends no "null" body and no image; default sound and HIGH priority', async () => {
    const s = await aSubject(t.app);
    const n = await addNotification(s, { body: null, ttlSeconds: 0 });
    await settled(s, n.id);
    const message = sentTo(token(s))[0]!.message as { notification: unknown; android: { notification: unknown; priority: string; ttl: string }; apns: { payload: { aps: unknown } } };
    expect(message.notification).toEqual({ title: 'Test Title' });
    expect(message.android).toMatchObject({ priority: 'high', ttl: '0s', notification: { title: 'Test Title', sound: 'default' } });
    expect(message.apns.payload.aps).toEqual({ alert: { title: 'Test Title' }, sound: 'default' });
  });

  it('goes to a topic as a topic, and to a condition alone', async () => {
    const s = await aSubject(t.app);
    const topic = await addNotification(s, { fcmTopic: 'study-a' });
    const condition = await addNotification(s, { fcmCondition: "'a' in topics && 'b' in topics", fcmTopic: 'ignored' });
    await settled(s, topic.id);
    await settled(s, condition.id);
    const byTopic = stub.received.filter((r) => r.message.topic === 'study-a');
    expect(byTopic).toHaveLength(1);
    expect(byTopic[0]!.message.token).toBeUndefined();
    const byCondition = stub.received.filter((r) => r.message.condition === "'a' in topics && 'b' in topics");
    expect(byCondition).toHaveLength(1);
    expect(byCondition[0]!.message).not.toHaveProperty('token');
    expect(byCondition[0]!.message).not.toHaveProperty('topic');
  });
});

describe('a data message due now', () => {
  it('is data only, Android NORMAL, APNs background with priority 5', async () => {
    const s = await aSubject(t.app);
    const d = expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), aDataMessage({ scheduledTime: now(), ttlSeconds: 600, dataMap: { action: 'SYNC' } })), 201);
    const events = await settled(s, d.id, 'data');
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'EXECUTED']);
    const [received] = sentTo(token(s));
    expect(received!.message).toEqual({
      token: token(s),
      data: { action: 'SYNC' },
      android: { priority: 'normal', ttl: expect.stringMatching(/^(59\d|600)s$/), data: { action: 'SYNC' } },
      apns: {
        headers: { 'apns-push-type': 'background', 'apns-priority': '5', 'apns-expiration': expect.stringMatching(/^\d{10}$/) },
        payload: { action: 'SYNC', aps: { 'content-available': 1 } },
      },
    });
  });
});

describe('time to live', () => {
  it('an expired notification is not sent: ERRORED expired', async () => {
    const s = await aSubject(t.app);
    const n = await addNotification(s, { scheduledTime: new Date(Date.now() - 120_000).toISOString(), ttlSeconds: 60 });
    const events = await settled(s, n.id);
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'ERRORED']);
    expect(JSON.parse(events[2]!.associatedInfo!)).toEqual({ error: 'expired', error_description: expect.stringContaining('60 s') });
    expect(sentTo(token(s))).toEqual([]);
  });

  it('a late notification is sent with its TTL reduced by the lateness; TTL 0 is sent however late', async () => {
    const s = await aSubject(t.app);
    const late = await addNotification(s, { scheduledTime: new Date(Date.now() - 100_000).toISOString(), ttlSeconds: 1000 });
    const nowOrNever = await addNotification(s, { scheduledTime: new Date(Date.now() - 3_600_000).toISOString(), ttlSeconds: 0 });
    await settled(s, late.id);
    await settled(s, nowOrNever.id);
    const ttls = sentTo(token(s)).map((r) => (r.message.android as { ttl: string }).ttl).sort();
    expect(ttls).toEqual(['0s', expect.stringMatching(/^(89\d|900)s$/)]);
  });

  it('TTL is clamped to 28 days', async () => {
    const s = await aSubject(t.app);
    const n = await addNotification(s, { ttlSeconds: 60 * 24 * 3600 });
    await settled(s, n.id);
    expect((sentTo(token(s))[0]!.message.android as { ttl: string }).ttl).toBe(`${28 * 24 * 3600}s`);
  });
});

describe('FCM errors', () => {
  it('UNREGISTERED: ERRORED, the user\'s token is cleared, and the next message is ERRORED no_token', async () => {
    const s = await aSubject(t.app);
    stub.respond = (m) => (m.token === token(s) ? 'UNREGISTERED' : undefined);
    const n = await addNotification(s);
    const events = await settled(s, n.id);
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'ERRORED']);
    expect(JSON.parse(events[2]!.associatedInfo!)).toEqual({ error: 'unregistered', error_description: expect.stringContaining('messaging/registration-token-not-registered') });
    const user = expectStatus(await call(t.app, 'GET', `/projects/${s.projectId}/users/${s.subjectId}`), 200);
    expect(user.fcmToken).toBeNull();

    const next = await addNotification(s);
    const nextEvents = await settled(s, next.id);
    expect(JSON.parse(nextEvents.at(-1)!.associatedInfo!)).toMatchObject({ error: 'no_token' });
    expect(sentTo(token(s))).toHaveLength(1);
  });

  it('INTERNAL is retried; the message is EXECUTED once FCM accepts it, and counted', async () => {
    const s = await aSubject(t.app);
    let refused = 0;
    stub.respond = (m) => (m.token === token(s) && refused++ < 2 ? 'INTERNAL' : undefined);
    const before = await retriedCount();
    const n = await addNotification(s);
    const events = await settled(s, n.id);
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'EXECUTED']);
    expect(sentTo(token(s))).toHaveLength(3);
    expect(await retriedCount()).toBe(before + 2);
  });

  it('QUOTA_EXCEEDED past the attempt limit: ERRORED unavailable, never EXECUTED', async () => {
    const s = await aSubject(t.app);
    stub.respond = (m) => (m.token === token(s) ? 'QUOTA_EXCEEDED' : undefined);
    const n = await addNotification(s);
    const events = await settled(s, n.id);
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'ERRORED']);
    expect(JSON.parse(events[2]!.associatedInfo!)).toMatchObject({ error: 'unavailable', error_description: expect.stringContaining('after 3 attempts') });
    expect(sentTo(token(s))).toHaveLength(3);
  });

  it('INVALID_ARGUMENT about the payload: ERRORED fcm_error, the token is kept', async () => {
    const s = await aSubject(t.app);
    stub.respond = (m) => (m.token === token(s) ? { code: 'INVALID_ARGUMENT', message: 'Invalid value at message.data' } : undefined);
    const n = await addNotification(s);
    const events = await settled(s, n.id);
    expect(JSON.parse(events.at(-1)!.associatedInfo!)).toMatchObject({ error: 'fcm_error' });
    const user = expectStatus(await call(t.app, 'GET', `/projects/${s.projectId}/users/${s.subjectId}`), 200);
    expect(user.fcmToken).toBe(token(s));
  });

  it('a batch of 300 with six refused: the refused ones are ERRORED, every other EXECUTED, each sent once and counted once', async () => {
    // 300 due in the same second go out in one claim and one sendEach; each outcome must land on
    // its own message, and the sent counter (incremented once per batch and kind) counts 294.
    const s = await aSubject(t.app);
    const sentBefore = await counted('appserver_messages_sent_total');
    const at = new Date(Date.now() + 1500).toISOString();
    const refused = new Set(Array.from({ length: 6 }, (_, i) => `slice ${i * 50 + 7}`));
    stub.respond = (m) => (m.token === token(s) && refused.has((m.notification as { title?: string } | undefined)?.title ?? '')
      ? { code: 'INVALID_ARGUMENT', message: 'Invalid value at message.data' }
      : undefined);
    for (const from of [0, 150]) {
      const notifications = Array.from({ length: 150 }, (_, i) => aNotification({ scheduledTime: at, title: `slice ${from + i}` }));
      expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/batch`, { notifications }), 200);
    }
    const states = () => t.app.db.db.select({ title: messages.title, state: messages.state }).from(messages).where(eq(messages.userId, s.user.id));
    await until(async () => {
      expect((await states()).filter((m) => m.state !== 'EXECUTED' && m.state !== 'ERRORED')).toEqual([]);
    });
    const rows = await states();
    expect(new Set(rows.filter((m) => m.state === 'ERRORED').map((m) => m.title))).toEqual(refused);
    expect(rows.filter((m) => m.state === 'EXECUTED')).toHaveLength(294);
    expect(await counted('appserver_messages_sent_total')).toBe(sentBefore + 294);
    const titles = sentTo(token(s)).map((r) => (r.message.notification as { title: string }).title);
    expect(titles).toHaveLength(300);
    expect(new Set(titles).size).toBe(300);
  });
});

describe('metrics', () => {
  it('/actuator/prometheus shows sent, errored, retried and the lateness histogram', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/actuator/prometheus', headers: { authorization: `Basic ${Buffer.from('radar:radar').toString('base64')}` } });
    expect(res.statusCode).toBe(200);
    for (const name of ['appserver_messages_sent_total', 'appserver_messages_errored_total', 'appserver_messages_retried_total', 'appserver_messages_lateness_seconds_bucket']) {
      expect(res.body).toContain(name);
    }
  });
});

const retriedCount = () => counted('appserver_messages_retried_total');

/** A counter's total for notifications. */
async function counted(name: string): Promise<number> {
  const metric = await t.app.metrics.getSingleMetric(name)!.get();
  return metric.values.filter((v) => v.labels.kind === 'notification').reduce((sum, v) => sum + v.value, 0);
}
