/**
 * App-server security over HTTP with the in-process keys (issue 21 items 1, 4–8): the 401/403
 * answers, the scoped lists, the id routes, and what stays open. Tokens come from the real token
 * endpoint of the same app. Which token may call which route is stated once, for both domains, in
 * test/security/permission-matrix.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { appserverTokens, callAs, securedEnv } from '../../helpers/appserver-auth.js';
import { aProject as aManagementProject, setActivated } from '../../fixtures/management.js';
import { aNotification, aUserBody, errorBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { organizations, users } from '../../../src/management/schema.js';

let t: TestApp;
let A: string;
let B: string;
let sub1: string;
let sub2: string;
let subB: string;
let notificationOfSub1: number;
const tok: Record<string, string> = {};

const MISSING = 'The token is missing from the request. No bearer token provided in the request';
const INVALID = 'Cannot verify token. It may have been rendered invalid.';
const FORBIDDEN = 'The requested resource is forbidden.';

beforeAll(async () => {
  t = await buildTestApp(securedEnv());
  const db = t.app.db.db;
  const tokens = appserverTokens(t.app);
  A = unique('projA');
  B = unique('projB');
  // A is in `main`, the one organization radar-spring-auth knows (oracle.ts ORGANIZATION).
  const [main] = await db.select().from(organizations).where(eq(organizations.name, 'main'));
  const mpA = await aManagementProject(db, A, main!.id);
  await aManagementProject(db, B);
  tok.sys = (await tokens.user('ROLE_SYS_ADMIN')).access;
  tok.admin = (await tokens.user('ROLE_PROJECT_ADMIN', { project: A })).access;
  tok.other = (await tokens.user('ROLE_PROJECT_ADMIN', { project: B })).access;
  const p1 = await tokens.participant(mpA);
  const p2 = await tokens.participant(mpA);
  tok.part = p1.access;
  tok.otherPart = p2.access;
  tok.cc = await tokens.client('appserver_test');
  sub1 = p1.login;
  sub2 = p2.login;
  subB = unique('subB');
  for (const projectId of [A, B]) expectStatus(await callAs(t.app, tok.sys, 'POST', '/projects', { projectId }), 201);
  for (const [projectId, subjectId] of [[A, sub1], [A, sub2], [B, subB]] as const) {
    expectStatus(await callAs(t.app, tok.sys, 'POST', `/projects/${projectId}/users`, aUserBody({ subjectId })), 201);
  }
  notificationOfSub1 = expectStatus(await callAs(t.app, tok.sys, 'POST', `/projects/${A}/users/${sub1}/messaging/notifications`, aNotification()), 201).id;
  await callAs(t.app, tok.sys, 'POST', `/projects/${B}/users/${subB}/messaging/notifications`, aNotification());
}, 60_000);
afterAll(async () => t?.close());

describe('lists hold only what the token may read (item 7)', () => {
  const projectIds = async (who: string) => (expectStatus(await callAs(t.app, tok[who], 'GET', '/projects'), 200).projects as { projectId: string }[]).map((p) => p.projectId);
  const subjects = async (who: string, path: string) => (expectStatus(await callAs(t.app, tok[who], 'GET', path), 200).users as { subjectId: string }[]).map((u) => u.subjectId);

  it('GET /projects: an admin sees its project, the sys admin and a client all', async () => {
    expect(await projectIds('admin')).toEqual([A]);
    expect(await projectIds('other')).toEqual([B]);
    expect(await projectIds('sys')).toEqual(expect.arrayContaining([A, B]));
    expect(await projectIds('cc')).toEqual(expect.arrayContaining([A, B]));
  });

  it('GET /users and GET /projects/A/users: a participant sees itself, an admin its project', async () => {
    expect(await subjects('part', '/users')).toEqual([sub1]);
    expect(await subjects('part', `/projects/${A}/users`)).toEqual([sub1]);
    expect(await subjects('otherPart', '/users')).toEqual([sub2]);
    expect((await subjects('admin', '/users')).sort()).toEqual([sub1, sub2].sort());
    expect(await subjects('other', '/users')).toEqual([subB]);
    expect(await subjects('sys', '/users')).toEqual(expect.arrayContaining([sub1, sub2, subB]));
  });

  it('GET /messaging/notifications and /projects/A/messaging/notifications: only the readable users\' messages', async () => {
    const ids = async (who: string, path: string) => (expectStatus(await callAs(t.app, tok[who], 'GET', path), 200).notifications as { id: number }[]).map((n) => n.id);
    expect(await ids('admin', '/messaging/notifications')).toEqual([notificationOfSub1]);
    expect(await ids('other', '/messaging/notifications')).not.toContain(notificationOfSub1);
    expect((await ids('other', '/messaging/notifications')).length).toBe(1);
    expect(await ids('part', `/projects/${A}/messaging/notifications`)).toEqual([notificationOfSub1]);
    expect(await ids('otherPart', `/projects/${A}/messaging/notifications`)).toEqual([]);
  });
});

describe('answers (item 5)', () => {
  it('no token, or Basic: 401 "The token is missing…" with WWW-Authenticate: Bearer', async () => {
    for (const headers of [{}, { authorization: 'Basic cmFkYXI6cmFkYXI=' }]) {
      const res = await t.app.inject({ method: 'GET', url: `/projects/${A}`, headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual(errorBody(401, MISSING, `/projects/${A}`));
    }
  });

  it('a token that does not verify, or a refresh token: 401 "Cannot verify token…"', async () => {
    const { refresh } = await appserverTokens(t.app).user('ROLE_SYS_ADMIN');
    for (const bad of ['not-a-jwt', `${tok.sys!.slice(0, -4)}AAAA`, refresh]) {
      const res = await callAs(t.app, bad, 'GET', '/projects');
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual(errorBody(401, INVALID, '/projects'));
    }
  });

  it('a token of the management API only (no res_AppServer audience): 401', async () => {
    const mpOnly = (await t.app.inject({
      method: 'POST', url: '/managementportal/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=password&client_id=ManagementPortalapp&username=admin&password=admin',
    })).json().access_token as string;
    expect(mpOnly).toEqual(expect.any(String));
    expect((await callAs(t.app, mpOnly, 'GET', '/projects')).statusCode).toBe(401);
  });

  it('the token may come as "bearer" in any case, or in the cookie authorizationBearer', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/projects/${A}`, headers: { authorization: `bEaReR ${tok.admin}` } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/projects/${A}`, headers: { cookie: `x=1; authorizationBearer=${tok.admin}` } })).statusCode).toBe(200);
  });

  it('route denied: 403 "The requested resource is forbidden." before any lookup (unknown project too)', async () => {
    for (const path of [`/projects/${B}`, '/projects/no-such-project/users/nobody']) {
      const res = await callAs(t.app, tok.admin, 'GET', path);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(errorBody(403, FORBIDDEN, path));
    }
  });

  it('P1: a body project outside the token: 401 "The token does not have permission for the project X"; a participant creates its own', async () => {
    const res = await callAs(t.app, tok.admin, 'POST', '/projects', { projectId: B });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toEqual(errorBody(401, `The token does not have permission for the project ${B}`, '/projects'));
    // The questionnaire app creates its project when missing (clients.md §2.1); here it exists: 417.
    expect((await callAs(t.app, tok.part, 'POST', '/projects', { projectId: A })).statusCode).toBe(417);
  });

  it('U1: a participant creating another subject: 401 "The provided token does not have enough privileges."', async () => {
    const res = await callAs(t.app, tok.part, 'POST', `/projects/${A}/users`, aUserBody({ subjectId: unique('someone') }));
    expect(res.json()).toEqual(errorBody(401, 'The provided token does not have enough privileges.', `/projects/${A}/users`));
  });

  it('U4: a found user outside the token: 401; an unknown id: 404', async () => {
    const id = expectStatus(await callAs(t.app, tok.sys, 'GET', `/projects/${B}/users/${subB}`), 200).id as number;
    expect(expectStatus(await callAs(t.app, tok.admin, 'GET', `/users/user?id=${id}`), 401).message).toBe('The provided token does not have enough privileges.');
    expect(expectStatus(await callAs(t.app, tok.other, 'GET', `/users/user?id=${id}`), 200).subjectId).toBe(subB);
    expect((await callAs(t.app, tok.admin, 'GET', '/users/user?id=999999999')).statusCode).toBe(404);
  });

  it('id routes: an unknown id is 404 once the route check passes', async () => {
    expect(expectStatus(await callAs(t.app, tok.admin, 'GET', '/messaging/notifications/999999999'), 404).message).toBe('Notification not found with id 999999999');
    expect((await callAs(t.app, tok.admin, 'GET', '/messaging/data/999999999')).statusCode).toBe(404);
  });

  it('a deactivated (or deleted) user\'s in-process token is refused', async () => {
    const tokens = appserverTokens(t.app);
    const gone = await tokens.user('ROLE_PROJECT_ADMIN', { project: A });
    const off = await tokens.user('ROLE_PROJECT_ADMIN', { project: A });
    await setActivated(t.app.db.db, off.userId, false);
    await t.app.db.db.delete(users).where(eq(users.id, gone.userId));
    for (const token of [off.access, gone.access]) {
      expect(expectStatus(await callAs(t.app, token, 'GET', `/projects/${A}`), 401).message).toBe(INVALID);
    }
  });
});

describe('what stays open (item 1) and the admin endpoints (item 8)', () => {
  it('health, info and the API docs need no token', async () => {
    for (const url of ['/actuator/health', '/actuator/info', '/v3/api-docs', '/swagger-ui/']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });

  it('admin endpoints keep the admin basic auth: a sys admin bearer token does not open them', async () => {
    const bearer = await t.app.inject({ method: 'GET', url: '/actuator/prometheus', headers: { authorization: `Bearer ${tok.sys}` } });
    expect(bearer.statusCode).toBe(401);
    const basicAuth = await t.app.inject({ method: 'GET', url: '/actuator/prometheus', headers: { authorization: `Basic ${Buffer.from('radar:radar').toString('base64')}` } });
    expect(basicAuth.statusCode).toBe(200);
  });
});

describe('security off (the dev default)', () => {
  it('the API is open', async () => {
    const open = await buildTestApp();
    try {
      expect(open.config.securityRadarManagementportalEnabled).toBe(false);
      expect((await open.app.inject({ method: 'GET', url: '/projects' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
