/**
 * Issue 17 item 13: a NUL character (U+0000) in any string. PostgreSQL refuses it in `text`, so
 * it used to end in a 500. Every route answers 400 with its own error body: the management API's
 * `ErrorVM` with the field, the OAuth endpoints' `invalid_request`, the sign-in pages' 400 page.
 * Nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic, managementClient, unique, type ApiResponse } from '../../helpers/management-api.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { subjects, users } from '../../../src/management/schema.js';

const MP = '/managementportal';
const NUL_TEXT = 'must not contain the NUL character (U+0000)';
const UPLOAD = basic('radar_upload_backend', 'secret');

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };
const seen: { status: number; body: unknown }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  project = await aProject(t.app.db.db);
});
afterAll(async () => {
  // None of the requests in this file may end in a server error.
  expect(seen.filter((r) => r.status >= 500)).toEqual([]);
  await t.close();
});

const db = () => t.app.db.db;
function noted<T extends { status: number; body: unknown }>(res: T): T {
  seen.push(res);
  return res;
}
/** A page request (HTML answers). */
async function page(options: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await t.app.inject(options);
  noted({ status: res.statusCode, body: res.body });
  return res;
}
const api = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, opts: { body?: unknown; bearer?: string | null } = {}) =>
  noted(await mc.call(method, path, { body: opts.body, ...(opts.bearer === null ? {} : { bearer: opts.bearer ?? admin }) }));
