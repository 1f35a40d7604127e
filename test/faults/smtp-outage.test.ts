/**
 * Issue 22 item 8, the mail half: the SMTP server refuses connections for 10 s
 * (FAULT_OUTAGE_SECONDS; 30 s in `npm run test:slow`) while notifications that ask for e-mail fall due. The pushes go out and are EXECUTED at once;
 * each mail is kept, retried with backoff (RADAR_NOTIFICATION_EMAIL_RETRY_SECONDS 1 → 1, 2, 4, 8,
 * 16 s) and counted apart, and arrives exactly once after the server comes back on the same port.
 * On PostgreSQL, three instances share the mail queue and still send each mail once.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, faultDatabase } from '../helpers/build-test-app.js';
import { startFcmStub, type FcmStub } from '../helpers/fcm-stub.js';
import { startSmtpServer, type SmtpStub } from '../helpers/smtp.js';
import { until } from '../helpers/eventually.js';
import { aNotification, aProject, aSubject, call, expectStatus, messagingPath, type Subject } from '../fixtures/appserver.js';
import { messages, messageStateEvents } from '../../src/appserver/schema.js';
import { postgresProject, requires } from '../helpers/requires.js';

const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_SECONDS ?? 10) * 1000;
const N = 20;

const settings = (fcm: FcmStub, smtp: SmtpStub) => ({
  SCHEDULER_ENABLED: 'true',
  SCHEDULER_TICK_MS: '100',
  FCM_EMULATOR_HOST: fcm.host,
  SMTP_URL: smtp.url,
  RADAR_NOTIFICATION_EMAIL_ENABLED: 'true',
  RADAR_NOTIFICATION_EMAIL_FROM: 'study@example.org',
  RADAR_NOTIFICATION_EMAIL_RETRY_SECONDS: '1',
  RADAR_NOTIFICATION_EMAIL_MAX_ATTEMPTS: '20',
});

/** The value of one series of the e-mail counter. */
async function emailCount(t: TestApp, result: string): Promise<number> {
  const metric = await t.app.metrics.getSingleMetric('appserver_notification_emails_total')!.get();
  return metric.values.find((v) => v.labels.result === result)?.value ?? 0;
}

/** N subjects with an address each and a notification due now that asks for e-mail; returns the subjects and notification ids. */
async function dueWithEmail(t: TestApp, count: number, tag: string) {
  const projectId = await aProject(t.app);
  const subjects: (Subject & { email: string; id: number })[] = [];
  for (let i = 0; i < count; i++) {
    const email = `${tag}-${i}-${Date.now()}@example.org`;
    const s = await aSubject(t.app, { projectId, body: { email } });
    const n = expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({
      scheduledTime: new Date().toISOString(), emailEnabled: true, emailTitle: `Mail ${tag} ${i}`, emailBody: 'Please open the app.',
    })), 201) as { id: number };
    subjects.push({ ...s, email, id: n.id });
  }
  return subjects;
}

