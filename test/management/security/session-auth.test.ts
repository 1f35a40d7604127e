/**
 * Session authentication of the management API (issue 10 item 1): the signed-in session of the
 * OAuth pages authenticates `/api` calls without a bearer token (the admin UI's way in), with the
 * session's CSRF token required on unsafe methods. Signs in through the real pages (cookies
 * carried by hand, as in oauth/authorize/routes.test.ts).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { aParticipant, aProject, setActivated } from '../../fixtures/management.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { oauthSessions, roleUsers } from '../../../src/management/schema.js';
import type { Database } from '../../../src/platform/database.js';

const MP = '/managementportal';
const REDIRECT = 'https://admin.example.org/callback';
let t: TestApp;
let db: Database;
let mp: ReturnType<typeof managementClient>;
let webClient: string;

const unauthorized = { message: 'error.unauthorized', description: 'Not signed in', fieldErrors: null };
const csrfRejected = { message: 'error.accessDenied', description: 'Invalid or missing CSRF token', fieldErrors: null };

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  mp = managementClient(t.app);
  // A code-flow client that asks for consent, so signing in answers with a page carrying the new CSRF token.
  webClient = unique('web');
  await upsertClient(db, {
    clientId: webClient, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'],
    authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
});
afterAll(async () => { await t.close(); });

/** `name=value` of the session cookie a response sets. */
function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
  if (!header) throw new Error('no session cookie set');
  return header.split(';')[0]!;
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The sign-in page of the authorization endpoint: a session that is not signed in yet. */
async function signInPage() {
  const res = await t.app.inject({
    method: 'GET',
    url: `${MP}/oauth/authorize?${new URLSearchParams({ client_id: webClient, response_type: 'code', redirect_uri: REDIRECT })}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: sessionCookie(res), csrf: csrfOf(res.body), requestId: /name="request_id" value="([^"]+)"/.exec(res.body)?.[1] ?? '' };
}

/** Signs in through the real pages; returns the signed-in session's cookie and CSRF token. */
async function signIn(username: string, password: string) {
  const page = await signInPage();
  const res = await t.app.inject({
    method: 'POST', url: `${MP}/oauth/login`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
    payload: new URLSearchParams({ username, password, _csrf: page.csrf, request_id: page.requestId }).toString(),
  });
  expect(res.statusCode, res.body).toBe(200); // the consent page
  const session = { cookie: sessionCookie(res), csrf: csrfOf(res.body) };
  expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return session;
}

const newClient = () => ({ clientId: unique('client'), clientSecret: 'secret', scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'] });

describe('session authentication of /api', () => {
  let admin: { cookie: string; csrf: string };
  beforeAll(async () => { admin = await signIn('admin', 'admin'); });

  it('a signed-in session reads without a bearer token', async () => {
    const res = await mp.call('GET', '/api/oauth-clients', { headers: { cookie: admin.cookie } });
    expect(res.status).toBe(200);
    expect(res.body.map((c: { clientId: string }) => c.clientId)).toContain(webClient);
  });

  it('an unsafe method without the CSRF token, or with a wrong one: 403, nothing written', async () => {
    const body = newClient();
    const missing = await mp.call('POST', '/api/oauth-clients', { body, headers: { cookie: admin.cookie } });
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual(csrfRejected);
    const wrong = await mp.call('POST', '/api/oauth-clients', { body, headers: { cookie: admin.cookie, 'x-csrf-token': `${admin.csrf.slice(0, -1)}${admin.csrf.endsWith('A') ? 'B' : 'A'}` } });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual(csrfRejected);
    // Another session's token is not this session's.
    const other = await signIn('admin', 'admin');
    expect((await mp.call('POST', '/api/oauth-clients', { body, headers: { cookie: admin.cookie, 'x-csrf-token': other.csrf } })).status).toBe(403);
    expect((await mp.call('GET', `/api/oauth-clients/${body.clientId}`, { headers: { cookie: admin.cookie } })).status).toBe(404);
  });

  it('with the CSRF token in X-CSRF-Token or X-XSRF-TOKEN: the change is made', async () => {
    const body = newClient();
    const created = await mp.call('POST', '/api/oauth-clients', { body, headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ clientId: body.clientId, scope: ['SUBJECT.READ'] });
    const deleted = await mp.call('DELETE', `/api/oauth-clients/${body.clientId}`, { headers: { cookie: admin.cookie, 'x-xsrf-token': admin.csrf } });
    expect(deleted.status).toBe(200);
    expect((await mp.call('GET', `/api/oauth-clients/${body.clientId}`, { headers: { cookie: admin.cookie } })).status).toBe(404);
  });

  it('a tampered or unsigned cookie: 401 with the Bearer challenge', async () => {
    const [name, value] = admin.cookie.split('=') as [string, string];
    const decoded = decodeURIComponent(value);
    const id = decoded.slice(0, decoded.lastIndexOf('.'));
    for (const cookie of [`${name}=${encodeURIComponent(`${id.slice(0, -1)}x${decoded.slice(decoded.lastIndexOf('.'))}`)}`, `${name}=${encodeURIComponent(id)}`, `${name}=garbage`]) {
      const res = await mp.call('GET', '/api/oauth-clients', { headers: { cookie } });
      expect(res.status, cookie).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="ManagementPortal"');
      expect(res.body).toEqual(unauthorized);
    }
  });

  it('a session that has not signed in yet: 401', async () => {
    const page = await signInPage();
    const res = await mp.call('GET', '/api/oauth-clients', { headers: { cookie: page.cookie } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });

  it('after sign-out (the session gone): 401', async () => {
    const session = await signIn('admin', 'admin');
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } })).status).toBe(200);
    const signed = decodeURIComponent(session.cookie.slice(session.cookie.indexOf('=') + 1));
    const id = signed.slice(0, signed.lastIndexOf('.'));
    await db.delete(oauthSessions).where(eq(oauthSessions.id, createHash('sha256').update(id).digest('base64url')));
    const res = await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });

  it('POST /api/logout with the CSRF token ends the session and clears the cookie; without it 403 and the session lives on', async () => {
    const session = await signIn('admin', 'admin');
    const refused = await mp.call('POST', '/api/logout', { headers: { cookie: session.cookie } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(csrfRejected);
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } })).status).toBe(200);

    const res = await t.app.inject({ method: 'POST', url: `${MP}/api/logout`, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['set-cookie']).toBe('mp_oauth_session=; Path=/managementportal/; Max-Age=0; HttpOnly; SameSite=Lax');
    const after = await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(unauthorized);
    // Signing out again, or without any session, is fine too.
    expect((await t.app.inject({ method: 'POST', url: `${MP}/api/logout`, headers: { cookie: session.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `${MP}/api/logout` })).statusCode).toBe(200);
    // Another session is untouched.
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: admin.cookie } })).status).toBe(200);
  });

  it('a bearer token wins over the session', async () => {
    const withBadBearer = await mp.call('GET', '/api/oauth-clients', { bearer: 'garbage', headers: { cookie: admin.cookie } });
    expect(withBadBearer.status).toBe(401);
    expect(withBadBearer.body.description).toBe('No registered validator could authenticate this token');
    // No CSRF token needed when the bearer token authenticates.
    const created = await mp.call('POST', '/api/oauth-clients', { bearer: await mp.tokenOf('admin', 'admin'), body: newClient(), headers: { cookie: admin.cookie } });
    expect(created.status).toBe(201);
  });
});

describe('the session principal', () => {
  it("has the user's current database roles and the scopes they may be granted", async () => {
    const project = await aProject(db);
    const padmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const session = await signIn(padmin.login, 'Passw0rd');
    // Project admins read OAuth clients (OAUTHCLIENTS.READ) but may not create them (a global permission).
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } })).status).toBe(200);
    const create = await mp.call('POST', '/api/oauth-clients', { body: newClient(), headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
    expect(create.status).toBe(403);
    expect(create.body.message).toBe('error.accessDenied');
    expect(create.body.description).toMatch(/^User user-[0-9a-f]+ with client ManagementPortalapp does not have permission/);

    // Roles are read at each request: without a role but a participant's the session no longer authenticates (issue 28 item 5).
    await db.delete(roleUsers).where(eq(roleUsers.userId, padmin.userId));
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } })).status).toBe(401);
  });

  it('a participant\'s session of the OAuth pages does not authenticate the API (issue 28 item 5): 401', async () => {
    const project = await aProject(db);
    const participant = await aParticipant(db, { project, password: 'Passw0rd' });
    const session = await signIn(participant.login, 'Passw0rd');
    const res = await mp.call('GET', '/api/account', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });

  it('a user deactivated after signing in: 401', async () => {
    const project = await aProject(db);
    const padmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const session = await signIn(padmin.login, 'Passw0rd');
    expect((await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } })).status).toBe(200);
    await setActivated(db, padmin.userId, false);
    const res = await mp.call('GET', '/api/oauth-clients', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorized);
  });
});
