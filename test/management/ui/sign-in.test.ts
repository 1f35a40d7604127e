/**
 * The admin UI's sign-in and session (issue 19 items 3, 4): redirects to `/login` and back (this
 * site only), wrong passwords, cookie flags, a new session id at sign-in, CSRF on every form,
 * sign-out deleting the session server-side, the idle timeout, the failed-attempt limits, who may
 * sign in (issue 28 item 5: no participant, with the wrong-password answer), and users deactivated
 * or left with only a participant role losing their session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { managementClient } from '../../helpers/management-api.js';
import { aProject, aParticipant, setActivated } from '../../fixtures/management.js';
import { roles, roleUsers, users } from '../../../src/management/schema.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '3', TRUST_PROXY: 'true' }); });
afterAll(async () => t?.close());

const sessionCookie = (lines: string[]) => lines.filter((line) => line.startsWith('mp_oauth_session='));

/** Leaves the user with one role: `authority` in the project. */
async function onlyRole(userId: number, authority: string, projectId: number) {
  const db = t.app.db.db;
  await db.insert(roles).values({ authorityName: authority, projectId }).onConflictDoNothing();
  const [role] = await db.select().from(roles).where(and(eq(roles.authorityName, authority), eq(roles.projectId, projectId)));
  await db.delete(roleUsers).where(eq(roleUsers.userId, userId));
  await db.insert(roleUsers).values({ userId, roleId: role!.id });
}

