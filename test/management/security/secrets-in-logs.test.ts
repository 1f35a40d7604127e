/**
 * Nothing secret reaches the logs (issue 17 item 8). Every grant, check_token, introspection,
 * revocation, the sign-in form and logout run with the log captured at `trace` (the production
 * redaction and serializers), sending the secrets in form bodies, in query strings and in
 * headers; none of the secrets used, nor any token issued, may appear in the log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { hashPassword } from '../../../src/management/security/passwords.js';
import { loggerOptions } from '../../../src/platform/logging.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

const MP = '/managementportal';
const REDIRECT = 'https://app.example.org/callback';
/** Distinctive values: a hit in the log can only come from this test. */
const distinct = (label: string) => `${label}-${randomBytes(9).toString('base64url')}`;
const CLIENT_SECRET = distinct('clientsecret');
const PASSWORD = distinct('Passw0rd');

const captured = captureLog();

let t: TestApp;
let login: string;
/** A second user: the first one's consent is remembered, so only a new user sees the consent page (and its CSRF token) again. */
let otherLogin: string;
const clientId = `logs-client-${randomBytes(4).toString('hex')}`;
/** Every secret the test sends or receives, by name. */
const secrets = new Map<string, string>([['client secret', CLIENT_SECRET], ['password', PASSWORD]]);
const remember = (name: string, value: unknown) => {
  if (typeof value !== 'string' || value === '') throw new Error(`no ${name} to remember`);
  secrets.set(`${name} ${secrets.size}`, value);
  return value;
};
const basic = (secret = CLIENT_SECRET) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

