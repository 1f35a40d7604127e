/**
 * Issue 17 item 3: deactivated or deleted users lose access at once. Their access tokens get 401
 * on the management API; their refresh tokens are refused as the reference does (401
 * `unauthorized`, "User X was not activated") without being consumed, or, when an admin
 * deactivated them, revoked (400 `invalid_grant`, for good: issue 28 item 3); their sign-in
 * sessions end, so neither the API nor the authorization page acts for them any more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { aProject, setActivated } from '../../fixtures/management.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { findRefreshToken } from '../../../src/management/oauth/queries.js';
import { oauthSessions } from '../../../src/management/schema.js';
import type { Database } from '../../../src/platform/database.js';

const MP = '/managementportal';
const REDIRECT = 'https://app.example.org/callback';
let t: TestApp;
let db: Database;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };
/** An auto-approved code-flow client: a signed-in session gets a code without a page. */
let webClient: string;

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  project = await aProject(db);
  webClient = unique('web');
  await upsertClient(db, {
    clientId: webClient, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['PROJECT.READ'],
    authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: ['true'],
  });
});
afterAll(async () => { await t.close(); });

/** A project admin of the test project with a password (its token comes from the password grant). */
const aProjectAdmin = () => mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });

/** PUT /api/users with the user as GET shows it, `activated` changed. */
async function setActivatedByApi(login: string, activated: boolean) {
  const user = await mp.call('GET', `/api/users/${login}`, { bearer: admin });
  expect(user.status).toBe(200);
  const res = await mp.call('PUT', '/api/users', { bearer: admin, body: { ...user.body, activated } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.activated).toBe(activated);
}

const readProject = (auth: { bearer?: string; headers?: Record<string, string> }) => mp.call('GET', `/api/projects/${project.projectName}`, auth);

describe('access tokens', () => {
  it('a deactivated user\'s token: 401 on the next call, at once; 200 again after re-activation', async () => {
    const pa = await aProjectAdmin();
    expect((await readProject({ bearer: pa.token })).status).toBe(200);
    await setActivatedByApi(pa.login, false);
    const refused = await readProject({ bearer: pa.token });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    // The verified-token cache holds claims only: the user is read on every call.
    await setActivatedByApi(pa.login, true);
    expect((await readProject({ bearer: pa.token })).status).toBe(200);
  });

  it('a deleted user\'s token: 401', async () => {
    const pa = await aProjectAdmin();
    expect((await readProject({ bearer: pa.token })).status).toBe(200);
    expect((await mp.call('DELETE', `/api/users/${pa.login}`, { bearer: admin })).status).toBe(200);
    expect((await readProject({ bearer: pa.token })).status).toBe(401);
  });
});

describe('refresh tokens', () => {
  it('deactivated by an admin: revoked (400 invalid_grant), and still after re-activation (issue 28 item 3)', async () => {
    const pa = await aProjectAdmin();
    const issued = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: pa.login, password: 'Passw0rd' });
    expect(issued.status).toBe(200);
    const refreshToken = issued.refresh_token as string;
    const jti = decodeJwt(refreshToken).jti as string;

    await setActivatedByApi(pa.login, false);
    const refused = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: refreshToken });
    expect(refused).toEqual({ status: 400, error: 'invalid_grant', error_description: 'Refresh token was revoked' });
    expect(await findRefreshToken(db, jti)).toMatchObject({ usedAt: null, revokedAt: expect.any(Date) });

    await setActivatedByApi(pa.login, true);
    const again = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: refreshToken });
    expect(again).toEqual({ status: 400, error: 'invalid_grant', error_description: 'Refresh token was revoked' });
  });

  it('deactivated another way (not through the user service): 401 unauthorized "User X was not activated", not consumed; works after re-activation', async () => {
    const pa = await aProjectAdmin();
    const issued = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: pa.login, password: 'Passw0rd' });
    const refreshToken = issued.refresh_token as string;
    const jti = decodeJwt(refreshToken).jti as string;

    await setActivated(db, pa.userId, false);
    const refused = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: refreshToken });
    expect(refused).toMatchObject({ status: 401, error: 'unauthorized', error_description: `User ${pa.login} was not activated` });
    expect(await findRefreshToken(db, jti)).toMatchObject({ usedAt: null, revokedAt: null });

    await setActivated(db, pa.userId, true);
    const refreshed = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: refreshToken });
    expect(refreshed).toMatchObject({ status: 200, sub: pa.login });
  });

  it('deleted: revoked (400 invalid_grant), and still refused once a new user has the same login', async () => {
    const pa = await aProjectAdmin();
    const issued = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: pa.login, password: 'Passw0rd' });
    expect((await mp.call('DELETE', `/api/users/${pa.login}`, { bearer: admin })).status).toBe(200);
    const refused = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: issued.refresh_token });
    expect(refused).toEqual({ status: 400, error: 'invalid_grant', error_description: 'Refresh token was revoked' });

    // The login taken again by another (activated) user: the old chain gives it no tokens.
    const created = await mp.call('POST', '/api/users', { bearer: admin, body: { login: pa.login, email: `${pa.login}@new.example.org`, langKey: 'en', roles: [] } });
    expect(created.status).toBe(201);
    await setActivated(db, created.body.id as number, true);
    const again = await mp.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: issued.refresh_token });
    expect(again).toEqual({ status: 400, error: 'invalid_grant', error_description: 'Refresh token was revoked' });
  });
});

