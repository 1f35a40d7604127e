/**
 * "Send activation link" says what became of the mail (issue 31 item 9): without a mail server
 * (no SMTP_URL) or without the user's e-mail address the page says that no mail was sent and why,
 * and the audit trail records no ACTIVATION_MAIL_SENT. (With a mail server: users.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../../src/management/schema.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { uiClient } from '../../helpers/ui-client.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('Send activation link without a mail', () => {
  async function sendLink(email: string | undefined) {
    const api = managementClient(t.app);
    const login = unique('no-mail');
    const admin = await api.tokenOf('admin', 'admin');
    const created = await api.call('POST', '/api/users', { bearer: admin, body: { login, firstName: 'No', lastName: 'Mail', email, langKey: 'en', roles: [] } });
    expect(created.status).toBe(201);
    const ui = uiClient(t.app);
    expect((await ui.signIn()).status).toBe(303);
    const sent = await ui.submit('/users', `/users/${login}/activation`, {});
    expect(sent.status).toBe(303);
    const page = await ui.get(sent.location!);
    const events = await t.app.db.db.select().from(auditEvents)
      .where(and(eq(auditEvents.targetId, login), eq(auditEvents.eventType, 'ACTIVATION_MAIL_SENT')));
    return { login, page, events };
  }

  it('without a mail server: the page says no mail was sent, naming SMTP_URL; no ACTIVATION_MAIL_SENT', async () => {
    const { login, page, events } = await sendLink('someone@example.org');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(new RegExp(`role="alert">No activation mail was sent to ${login}: this server has no mail server configured \\(SMTP_URL\\)`));
    expect(page.body).not.toContain('was handed to the mail server');
    expect(events).toEqual([]);
  });

  it('without an e-mail address: the page says so', async () => {
    const { login, page, events } = await sendLink(undefined);
    expect(page.body).toContain(`No activation mail was sent to ${login}: the user has no e-mail address.`);
    expect(events).toEqual([]);
  });
});