describe('admin UI sign-in', () => {
  it('sends a visitor without a session to /login and back to the page asked for', async () => {
    const ui = uiClient(t.app);
    const page = await ui.get('/managementportal/notifications?x=1');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/managementportal/login?next=%2Fmanagementportal%2Fnotifications%3Fx%3D1');
    const signedIn = await ui.signIn('admin', 'admin', '/managementportal/notifications?x=1');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/managementportal/notifications?x=1');
    expect((await ui.get('/managementportal/notifications?x=1')).status).toBe(200);
  });

  it.each([
    'https://evil.example/', '//evil.example/', '/\\evil.example', '/other-site/', 'javascript:alert(1)', '/managementportal/../evil',
  ])('never redirects off the site after sign-in (next=%s)', async (next) => {
    const ui = uiClient(t.app);
    const res = await ui.submit('/login', '/login', { username: 'admin', password: 'admin', next });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/managementportal\//);
    expect(res.location).not.toContain('evil');
  });

  it('shows the form again with an alert for a wrong password, and signs nobody in', async () => {
    const ui = uiClient(t.app);
    const res = await ui.submit('/login', '/login', { username: 'admin', password: 'wrong' });
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/role="alert"[^>]*>Wrong user name or password\./);
    expect(res.body).toContain('value="admin"');
    expect((await ui.get('/managementportal/')).status).toBe(303);
  });

  it('sets an httpOnly SameSite=Lax cookie on the domain path, Secure only over https, and a new id at sign-in', async () => {
    const plain = uiClient(t.app);
    await plain.get('/managementportal/login');
    const [anonymous] = sessionCookie(plain.setCookies);
    expect(anonymous).toMatch(/; Path=\/managementportal\/; HttpOnly; SameSite=Lax$/);
    expect(anonymous).not.toMatch(/Secure|Max-Age/i);
    const before = plain.jar.get('mp_oauth_session');
    await plain.post('/managementportal/login', { _csrf: csrfOf((await plain.get('/managementportal/login')).body), username: 'admin', password: 'admin' });
    expect(plain.jar.get('mp_oauth_session')).not.toBe(before);

    const tls = uiClient(t.app, '/managementportal', { 'x-forwarded-proto': 'https' });
    await tls.get('/managementportal/login');
    expect(sessionCookie(tls.setCookies)[0]).toMatch(/; Secure/);
  });

  it('refuses a POST without the session\'s CSRF token (403), and a form of another session', async () => {
    const ui = uiClient(t.app);
    await ui.signIn();
    expect((await ui.post('/managementportal/logout', {})).status).toBe(403);
    expect((await ui.post('/managementportal/logout', { _csrf: 'forged' })).status).toBe(403);
    const other = uiClient(t.app);
    const otherPage = await other.get('/managementportal/login');
    expect((await ui.post('/managementportal/logout', { _csrf: csrfOf(otherPage.body) })).status).toBe(403);
    // Still signed in: nothing was done.
    expect((await ui.get('/managementportal/')).status).toBe(200);
    // Sign-in itself needs the token of the page's session.
    const fresh = uiClient(t.app);
    await fresh.get('/managementportal/login');
    expect((await fresh.post('/managementportal/login', { username: 'admin', password: 'admin' })).status).toBe(403);
  });

  it('"Sign out" deletes the session server-side: its cookie no longer works', async () => {
    const ui = uiClient(t.app);
    await ui.signIn();
    const cookie = ui.jar.get('mp_oauth_session')!;
    const home = await ui.get('/managementportal/');
    const out = await ui.post('/managementportal/logout', { _csrf: csrfOf(home.body) });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/managementportal/login');
    const replay = await t.app.inject({ url: '/managementportal/', headers: { cookie: `mp_oauth_session=${cookie}` } });
    expect(replay.statusCode).toBe(303);
    // The API refuses it too.
    const api = await t.app.inject({ url: '/managementportal/api/account', headers: { cookie: `mp_oauth_session=${cookie}` } });
    expect(api.statusCode).toBe(401);
  });

  it('lets only the admin and users with a non-participant role in', async () => {
    const project = await aProject(t.app.db.db);
    const { login } = await aParticipant(t.app.db.db, { project, password: 'Passw0rd!' });
    const inactive = await aParticipant(t.app.db.db, { project, password: 'Passw0rd!' });
    await onlyRole(inactive.user.id, 'ROLE_INACTIVE_PARTICIPANT', project.id);
    // The answer to a wrong password, word for word: the page does not tell that a participant's password is right.
    const alert = (body: string) => /role="alert"[^>]*>([^<]*)</.exec(body)?.[1];
    const wrong = alert((await uiClient(t.app).submit('/login', '/login', { username: login, password: 'wrong' })).body);
    expect(wrong).toBe('Wrong user name or password. Study participants sign in with the app, not here.');
    for (const username of [login, inactive.login]) {
      const ui = uiClient(t.app);
      const res = await ui.submit('/login', '/login', { username, password: 'Passw0rd!' });
      expect(res.status, username).toBe(400);
      expect(alert(res.body), username).toBe(wrong);
      expect((await ui.get('/managementportal/')).status, username).toBe(303);
    }
    // The password was right, so these refusals do not count towards the failed-attempt limit (3 here).
    const again = uiClient(t.app, '/managementportal', { 'x-forwarded-for': '203.0.113.77' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await again.submit('/login', '/login', { username: login, password: 'Passw0rd!' })).status);
    expect(statuses).toEqual([400, 400, 400, 400]);

    const admin = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName }, 'Passw0rd!');
    const projectAdmin = uiClient(t.app);
    expect((await projectAdmin.signIn(admin.login, 'Passw0rd!')).status).toBe(303);
    const home = await projectAdmin.get('/managementportal/');
    expect(home.status).toBe(200);
    expect(home.body).toContain(`>${project.projectName}</a>`);
  });

  it('ends the session of a user left with only a participant role: the pages send to /login, the API answers 401', async () => {
    const project = await aProject(t.app.db.db);
    const admin = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName }, 'Passw0rd!');
    const ui = uiClient(t.app);
    await ui.signIn(admin.login, 'Passw0rd!');
    const cookie = `mp_oauth_session=${ui.jar.get('mp_oauth_session')}`;
    expect((await ui.get('/managementportal/')).status).toBe(200);
    expect((await t.app.inject({ url: '/managementportal/api/account', headers: { cookie } })).statusCode).toBe(200);
    await onlyRole(admin.userId, 'ROLE_PARTICIPANT', project.id);
    expect((await ui.get('/managementportal/')).status).toBe(303);
    const api = await t.app.inject({ url: '/managementportal/api/account', headers: { cookie } });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toEqual({ message: 'error.unauthorized', description: 'Not signed in', fieldErrors: null });
  });

  it('ends the session of a user deactivated meanwhile', async () => {
    const project = await aProject(t.app.db.db);
    const admin = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName }, 'Passw0rd!');
    const ui = uiClient(t.app);
    await ui.signIn(admin.login, 'Passw0rd!');
    expect((await ui.get('/managementportal/')).status).toBe(200);
    await setActivated(t.app.db.db, admin.userId, false);
    expect((await ui.get('/managementportal/')).status).toBe(303);
    await t.app.db.db.update(users).set({ activated: true }).where(eq(users.id, admin.userId));
  });

  it('counts failed sign-ins in the limiter: 429 with Retry-After past the limit', async () => {
    const ui = uiClient(t.app, '/managementportal', { 'x-forwarded-for': '203.0.113.9' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await ui.submit('/login', '/login', { username: 'limited-user', password: 'wrong' })).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    const limited = await ui.submit('/login', '/login', { username: 'limited-user', password: 'wrong' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatch(/role="alert"/);
  });
});

/**
 * `next` as it arrives in a URL or a form, still percent-encoded: each decodes (or normalises, or
 * is read by a browser that strips tabs and newlines) to a path starting with `//` or `/\\`.
 */
const OFF_SITE_NEXT = [
  '%2F%2Fevil.example', '%2F%5Cevil.example', '/%5Cevil.example', '/%5C/evil.example', '%2F.%2F%2Fevil.example',
  '/x/..//evil.example', '/x/%252e%252e//evil.example', '/%252F%252Fevil.example', '/%255Cevil.example',
  '%2F%09%2Fevil.example', '/%0A/evil.example', '/%0D%0A/evil.example', 'https:%2F%2Fevil.example', '%5C%5Cevil.example',
];

/** Signs in, then asks `/login` with each raw `next`: the GET (already signed in) and the form POST. */
function offSiteRedirectTests(app: () => TestApp, base: string) {
  it.each(OFF_SITE_NEXT)('never redirects off the site after sign-in (raw next=%s)', async (raw) => {
    const ui = uiClient(app().app, base);
    expect((await ui.signIn()).status).toBe(303);
    const shown = await ui.get(`${base}/login?next=${raw}`);
    expect(shown.status).toBe(303);
    expect(shown.location).toBe(`${base}/`);
    // A fresh sign-in posting the same raw value in its form.
    const fresh = uiClient(app().app, base);
    const page = await fresh.get(`${base}/login`);
    const res = await app().app.inject({
      method: 'POST', url: `${base}/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...fresh.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      payload: `_csrf=${encodeURIComponent(csrfOf(page.body))}&username=admin&password=admin&next=${raw}`,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${base}/`);
  });

  it('still goes back to a page of this site', async () => {
    const ui = uiClient(app().app, base);
    const signedIn = await ui.signIn('admin', 'admin', `${base}/users?page=1`);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`${base}/users?page=1`);
  });
}

describe('redirects after sign-in stay on this site (issue 28 item 6)', () => {
  describe('default context paths', () => {
    offSiteRedirectTests(() => t, '/managementportal');
  });

  describe('MANAGEMENTPORTAL_CONTEXT_PATH=/ (the management domain at the root), APPSERVER_CONTEXT_PATH=/appserver', () => {
    let root: TestApp;
    beforeAll(async () => { root = await buildTestApp({ MANAGEMENTPORTAL_CONTEXT_PATH: '/', APPSERVER_CONTEXT_PATH: '/appserver' }); });
    afterAll(async () => root?.close());
    offSiteRedirectTests(() => root, '');

    it('sends a visitor without a session to /login and back', async () => {
      const ui = uiClient(root.app, '');
      const page = await ui.get('/users');
      expect(page.status).toBe(303);
      expect(page.location).toBe('/login?next=%2Fusers');
      expect((await ui.signIn('admin', 'admin', '/users')).location).toBe('/users');
    });
  });
});

describe('admin UI idle timeout', () => {
  let short: TestApp;
  beforeAll(async () => { short = await buildTestApp({ MANAGEMENTPORTAL_UI_SESSION_TIMEOUT: 'PT2S' }); });
  afterAll(async () => short?.close());

  it('ends a session idle for MANAGEMENTPORTAL_UI_SESSION_TIMEOUT, and every request extends it', async () => {
    const ui = uiClient(short.app);
    await ui.signIn();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect((await ui.get('/managementportal/')).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 2300));
    const expired = await ui.get('/managementportal/');
    expect(expired.status).toBe(303);
    expect(expired.location).toMatch(/\/login\?next=/);
  });
});