const form = async (path: string, params: Record<string, string>, opts: { auth?: string; query?: Record<string, string> } = {}) => {
  const res: LightMyRequestResponse = await t.app.inject({
    method: 'POST', url: `${MP}${path}${opts.query ? `?${new URLSearchParams(opts.query)}` : ''}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(opts.auth ? { authorization: opts.auth } : {}) },
    payload: new URLSearchParams(params).toString(),
  });
  return noted({ status: res.statusCode, headers: res.headers, body: String(res.headers['content-type']).includes('json') ? res.json() : res.body });
};

/** The management API's 400: `ErrorVM` `error.validation` naming the field. */
const errorVm = (objectName: string, field: string) => ({
  message: 'error.validation',
  description: `${field}: Pattern: ${NUL_TEXT}`,
  fieldErrors: [{ objectName, field, message: `Pattern: ${NUL_TEXT}` }],
});
function expectErrorVm(res: ApiResponse, objectName: string, field: string) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: errorVm(objectName, field) });
}
function expectInvalidRequest(res: { status: number; headers: Record<string, unknown>; body: unknown }, field: string) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: `${field}: Pattern: ${NUL_TEXT}` } });
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers.pragma).toBe('no-cache');
}

describe('query parameters of the management API', () => {
  it.each([
    ['/api/subjects?login=', 'login'],
    ['/api/subjects?externalId=', 'externalId'],
    ['/api/subjects?personName=', 'personName'],
    ['/api/subjects?humanReadableIdentifier=', 'humanReadableIdentifier'],
    ['/api/subjects?last.login=', 'last.login'],
    ['/api/users?login=', 'login'],
    ['/api/users?email=', 'email'],
    ['/api/users?projectName=', 'projectName'],
    ['/api/users?organization=', 'organization'],
    ['/api/users?authority=', 'authority'],
  ])('GET %s<NUL> answers 400 error.validation', async (path, field) => {
    expectErrorVm(await api('GET', `${path}a%00b`), 'querystring', field);
  });

  it('the subjects of a project, filtered', async () => {
    expectErrorVm(await api('GET', `/api/projects/${project.projectName}/subjects?externalId=%00`), 'querystring', 'externalId');
  });

  it('a repeated parameter names its index', async () => {
    expectErrorVm(await api('GET', '/api/subjects?authority=ROLE_PARTICIPANT&authority=x%00'), 'querystring', 'authority.1');
  });

  it('pairing: GET /api/oauth-clients/pair?login=<NUL> answers 400 and creates no meta-token', async () => {
    const { login } = await aParticipant(db(), { project });
    expectErrorVm(await api('GET', `/api/oauth-clients/pair?login=${login}%00&clientId=aRMT`), 'querystring', 'login');
    expectErrorVm(await api('GET', `/api/oauth-clients/pair?login=${login}&clientId=aRMT%00`), 'querystring', 'clientId');
  });

  it('activation: GET /api/activate?key=<NUL> answers 400 without a token', async () => {
    expectErrorVm(await api('GET', '/api/activate?key=12345%00', { bearer: null }), 'querystring', 'key');
  });
});

describe('path parameters of the management API', () => {
  it.each([
    ['GET', '/api/subjects/sub%00x'],
    ['DELETE', '/api/subjects/sub%00x'],
    ['GET', '/api/users/user%00x'],
    ['GET', '/api/projects/p%00x'],
    ['GET', '/api/organizations/o%00x'],
    ['GET', '/api/sources/s%00x'],
    ['GET', '/api/meta-token/t%00x'],
    ['GET', '/api/oauth-clients/c%00x'],
  ] as const)('%s %s answers 400 error.validation', async (method, path) => {
    const res = await api(method, path, path.startsWith('/api/meta-token') ? { bearer: null } : {});
    expect(res.status).toBe(400);
    // A parameter with a pattern fails it first; the guard catches the others.
    expect(res.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [expect.objectContaining({ objectName: 'params' })] });
  });
});

describe('JSON and text bodies of the management API', () => {
  it('a subject update with a NUL character changes nothing', async () => {
    const created = await api('POST', '/api/subjects', { body: { project: { id: project.id, projectName: project.projectName }, externalId: unique('ext') } });
    expect(created.status).toBe(201);
    const before = (await db().select().from(subjects).where(eq(subjects.id, created.body.id)))[0];
    const update = { ...created.body, externalId: 'changed\u0000' };
    expectErrorVm(await api('PUT', '/api/subjects', { body: update }), 'body', 'externalId');
    expectErrorVm(await api('PUT', '/api/subjects', { body: { ...created.body, attributes: { 'key\u0000': 'v' } } }), 'body', 'attributes.key\\u0000');
    expectErrorVm(await api('PUT', '/api/subjects/discontinue', { body: { ...created.body, personName: '\u0000' } }), 'body', 'personName');
    expect((await db().select().from(subjects).where(eq(subjects.id, created.body.id)))[0]).toEqual(before);
  });

  it('a subject created with a NUL character is not stored', async () => {
    const externalId = unique('ext');
    const res = await api('POST', '/api/subjects', { body: { project: { id: project.id, projectName: project.projectName }, externalId, attributes: { a: 'x\u0000' } } });
    expectErrorVm(res, 'body', 'attributes.a');
    expect(await db().select().from(subjects).where(eq(subjects.externalId, externalId))).toEqual([]);
  });

  it('password reset: the finishing request with a NUL character keeps the key and the password', async () => {
    const login = unique('user');
    const [user] = await db().insert(users).values({ login, activated: true, email: `${login}@example.org`, resetKey: '12345678901234567890', resetDate: new Date() }).returning();
    expectErrorVm(await api('POST', '/api/account/reset_password/finish', { body: { key: '12345678901234567890', newPassword: 'Passw0rd\u0000' }, bearer: null }), 'body', 'newPassword');
    expectErrorVm(await api('POST', '/api/account/reset_password/finish', { body: { key: '1234\u0000', newPassword: 'Passw0rd1' }, bearer: null }), 'body', 'key');
    expect((await db().select().from(users).where(eq(users.id, user!.id)))[0]).toEqual(user);
  });

  it('password reset and activation mails: a raw text body with a NUL character is a 400', async () => {
    const res = await api('POST', '/api/account/reset_password/init', { body: 'a\u0000@example.org', bearer: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error.validation', description: `: Pattern: ${NUL_TEXT}`, fieldErrors: [{ objectName: 'body', field: '', message: `Pattern: ${NUL_TEXT}` }] });
    expect((await api('POST', '/api/account/reset-activation/init', { body: 'user\u0000' })).status).toBe(400);
  });

  it('a user update with a NUL character changes nothing', async () => {
    const login = unique('user');
    const created = await api('POST', '/api/users', { body: { login, email: `${login}@example.org`, firstName: 'A', lastName: 'B', langKey: 'en', roles: [] } });
    expect(created.status).toBe(201);
    const before = (await db().select().from(users).where(eq(users.login, login)))[0];
    expectErrorVm(await api('PUT', '/api/users', { body: { ...created.body, firstName: 'C\u0000' } }), 'body', 'firstName');
    expect((await db().select().from(users).where(eq(users.login, login)))[0]).toEqual(before);
  });
});

describe('OAuth endpoints', () => {
  it('the token endpoint: a NUL character in a form field or the query string is invalid_request', async () => {
    expectInvalidRequest(await form('/oauth/token', { grant_type: 'password', username: 'admin\u0000', password: 'admin' }, { auth: UPLOAD }), 'username');
    expectInvalidRequest(await form('/oauth/token', { grant_type: 'password', username: 'admin', password: 'ad\u0000min' }, { auth: UPLOAD }), 'password');
    expectInvalidRequest(await form('/oauth/token', { grant_type: 'client_credentials', client_id: 'radar_upload_backend\u0000', client_secret: 'secret' }), 'client_id');
    expectInvalidRequest(await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x\u0000' }, { auth: UPLOAD }), 'refresh_token');
    expectInvalidRequest(await form('/oauth/token', {}, { auth: UPLOAD, query: { grant_type: 'password', username: 'admin\u0000', password: 'admin' } }), 'username');
  });

  it('the token endpoint: a NUL character in a JSON body is invalid_request too', async () => {
    const res = await page({
      method: 'POST', url: `${MP}/oauth/token`, headers: { 'content-type': 'application/json', authorization: UPLOAD },
      payload: JSON.stringify({ grant_type: 'password', username: 'admin\u0000', password: 'admin' }),
    });
    expectInvalidRequest({ status: res.statusCode, headers: res.headers, body: res.json() }, 'username');
  });

  it('check_token, introspect and revoke: a NUL character in the token is invalid_request', async () => {
    for (const path of ['/oauth/check_token', '/oauth/introspect', '/oauth/revoke']) {
      expectInvalidRequest(await form(path, { token: 'abc\u0000' }, { auth: UPLOAD }), 'token');
      expectInvalidRequest(await form(path, {}, { auth: UPLOAD, query: { token: 'abc\u0000' } }), 'token');
    }
  });

  it('the authorization endpoint: a NUL character in client_id is a 400 page, never a redirect', async () => {
    const res = await page({ method: 'GET', url: `${MP}/oauth/authorize?client_id=aRMT%00&response_type=code` });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toContain('must not contain the NUL character');
  });

  it('the sign-in form: a NUL character in the user name is a 400 page', async () => {
    const res = await page({
      method: 'POST', url: `${MP}/oauth/login`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ username: 'admin\u0000', password: 'admin', _csrf: 'x' }).toString(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });
});
