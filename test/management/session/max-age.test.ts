/**
 * The longest life of a signed-in session (issue 28 item 5): `MANAGEMENTPORTAL_UI_SESSION_MAX_AGE`
 * after sign-in the session ends even when it was used a minute ago, for the admin pages and for
 * the API it authenticates. The management domain's clock is moved instead of sleeping.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { uiClient } from '../../helpers/ui-client.js';
import { managementClient } from '../../helpers/management-api.js';
import { loadConfig } from '../../../src/config.js';
import { oauthSessions } from '../../../src/management/schema.js';

const MINUTE = 60_000;
let offset = 0;
let t: TestApp;
beforeAll(async () => {
  // Max age one hour, idle timeout (PT30M by default) longer than the gaps between requests.
  t = await buildTestApp({ MANAGEMENTPORTAL_UI_SESSION_MAX_AGE: 'PT1H' }, { managementNow: () => Date.now() + offset });
});
afterAll(async () => t?.close());

/** The row id of a session cookie's value: the SHA-256 of the id before the signature. */
function storedIdOf(cookieValue: string): string {
  const signed = decodeURIComponent(cookieValue);
  return createHash('sha256').update(signed.slice(0, signed.lastIndexOf('.'))).digest('base64url');
}

const unauthorized = { message: 'error.unauthorized', description: 'Not signed in', fieldErrors: null };

describe('MANAGEMENTPORTAL_UI_SESSION_MAX_AGE', () => {
  it('is an ISO-8601 duration, PT12H by default', () => {
    expect(loadConfig({ PROFILE: 'dev' }, 'test').managementportalUiSessionMaxAge).toBe(12 * 3600);
    expect(loadConfig({ PROFILE: 'dev', MANAGEMENTPORTAL_UI_SESSION_MAX_AGE: 'P1DT30M' }, 'test').managementportalUiSessionMaxAge).toBe(86400 + 1800);
    expect(() => loadConfig({ PROFILE: 'dev', MANAGEMENTPORTAL_UI_SESSION_MAX_AGE: '12h' }, 'test')).toThrow(/MANAGEMENTPORTAL_UI_SESSION_MAX_AGE/);
  });

  it('ends a session in use at its max age after sign-in: the pages send to /login, the API answers 401', async () => {
    offset = 0;
    const ui = uiClient(t.app);
    expect((await ui.signIn()).status).toBe(303);
    const cookie = `mp_oauth_session=${ui.jar.get('mp_oauth_session')}`;
    const mp = managementClient(t.app);

    // Used every 20 minutes, so never idle for long: the session works up to a minute before its max age.
    for (const minutes of [20, 40, 59]) {
      offset = minutes * MINUTE;
      expect((await ui.get('/managementportal/')).status, `at ${minutes} min`).toBe(200);
      expect((await mp.call('GET', '/api/account', { headers: { cookie } })).status, `at ${minutes} min`).toBe(200);
    }

    // A minute after its last use, and past its max age.
    offset = 60 * MINUTE + 1000;
    const api = await mp.call('GET', '/api/account', { headers: { cookie } });
    expect(api.status).toBe(401);
    expect(api.body).toEqual(unauthorized);
    const page = await ui.get('/managementportal/');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/\/managementportal\/login\?next=/);
    // Signing in again gives a new session of a full max age.
    expect((await ui.signIn()).status).toBe(303);
    offset = 85 * MINUTE;
    expect((await ui.get('/managementportal/')).status).toBe(200);
  });

  it('never extends a signed-in session past its max age: the stored expiry is capped', async () => {
    offset = 0;
    const ui = uiClient(t.app);
    await ui.signIn();
    for (const minutes of [20, 40]) {
      offset = minutes * MINUTE;
      expect((await ui.get('/managementportal/')).status).toBe(200);
    }
    const [row] = await t.app.db.db.select().from(oauthSessions).where(eq(oauthSessions.id, storedIdOf(ui.jar.get('mp_oauth_session')!)));
    // The idle timeout alone would say 40 + 30 minutes; the max age says 60.
    expect(row!.expiresAt.getTime()).toBe(row!.authenticatedAt!.getTime() + 60 * MINUTE);
  });
});
