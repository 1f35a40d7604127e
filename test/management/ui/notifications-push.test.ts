/**
 * The notifications page says where a test notification goes before a coordinator sends one
 * (issue 31 item 9): with push off (no FCM sender) an alert says no phone receives it, and an
 * instance without a scheduler says another instance must send. (The emulator's note and the
 * state labels: notifications.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aProject as anAppserverProject, aSubject } from '../../fixtures/appserver.js';
import { aProject } from '../../fixtures/management.js';
import { uiClient } from '../../helpers/ui-client.js';

let t: TestApp;
// Dev profile without FCM credentials or emulator: FCMSERVER_FCMSENDER=auto resolves to disabled.
beforeAll(async () => { t = await buildTestApp({ SCHEDULER_ENABLED: 'false' }); });
afterAll(async () => { await t.close(); });

describe('the notifications page without push', () => {
  it('says push is off and that this instance runs no scheduler', async () => {
    const projectId = await anAppserverProject(t.app);
    await aProject(t.app.db.db, projectId);
    const subject = await aSubject(t.app, { projectId });
    const ui = uiClient(t.app);
    expect((await ui.signIn()).status).toBe(303);
    const page = await ui.get(`/notifications/${projectId}/${subject.subjectId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('role="alert" class="alert">Push is off on this server (FCMSERVER_FCMSENDER=disabled, or no FCM credentials)');
    expect(page.body).toContain('This instance runs no scheduler (SCHEDULER_ENABLED=false)');
    expect(page.body).not.toContain('FCM emulator');
  });
});
