/**
 * Notification e-mails (appserver.md §9) through nodemailer to a real SMTP server on loopback,
 * beside the push to the FCM stub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { startFcmStub, type FcmStub } from '../../helpers/fcm-stub.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { aNotification, aSubject, call, expectStatus, messagingPath, type Subject } from '../../fixtures/appserver.js';
import { until } from '../../helpers/eventually.js';

let stub: FcmStub;
let smtp: SmtpStub;
let t: TestApp;

beforeAll(async () => {
  [stub, smtp] = await Promise.all([startFcmStub(), startSmtpServer()]);
  t = await buildTestApp({
    SCHEDULER_ENABLED: 'true',
    SCHEDULER_TICK_MS: '20',
    FCM_EMULATOR_HOST: stub.host,
    SMTP_URL: smtp.url,
    RADAR_NOTIFICATION_EMAIL_ENABLED: 'true',
    RADAR_NOTIFICATION_EMAIL_FROM: 'study@example.org',
  });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([stub?.close(), smtp?.close()]);
});

async function executed(s: Subject, overrides: Record<string, unknown>) {
  const n = expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({ scheduledTime: new Date().toISOString(), ...overrides })), 201);
  await until(async () => {
    const events = expectStatus(await call(t.app, 'GET', `${messagingPath(s)}/${n.id}/state_events`), 200) as { state: string }[];
    expect(events.map((e) => e.state)).toContain('EXECUTED');
  });
  return n;
}


describe('notification e-mail', () => {
  it('goes to the user as plain text with emailTitle and emailBody, beside the push', async () => {
    const email = `p-${Date.now()}@example.org`;
    const s = await aSubject(t.app, { body: { email } });
    await executed(s, { emailEnabled: true, emailTitle: 'Your questionnaire', emailBody: 'Please open the app.' });
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1));
    const [mail] = smtp.mails.filter((m) => m.to.includes(email));
    expect(mail).toMatchObject({ from: 'study@example.org', subject: 'Your questionnaire', text: 'Please open the app.' });
    expect(mail!.raw).toMatch(/^Content-Type: text\/plain/im);
    expect(stub.received.filter((r) => r.message.token === s.user.fcmToken)).toHaveLength(1);
  });

  it('falls back to title and body', async () => {
    const email = `q-${Date.now()}@example.org`;
    const s = await aSubject(t.app, { body: { email } });
    await executed(s, { emailEnabled: true, title: 'Reminder', body: 'Fill in today' });
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1));
    expect(smtp.mails.find((m) => m.to.includes(email))).toMatchObject({ subject: 'Reminder', text: 'Fill in today' });
  });

  it('is not sent without emailEnabled', async () => {
    const email = `r-${Date.now()}@example.org`;
    const s = await aSubject(t.app, { body: { email } });
    await executed(s, { emailEnabled: false });
    const marker = await aSubject(t.app, { body: { email: `marker-${email}` } });
    await executed(marker, { emailEnabled: true });
    await until(() => expect(smtp.mails.some((m) => m.to.includes(`marker-${email}`))).toBe(true));
    expect(smtp.mails.filter((m) => m.to.includes(email))).toEqual([]);
  });

  it('is skipped for a user without an e-mail address, whose push still goes out', async () => {
    const before = smtp.mails.length;
    const s = await aSubject(t.app);
    await executed(s, { emailEnabled: true });
    expect(stub.received.filter((r) => r.message.token === s.user.fcmToken)).toHaveLength(1);
    const marker = `marker-${Date.now()}@example.org`;
    await executed(await aSubject(t.app, { body: { email: marker } }), { emailEnabled: true });
    await until(() => expect(smtp.mails.some((m) => m.to.includes(marker))).toBe(true));
    expect(smtp.mails.slice(before).map((m) => m.to)).toEqual([[marker]]);
  });

  it('goes again with the push when a sent notification is rescheduled, and only then', async () => {
    const email = `again-${Date.now()}@example.org`;
    const s = await aSubject(t.app, { body: { email } });
    const n = await executed(s, { emailEnabled: true, title: 'First' }) as { id: number };
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1));
    const later = new Date(Date.now() + 500).toISOString();
    expectStatus(await call(t.app, 'PUT', messagingPath(s), aNotification({ id: n.id, scheduledTime: later, emailEnabled: true, title: 'Second' })), 200);
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email)).map((m) => m.subject)).toEqual(['First', 'Second']));
    await until(() => expect(stub.received.filter((r) => r.message.token === s.user.fcmToken)).toHaveLength(2));
  });

  it('a refused mail does not hold up the push: the notification is EXECUTED and the failure counted', async () => {
    smtp.refuse = 'mailbox unavailable';
    try {
      const s = await aSubject(t.app, { body: { email: `x-${Date.now()}@example.org` } });
      await executed(s, { emailEnabled: true });
      await until(async () => {
        const metric = await t.app.metrics.getSingleMetric('appserver_notification_emails_total')!.get();
        expect(metric.values.find((v) => v.labels.result === 'failed')?.value).toBeGreaterThanOrEqual(1);
      });
    } finally {
      smtp.refuse = undefined;
    }
  });
});