beforeAll(async () => {
  const options = loggerOptions('trace');
  if (typeof options !== 'object') throw new Error('loggerOptions must return pino options');
  t = await buildTestApp({}, { logger: { ...options, stream: captured.stream } });
  const db = t.app.db.db;
  const project = await aProject(db);
  login = (await aParticipant(db, { project, password: PASSWORD })).login;
  otherLogin = (await aParticipant(db, { project, password: PASSWORD })).login;
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: await hashPassword(CLIENT_SECRET),
    scope: ['SUBJECT.READ', 'MEASUREMENT.CREATE'], authorities: ['ROLE_CLIENT'],
    authorizedGrantTypes: ['password', 'client_credentials', 'authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT], autoApprove: [], accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
});
afterAll(async () => { await t.close(); });

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** A form POST under the management prefix, with parameters in the body and/or the query string. */
async function post(path: string, opts: { body?: Record<string, string>; query?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const res = await t.app.inject({
    method: 'POST', url: `${MP}${path}${opts.query ? `?${form(opts.query)}` : ''}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
    payload: form(opts.body ?? {}),
  });
  let body: Json;
  try { body = res.json(); } catch { body = res.body; }
  return { status: res.statusCode, headers: res.headers, body };
}

/** Token answers: what they issue becomes a secret too. */
function issued(res: { status: number; body: Json }, grant: string) {
  expect(res.status, `${grant}: ${JSON.stringify(res.body)}`).toBe(200);
  remember(`${grant} access token`, res.body.access_token);
  if (res.body.refresh_token) remember(`${grant} refresh token`, res.body.refresh_token);
  return res.body as { access_token: string; refresh_token?: string };
}

function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
  if (!header) throw new Error('no session cookie set');
  return remember('session cookie', header.split(';')[0]!.split('=')[1]);
}
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

/** Authorize → sign-in form → consent page; returns the signed-in session and the consent form's fields. */
async function signIn(user: string, extra: Record<string, string> = {}) {
  const start = await t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${form({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'st', ...extra })}` });
  expect(start.statusCode, start.body).toBe(200);
  const cookie = sessionCookie(start);
  const csrf = remember('csrf token', hidden(start.body, '_csrf'));
  const requestId = hidden(start.body, 'request_id');
  // A wrong password first (the failure path logs too), then the right one.
  const wrong = await post('/oauth/login', { body: { username: user, password: `${PASSWORD}-wrong`, _csrf: csrf, request_id: requestId }, headers: { cookie: `mp_oauth_session=${cookie}` } });
  expect(wrong.status).toBe(400); // the sign-in page again
  const res = await post('/oauth/login', { body: { username: user, password: PASSWORD, _csrf: csrf, request_id: requestId }, headers: { cookie: `mp_oauth_session=${cookie}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(200); // the consent page
  return { cookie: sessionCookie(res), csrf: remember('csrf token', hidden(res.body, '_csrf')), requestId: hidden(res.body, 'request_id') };
}

describe('the log', () => {
  it('holds no secret sent or issued by any grant, check_token, introspection, revocation, sign-in or logout', async () => {
    // password grant: client secret in Basic, then everything in the query string.
    const byPassword = issued(await post('/oauth/token', { body: { grant_type: 'password', username: login, password: PASSWORD }, headers: { authorization: basic() } }), 'password');
    issued(await post('/oauth/token', { query: { grant_type: 'password', username: login, password: PASSWORD, client_id: clientId, client_secret: CLIENT_SECRET } }), 'password (query)');
    expect((await post('/oauth/token', { body: { grant_type: 'password', username: login, password: distinct('wrongpw') }, headers: { authorization: basic() } })).status).toBe(400);

    // client_credentials: the secret in the form body (client_secret_post) and in the query string.
    issued(await post('/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: CLIENT_SECRET } }), 'client_credentials');
    issued(await post('/oauth/token', { query: { grant_type: 'client_credentials', client_id: clientId, client_secret: CLIENT_SECRET } }), 'client_credentials (query)');
    const wrongSecret = remember('wrong client secret', distinct('wrongsecret'));
    expect((await post('/oauth/token', { body: { grant_type: 'client_credentials' }, headers: { authorization: basic(wrongSecret) } })).status).toBe(401);

    // authorization_code with PKCE: sign in, consent, then the code in the body (a replay in the query below).
    const verifier = remember('code verifier', randomBytes(32).toString('base64url'));
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const session = await signIn(login, { code_challenge: challenge, code_challenge_method: 'S256' });
    const approve = await post('/oauth/authorize', {
      body: { user_oauth_approval: 'true', _csrf: session.csrf, request_id: session.requestId }, headers: { cookie: `mp_oauth_session=${session.cookie}` },
    });
    expect(approve.status, JSON.stringify(approve.body)).toBe(302);
    const code = remember('authorization code', new URL(approve.headers.location as string).searchParams.get('code'));
    const byCode = issued(await post('/oauth/token', {
      body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, headers: { authorization: basic() },
    }), 'authorization_code');

    // refresh_token: in the body, then the new one in the query string.
    const refreshed = issued(await post('/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: byCode.refresh_token! }, headers: { authorization: basic() } }), 'refresh_token');
    const refreshedAgain = issued(await post('/oauth/token', {
      query: { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token!, client_id: clientId, client_secret: CLIENT_SECRET },
    }), 'refresh_token (query)');
    // The code again, in the query string: refused (a replay also revokes what the code bought).
    expect((await post('/oauth/token', {
      query: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId, client_secret: CLIENT_SECRET },
    })).status).toBe(400);

    // check_token, introspection, revocation: the token in the body and in the query string.
    for (const path of ['/oauth/check_token', '/oauth/introspect']) {
      expect((await post(path, { body: { token: byPassword.access_token }, headers: { authorization: basic() } })).status, path).toBe(200);
      expect((await post(path, { query: { token: refreshedAgain.access_token }, headers: { authorization: basic() } })).status, path).toBe(200);
      // A refresh token: check_token refuses it (400 invalid_token), introspection answers.
      expect((await post(path, { query: { token: byPassword.refresh_token!, client_id: clientId, client_secret: CLIENT_SECRET } })).status, path).toBeLessThan(500);
    }
    expect((await post('/oauth/revoke', { body: { token: byPassword.refresh_token! }, headers: { authorization: basic() } })).status).toBe(200);
    expect((await post('/oauth/revoke', { query: { token: refreshedAgain.refresh_token!, client_id: clientId, client_secret: CLIENT_SECRET } })).status).toBe(200);

    // A JSON body that is not JSON, quoting a password (V8's parse errors quote the text).
    const jsonSecret = remember('password in bad JSON', distinct('jsonpw'));
    const badJson = await t.app.inject({
      method: 'POST', url: `${MP}/oauth/token`, headers: { 'content-type': 'application/json', authorization: basic() },
      payload: `${jsonSecret} {"grant_type":"password","password":"${jsonSecret}"}`,
    });
    expect(badJson.statusCode).toBeGreaterThanOrEqual(400);

    // A bearer call, then logout with the CSRF token in X-CSRF-Token, and another in X-XSRF-TOKEN.
    expect((await t.app.inject({ method: 'GET', url: `${MP}/api/account`, headers: { authorization: `Bearer ${byCode.access_token}` } })).statusCode).toBeLessThan(500);
    const logout = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: `${MP}/api/logout`, headers });
    const out = await logout({ cookie: `mp_oauth_session=${session.cookie}`, 'x-csrf-token': session.csrf });
    expect(out.statusCode, out.body).toBe(200);
    const second = await signIn(otherLogin);
    const out2 = await logout({ cookie: `mp_oauth_session=${second.cookie}`, 'x-xsrf-token': second.csrf });
    expect(out2.statusCode, out2.body).toBe(200);

    // The requests were logged (at trace), with what is secret replaced.
    expect(captured.text()).toContain('"url":"/managementportal/oauth/check_token?token=%5BRedacted%5D"');
    expect(captured.text()).toContain('"x-csrf-token":"[Redacted]"');
    expect(captured.text()).toContain('"x-xsrf-token":"[Redacted]"');
    for (const [name, value] of secrets) {
      // A JWT's header and claims are not secret alone; its signature is what would give it away.
      const needles = value.split('.').length === 3 ? [value, value.split('.')[2]!] : [value, value.slice(0, 10)];
      for (const needle of needles) {
        for (const form of [needle, encodeURIComponent(needle), Buffer.from(needle).toString('base64')]) {
          expect(captured.text().includes(form), `${name} (${form.slice(0, 12)}…) in the log`).toBe(false);
        }
      }
    }
    expect(captured.text().includes(Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64'))).toBe(false);
  });
});
