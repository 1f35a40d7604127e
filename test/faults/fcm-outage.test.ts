/**
 * Issue 22 item 8, the push half: FCM answers 503 UNAVAILABLE for 10 s (FAULT_OUTAGE_SECONDS;
 * 30 s in `npm run test:slow`) while notifications fall due. No notification is EXECUTED (nor
 * ERRORED) during the outage; each push is retried with backoff (SCHEDULER_RETRY_SECONDS 1 → 1,
 * 2, 4, 8, 16 s) and accepted exactly once after FCM recovers. Their e-mails are not held back by
 * the outage: they arrive during it.
 */
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, faultDatabase } from '../helpers/build-test-app.js';
import { startFcmStub, type FcmMessage, type FcmStub } from '../helpers/fcm-stub.js';
import { startSmtpServer, type SmtpStub } from '../helpers/smtp.js';
import { until } from '../helpers/eventually.js';
import { aNotification, aProject, aSubject, call, expectStatus, messagingPath } from '../fixtures/appserver.js';
import { messages, messageStateEvents } from '../../src/appserver/schema.js';
import { requires } from '../helpers/requires.js';

const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_SECONDS ?? 10) * 1000;
const N = 50;

describe('FCM outage', requires(faultDatabase), () => {
  let fcm: FcmStub;
  let smtp: SmtpStub;
  let t: TestApp;

  beforeAll(async () => {
    [fcm, smtp] = await Promise.all([startFcmStub(), startSmtpServer()]);
    t = await buildTestApp({
      SCHEDULER_ENABLED: 'true',
      SCHEDULER_TICK_MS: '100',
      SCHEDULER_RETRY_SECONDS: '1',
      SCHEDULER_MAX_ATTEMPTS: '20',
      FCM_EMULATOR_HOST: fcm.host,
      SMTP_URL: smtp.url,
      RADAR_NOTIFICATION_EMAIL_ENABLED: 'true',
      RADAR_NOTIFICATION_EMAIL_FROM: 'study@example.org',
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([fcm?.close(), smtp?.close()]);
  });

  it(`pushes are retried with backoff through a ${OUTAGE_MS / 1000} s outage and each is accepted once after it; none is EXECUTED on failure`, async () => {
    let down = true;
    const refused: FcmMessage[] = [];
    const accepted: FcmMessage[] = [];
    fcm.respond = (message) => {
      if (down) {
        refused.push(message);
        return 'UNAVAILABLE';
      }
      accepted.push(message);
      return undefined;
    };
    const outageStarted = Date.now();
    const projectId = await aProject(t.app);
    const subjects: { token: string; email: string; id: number }[] = [];
    for (let i = 0; i < N; i++) {
      const email = `fcm-${i}-${Date.now()}@example.org`;
      const s = await aSubject(t.app, { projectId, body: { email } });
      const n = expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({
        scheduledTime: new Date().toISOString(), ttlSeconds: 3600, emailEnabled: true,
      })), 201) as { id: number };
      subjects.push({ token: s.user.fcmToken as string, email, id: n.id });
    }
    const ids = subjects.map((s) => s.id);
    const db = t.app.db.db;
    const tokens = new Set(subjects.map((s) => s.token));

    // The mails are not held back by the push outage: each arrives, once, while FCM is down.
    await until(() => expect(smtp.mails.filter((m) => subjects.some((s) => m.to.includes(s.email)))).toHaveLength(N));
    await until(() => expect(new Set(refused.map((m) => m.token)).size).toBe(N));

    const remaining = OUTAGE_MS - (Date.now() - outageStarted);
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
    // End of the outage: nothing EXECUTED or ERRORED, every push still SCHEDULED and retried.
    const during = await db.select({ state: messages.state, attempts: messages.attempts }).from(messages).where(inArray(messages.id, ids));
    const eventsDuring = await db.select({ state: messageStateEvents.state }).from(messageStateEvents).where(inArray(messageStateEvents.messageId, ids));
    down = false;
    const recoveredAt = Date.now();
    expect(during.map((r) => r.state)).toEqual(Array(N).fill('SCHEDULED'));
    expect(eventsDuring.filter((e) => e.state === 'EXECUTED' || e.state === 'ERRORED')).toEqual([]);
    // The scheduler's attempts. Each one is itself up to 5 requests (firebase-admin retries a 503
    // after 1, 2 and 4 s), so an attempt takes ~7 s and a 30 s outage sees 1 to 4 of them, each
    // failed one kept SCHEDULED for a retry.
    const attempts = during.map((r) => r.attempts);
    if (OUTAGE_MS >= 20_000) expect(Math.min(...attempts)).toBeGreaterThanOrEqual(1);
    const refusedPerPush = new Map<string, number>();
    for (const m of refused) refusedPerPush.set(m.token!, (refusedPerPush.get(m.token!) ?? 0) + 1);
    expect(Math.min(...refusedPerPush.values())).toBeGreaterThanOrEqual(2);
    // Backoff, not an attempt every tick: 1 + 2 + 4 + 8 + 16 s lets at most 6 attempts into 30 s (300 ticks).
    expect(Math.max(...attempts)).toBeLessThanOrEqual(Math.ceil(Math.log2(OUTAGE_MS / 1000 + 1)) + 1);

    // FCM recovers: every push is accepted exactly once, then EXECUTED (one event each, no ERRORED).
    await until(async () => {
      const rows = await db.select({ state: messages.state }).from(messages).where(inArray(messages.id, ids));
      expect(rows.map((r) => r.state)).toEqual(Array(N).fill('EXECUTED'));
    }, 60_000);
    const recoveredInMs = Date.now() - recoveredAt;
    const acceptedOwn = accepted.filter((m) => tokens.has(m.token!));
    expect(acceptedOwn).toHaveLength(N);
    expect(new Set(acceptedOwn.map((m) => m.token)).size).toBe(N);
    const events = await db.select({ state: messageStateEvents.state }).from(messageStateEvents).where(inArray(messageStateEvents.messageId, ids));
    expect(events.filter((e) => e.state === 'EXECUTED')).toHaveLength(N);
    expect(events.filter((e) => e.state === 'ERRORED')).toEqual([]);
    // The retries did not send the mails again.
    expect(smtp.mails.filter((m) => subjects.some((s) => m.to.includes(s.email)))).toHaveLength(N);
    // Each attempt but the last was a counted retry.
    const final = await db.select({ attempts: messages.attempts }).from(messages).where(inArray(messages.id, ids));
    const retried = (await t.app.metrics.getSingleMetric('appserver_messages_retried_total')!.get()).values.reduce((a, v) => a + v.value, 0);
    expect(retried).toBe(final.reduce((a, r) => a + r.attempts, 0) - N);
    console.info(`[figures] fcm outage ${OUTAGE_MS / 1000} s: ${N} pushes, ${retried} scheduler retries (max ${Math.max(...attempts)} attempts per push during the outage), `
      + `${refused.length} requests refused by the stub, `
      + `all ${N} EXECUTED ${(recoveredInMs / 1000).toFixed(1)} s after recovery, 0 duplicates, 0 EXECUTED during the outage, ${N} mails delivered during it`);
  }, OUTAGE_MS + 90_000);
});
