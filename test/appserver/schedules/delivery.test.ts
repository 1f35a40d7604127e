/**
 * Generated notifications go out through the scheduler's normal path: FCM through real
 * firebase-admin to the local stub, and e-mail (protocol `notification.email.enabled` and
 * RADAR_NOTIFICATION_EMAIL_ENABLED) with the protocol's e-mail texts, through a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { startFcmStub, type FcmStub } from '../../helpers/fcm-stub.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { until } from '../../helpers/eventually.js';
import { call, expectStatus, messagingPath } from '../../fixtures/appserver.js';
import { aProtocol, anAssessment } from '../../fixtures/protocols.js';
import { fixedProtocols, type FixedProtocols } from '../../fixtures/protocol-source.js';
import { aSubjectWithProtocol, storedNotifications } from './helpers.js';

let stub: FcmStub;
let smtp: SmtpStub;
let t: TestApp;
let source: FixedProtocols;

beforeAll(async () => {
  [stub, smtp] = await Promise.all([startFcmStub(), startSmtpServer()]);
  source = fixedProtocols();
  t = await buildTestApp({
    SCHEDULER_ENABLED: 'true', SCHEDULER_TICK_MS: '20', FCM_EMULATOR_HOST: stub.host, SMTP_URL: smtp.url,
    RADAR_NOTIFICATION_EMAIL_ENABLED: 'true', RADAR_NOTIFICATION_EMAIL_FROM: 'study@example.org', QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0',
  }, { protocolSource: source });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([stub?.close(), smtp?.close()]);
});

/** A daily assessment whose task starts `inMs` from now (so its notification falls due during the test). */
const dueSoon = (name: string, inMs: number, notification: Record<string, unknown>) => aProtocol([anAssessment(name, {
  protocol: {
    referenceTimestamp: { timestamp: new Date(Date.now() + inMs).toISOString(), format: 'datetimeutc' },
    repeatQuestionnaire: { unit: 'min', unitsFromZero: [0] },
    reminders: { unit: 'min', amount: 30, repeat: 1 },
    notification,
  },
})]);

describe('generated notifications on the scheduler path', () => {
  it('the task notification reaches FCM once, at its time, with the protocol texts and the reference fields; its events follow', async () => {
    const protocol = dueSoon('PHQ8', 1500, { mode: 'standard', title: { en: 'PHQ8 time' }, text: { en: 'Two minutes, please' } });
    const s = await aSubjectWithProtocol(t.app, source, protocol, 7);
    // The first task's notification (its reminder, half an hour later, shares the protocol's title).
    const now = (await storedNotifications(t.app, s.user.id)).find((m) => m.title === 'PHQ8 time')!;
    await until(() => expect(stub.received.filter((r) => r.message.token === s.user.fcmToken)).toHaveLength(1));
    const [received] = stub.received.filter((r) => r.message.token === s.user.fcmToken);
    expect(received!.message).toMatchObject({ notification: { title: 'PHQ8 time', body: 'Two minutes, please' } });
    expect(received!.at).toBeGreaterThanOrEqual(now.scheduledTime.getTime());
    await until(async () => {
      const events = expectStatus(await call(t.app, 'GET', `${messagingPath(s)}/${now.id}/state_events`), 200) as { state: string }[];
      expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED', 'EXECUTED']);
    });
  });

  it("e-mail goes with the push when the protocol enables it, with the protocol's e-mail texts", async () => {
    const email = `sched-${Date.now()}@example.org`;
    const protocol = dueSoon('ESM', 1500, {
      mode: 'standard', title: { en: 'ESM time' }, text: { en: 'Open the app' },
      email: { enabled: true, title: { en: 'Your ESM questionnaire' }, text: { en: 'Please open the app to answer.' } },
    });
    const s = await aSubjectWithProtocol(t.app, source, protocol, 7, { email });
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1));
    expect(smtp.mails.find((m) => m.to.includes(email))).toMatchObject({ from: 'study@example.org', subject: 'Your ESM questionnaire', text: 'Please open the app to answer.' });
    expect(stub.received.filter((r) => r.message.token === s.user.fcmToken)).toHaveLength(1);
  });
});