describe('sign-in sessions', () => {
  /** `name=value` of the session cookie a response sets. */
  function sessionCookie(res: { headers: Record<string, unknown> }): string {
    const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
    if (!header) throw new Error('no session cookie set');
    return header.split(';')[0]!;
  }
  const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
  const authorizePage = (cookie?: string) => t.app.inject({
    method: 'GET', url: `${MP}/oauth/authorize?${new URLSearchParams({ client_id: webClient, response_type: 'code', redirect_uri: REDIRECT })}`,
    headers: cookie ? { cookie } : {},
  });

  /** Signs in through the real pages (auto-approved: the answer is the redirect with a code); returns the session cookie. */
  async function signIn(login: string): Promise<string> {
    const page = await authorizePage();
    expect(page.statusCode, page.body).toBe(200);
    const res = await t.app.inject({
      method: 'POST', url: `${MP}/oauth/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: sessionCookie(page) },
      payload: new URLSearchParams({ username: login, password: 'Passw0rd', _csrf: field(page.body, '_csrf'), request_id: field(page.body, 'request_id') }).toString(),
    });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toMatch(/[?&]code=/);
    return sessionCookie(res);
  }

  const sessionsOf = async (login: string) => db.select().from(oauthSessions).where(eq(oauthSessions.userLogin, login));

  /** The session's signed-in state as the API and the authorization page see it. */
  async function sessionWorks(cookie: string): Promise<boolean> {
    const api = (await readProject({ headers: { cookie } })).status;
    const page = await authorizePage(cookie);
    // Signed in: straight to the client with a code. Not signed in: the sign-in page, no code.
    const signedIn = page.statusCode === 302 && /[?&]code=/.test(String(page.headers.location));
    if (!signedIn) expect(page.statusCode).toBe(200);
    expect(signedIn).toBe(api === 200);
    if (!signedIn) expect(api).toBe(401);
    return signedIn;
  }

  it('deactivated through PUT /api/users: the session rows are deleted; the API and the authorization page no longer act for it, even after re-activation', async () => {
    const pa = await aProjectAdmin();
    const cookie = await signIn(pa.login);
    expect(await sessionWorks(cookie)).toBe(true);
    expect(await sessionsOf(pa.login)).toHaveLength(1);

    await setActivatedByApi(pa.login, false);
    expect(await sessionsOf(pa.login)).toEqual([]);
    expect(await sessionWorks(cookie)).toBe(false);
    await setActivatedByApi(pa.login, true);
    expect(await sessionWorks(cookie)).toBe(false);
  });

  it('deleted: the session rows go with the user', async () => {
    const pa = await aProjectAdmin();
    const cookie = await signIn(pa.login);
    expect(await sessionsOf(pa.login)).toHaveLength(1);
    expect((await mp.call('DELETE', `/api/users/${pa.login}`, { bearer: admin })).status).toBe(200);
    expect(await sessionsOf(pa.login)).toEqual([]);
    expect(await sessionWorks(cookie)).toBe(false);
  });

  it('deactivated another way (e.g. a subject discontinued): the session is refused and ended when next used', async () => {
    const pa = await aProjectAdmin();
    const cookie = await signIn(pa.login);
    expect(await sessionWorks(cookie)).toBe(true);
    await setActivated(db, pa.userId, false);
    expect(await sessionWorks(cookie)).toBe(false);
    expect(await sessionsOf(pa.login)).toEqual([]);
    await setActivated(db, pa.userId, true);
    expect(await sessionWorks(cookie)).toBe(false);
  });
});