describe('SMTP outage', requires(faultDatabase), () => {
  let fcm: FcmStub;
  let smtp: SmtpStub;
  let t: TestApp;
  const mails: SmtpStub['mails'] = [];

  beforeAll(async () => {
    [fcm, smtp] = await Promise.all([startFcmStub(), startSmtpServer()]);
    t = await buildTestApp(settings(fcm, smtp));
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([fcm?.close(), smtp?.close()]);
  });

  it(`mails are retried through a ${OUTAGE_MS / 1000} s outage and arrive once after it; the pushes go out at once and are not sent again`, async () => {
    const port = Number(new URL(smtp.url).port);
    await smtp.close(); // connections to the port are refused from now on
    const outageStarted = Date.now();
    const subjects = await dueWithEmail(t, N, 'smtp');
    const ids = subjects.map((s) => s.id);
    const db = t.app.db.db;

    // The pushes are not held back: all EXECUTED, each sent once, while the mail server is down.
    await until(async () => {
      const rows = await db.select({ id: messages.id }).from(messages).where(and(inArray(messages.id, ids), eq(messages.state, 'EXECUTED')));
      expect(rows).toHaveLength(N);
    });
    const tokens = new Set(subjects.map((s) => s.user.fcmToken));
    expect(fcm.received.filter((r) => tokens.has(r.message.token))).toHaveLength(N);

    // The mails are kept (PENDING) and their failed attempts counted apart from the pushes.
    await until(async () => expect(await emailCount(t, 'retried')).toBeGreaterThanOrEqual(N));
    const remaining = OUTAGE_MS - (Date.now() - outageStarted);
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
    const during = await db.select({ state: messages.emailState, attempts: messages.emailAttempts }).from(messages).where(inArray(messages.id, ids));
    expect(during.map((r) => r.state)).toEqual(Array(N).fill('PENDING'));
    const attemptsDuringOutage = during.map((r) => r.attempts);
    expect(Math.min(...attemptsDuringOutage)).toBeGreaterThanOrEqual(2); // tried again, not given up
    // Backoff, not a retry every tick: 1 + 2 + 4 + 8 + 16 s lets at most 6 sends into 30 s (300 ticks).
    expect(Math.max(...attemptsDuringOutage)).toBeLessThanOrEqual(Math.ceil(Math.log2(OUTAGE_MS / 1000 + 1)) + 1);
    expect(await emailCount(t, 'sent')).toBe(0);
    expect(await emailCount(t, 'failed')).toBe(0);

    // The server comes back on the same port: every mail arrives, exactly once.
    smtp = await startSmtpServer({ port });
    const recoveredAt = Date.now();
    await until(() => expect(smtp.mails.filter((m) => subjects.some((s) => m.to.includes(s.email)))).toHaveLength(N), 60_000);
    mails.push(...smtp.mails);
    const arrivedAfterMs = Date.now() - recoveredAt;
    for (const s of subjects) {
      const own = smtp.mails.filter((m) => m.to.includes(s.email));
      expect(own).toHaveLength(1);
      expect(own[0]).toMatchObject({ from: 'study@example.org', text: 'Please open the app.' });
    }
    await until(async () => expect(await emailCount(t, 'sent')).toBe(N));
    const after = await db.select({ state: messages.emailState, attempts: messages.emailAttempts }).from(messages).where(inArray(messages.id, ids));
    expect(after.map((r) => r.state)).toEqual(Array(N).fill('SENT'));

    // EXECUTED reflects the push only: one EXECUTED event each, no ERRORED, no second push.
    const events = await db.select({ id: messageStateEvents.messageId, state: messageStateEvents.state }).from(messageStateEvents)
      .where(inArray(messageStateEvents.messageId, ids));
    expect(events.filter((e) => e.state === 'EXECUTED')).toHaveLength(N);
    expect(events.filter((e) => e.state === 'ERRORED')).toEqual([]);
    expect(fcm.received.filter((r) => tokens.has(r.message.token))).toHaveLength(N);
    console.info(`[figures] smtp outage ${OUTAGE_MS / 1000} s: ${N} mails, ${during.reduce((a, r) => a + r.attempts, 0)} failed sends during the outage `
      + `(max ${Math.max(...attemptsDuringOutage)} per mail), all ${N} delivered ${(arrivedAfterMs / 1000).toFixed(1)} s after recovery, 0 duplicates, ${N} pushes EXECUTED during the outage`);
  }, OUTAGE_MS + 90_000);
});

describe('notification e-mail with three instances on one PostgreSQL', requires(postgresProject), () => {
  let fcm: FcmStub;
  let smtp: SmtpStub;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    [fcm, smtp] = await Promise.all([startFcmStub(), startSmtpServer()]);
    const first = await buildTestApp({ ...settings(fcm, smtp), SCHEDULER_BATCH_SIZE: '10' });
    apps.push(first);
    // The other two on the first one's database (buildTestApp's own fresh database goes unused).
    const database = first.config.database;
    if (database.kind !== 'postgres') throw new Error('needs PostgreSQL');
    // Small batches, so the three take turns on the queue.
    const shared = { ...settings(fcm, smtp), SCHEDULER_BATCH_SIZE: '10', DATABASE_URL: database.url };
    apps.push(await buildTestApp(shared), await buildTestApp(shared));
  });
  afterAll(async () => {
    for (const t of apps.reverse()) await t.close();
    await Promise.all([fcm?.close(), smtp?.close()]);
  });

  it('each mail goes once while the three claim from one queue', async () => {
    const count = 150;
    const subjects = await dueWithEmail(apps[0]!, count, 'multi');
    await until(() => expect(smtp.mails.filter((m) => subjects.some((s) => m.to.includes(s.email)))).toHaveLength(count), 30_000);
    // Settle: nothing more arrives once every mail is SENT.
    const db = apps[0]!.app.db.db;
    await until(async () => {
      const rows = await db.select({ state: messages.emailState }).from(messages).where(inArray(messages.id, subjects.map((s) => s.id)));
      expect(rows.every((r) => r.state === 'SENT')).toBe(true);
    });
    for (const s of subjects) expect(smtp.mails.filter((m) => m.to.includes(s.email))).toHaveLength(1);
    const sentBy = await Promise.all(apps.map((t) => emailCount(t, 'sent')));
    expect(sentBy.reduce((a, b) => a + b, 0)).toBe(count);
    expect(sentBy.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    console.info(`[figures] ${count} mails over three instances: sent ${sentBy.join(' + ')}, 0 duplicates`);
  }, 60_000);
});
