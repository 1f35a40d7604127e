/**
 * The scheduler wakes at a message's due time when that comes before its next tick: with a long
 * tick, a notification scheduled 700 ms ahead reaches FCM at its time, never before it, and well
 * before the next tick would have found it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { startFcmStub, type FcmStub } from '../../helpers/fcm-stub.js';
import { aNotification, aSubject, call, expectStatus, messagingPath } from '../../fixtures/appserver.js';

const TICK_MS = 10_000;
let stub: FcmStub;
let t: TestApp;

beforeAll(async () => {
  stub = await startFcmStub();
  t = await buildTestApp({
    SCHEDULER_ENABLED: 'true',
    SCHEDULER_TICK_MS: String(TICK_MS),
    FCM_EMULATOR_HOST: stub.host,
    FCM_PROJECT_ID: 'stub-project',
  });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('a notification due before the next tick', () => {
  it('is sent at its scheduled time, not before it and not a tick later', async () => {
    const s = await aSubject(t.app);
    // Let the first tick (run at start) pass, so only a wake-up can send it before the next one.
    await t.app.ready();
    const due = new Date(Date.now() + 700);
    expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification({ scheduledTime: due.toISOString() })), 201);

    const deadline = Date.now() + TICK_MS / 2;
    while (stub.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const [received] = stub.received;
    expect(received, 'not sent before half a tick had passed').toBeDefined();
    expect(received!.at).toBeGreaterThanOrEqual(due.getTime());
    expect(received!.at - due.getTime()).toBeLessThan(TICK_MS / 2);
  });
});
