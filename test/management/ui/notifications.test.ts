/**
 * The notification pages (issue 19 item 13): an admin finds a project's app users and a user's
 * notifications with their state history, and sends a test notification that the scheduler
 * delivers to FCM (the stub). Viewing needs SUBJECT.READ and sending SUBJECT.UPDATE on the
 * (project, subject): a project admin of another project gets 403 and sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot, signIn, startUiApp, type UiTestApp, chromiumInstalled } from '../../helpers/browser.js';
import { startFcmStub, type FcmStub } from '../../helpers/fcm-stub.js';
import { until } from '../../helpers/eventually.js';
import { aProject as anAppserverProject, aSubject, unique, type Subject } from '../../fixtures/appserver.js';
import { aProject } from '../../fixtures/management.js';
import { managementClient } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { requires } from '../../helpers/requires.js';
import { eq } from 'drizzle-orm';
import { auditEvents } from '../../../src/management/schema.js';

let stub: FcmStub;
let t: UiTestApp;
let subject: Subject;

beforeAll(async () => {
  stub = await startFcmStub();
  t = await startUiApp({ SCHEDULER_ENABLED: 'true', SCHEDULER_TICK_MS: '100', FCM_EMULATOR_HOST: stub.host, FCM_PROJECT_ID: 'stub-project' });
  const projectId = await anAppserverProject(t.app);
  await aProject(t.app.db.db, projectId);
  subject = await aSubject(t.app, { projectId });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('notification pages in the browser', requires(chromiumInstalled), () => {
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); });
  afterAll(async () => browser?.close());

  it('shows the app users and sends a test notification that reaches FCM', async () => {
    const page = await browser.newPage();
    await page.goto(`${t.base}/notifications`);
    await signIn(page, t.base);
    await screenshot(page, 'notifications-projects');
    await page.getByRole('link', { name: subject.projectId, exact: true }).click();
    await expect.poll(() => page.getByRole('cell', { name: subject.subjectId }).count()).toBe(1);
    await screenshot(page, 'notifications-users');
    await page.getByRole('link', { name: subject.subjectId, exact: true }).click();
    await screenshot(page, 'notifications-user-empty');

    // Before sending: where push goes from here (issue 31 item 9).
    expect(await page.getByRole('note').filter({ hasText: 'FCM emulator' }).textContent()).toContain(`FCM emulator at ${stub.host}`);
    expect(await page.getByRole('alert').count()).toBe(0);

    const title = unique('Hello from the portal');
    await page.getByLabel('Title', { exact: true }).fill(title);
    await page.getByRole('button', { name: 'Send test notification' }).click();
    await page.getByRole('status').waitFor();

    await until(() => {
      const sent = stub.received.find((r) => (r.message.notification as { title?: string } | undefined)?.title === title);
      expect(sent?.message.token).toBe(subject.user.fcmToken);
    });
    // The page shows it with its state history, as the API names the states.
    await expect.poll(async () => {
      await page.reload();
      return page.getByRole('row').filter({ hasText: title }).textContent();
    }, { timeout: 30_000 }).toMatch(/Handed to FCM \(EXECUTED\)|Delivered: the app reported it \(DELIVERED\)/);
    const row = page.getByRole('row').filter({ hasText: title });
    await row.getByText('State history').click();
    const history = await row.getByRole('listitem').allTextContents();
    expect(history.map((item) => item.split(' ')[0])).toEqual(expect.arrayContaining(['ADDED', 'SCHEDULED']));
    await screenshot(page, 'notifications-user');
    await page.close();
    // The audit trail names who sent it, from where, to whom (issue 31 item 8).
    await until(async () => {
      const sent = (await t.app.db.db.select().from(auditEvents).where(eq(auditEvents.eventType, 'TEST_NOTIFICATION_SENT')))
        .filter((e) => e.targetId === subject.subjectId);
      expect(sent).toEqual([expect.objectContaining({ principal: 'admin', targetType: 'subject', actorAddress: expect.any(String), data: expect.objectContaining({ projectId: subject.projectId, title }) })]);
    });
  });
});

describe('notification pages: permissions and bad input', () => {
  it('denies a project admin of another project: 403 for viewing and sending, nothing sent', async () => {
    const other = await aProject(t.app.db.db);
    const admin = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', { project: other.projectName }, 'Passw0rd!');
    const ui = uiClient(t.app);
    await ui.signIn(admin.login, 'Passw0rd!');
    const path = `/managementportal/notifications/${subject.projectId}/${subject.subjectId}`;
    expect((await ui.get(`/managementportal/notifications/${subject.projectId}`)).status).toBe(403);
    expect((await ui.get(path)).status).toBe(403);
    const home = await ui.get('/managementportal/');
    const before = stub.received.length;
    const sent = await ui.post(path, { _csrf: csrfOf(home.body), title: 'should not go' });
    expect(sent.status).toBe(403);
    expect(sent.body).toMatch(/role="alert"/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stub.received.slice(before).some((r) => JSON.stringify(r.message).includes('should not go'))).toBe(false);
  });

  it('answers 404 pages for unknown projects and users, and 400 for an empty title', async () => {
    const ui = uiClient(t.app);
    await ui.signIn();
    expect((await ui.get('/managementportal/notifications/no-such-project')).status).toBe(404);
    expect((await ui.get(`/managementportal/notifications/${subject.projectId}/no-such-user`)).status).toBe(404);
    const page = await ui.get(`/managementportal/notifications/${subject.projectId}/${subject.subjectId}`);
    expect(page.status).toBe(200);
    const empty = await ui.post(`/managementportal/notifications/${subject.projectId}/${subject.subjectId}`, { _csrf: csrfOf(page.body), title: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatch(/role="alert"[^>]*>A title is required\./);
  });

  it('answers a 404 page, and sends nothing, for a test notification to an unknown app user', async () => {
    const ui = uiClient(t.app);
    await ui.signIn();
    const page = await ui.get(`/managementportal/notifications/${subject.projectId}/${subject.subjectId}`);
    const res = await ui.post(`/managementportal/notifications/${subject.projectId}/no-such-user`, { _csrf: csrfOf(page.body), title: 'nobody' });
    expect(res.status).toBe(404);
    expect(res.body).toMatch(/role="alert"/);
  });
});
