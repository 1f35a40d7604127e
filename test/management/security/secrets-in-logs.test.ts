/**
 * Nothing secret reaches the logs (issue 17 item 8, issue 22 item 5). Every grant, check_token,
 * introspection, revocation, the sign-in form and logout; every account flow (activation, reset
 * request and finish, password change); pairing (meta-token creation and exchange, the refresh
 * token it hands out); and the admin UI's flows (sign-in, password change, OAuth client with a
 * secret, user creation, the pair-app QR page) run with the log captured at `trace` (the
 * production redaction and serializers), sending the secrets in form bodies, JSON and text bodies,
 * query strings, paths and headers; none of the secrets used, nor any token, key or meta-token name
 * issued, may appear in the log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { managementClient } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { until } from '../../helpers/eventually.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { hashPassword } from '../../../src/management/security/passwords.js';
import { users } from '../../../src/management/schema.js';
import { eq } from 'drizzle-orm';
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
let smtp: SmtpStub;
let login: string;
let projectName: string;
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
  smtp = await startSmtpServer();
  t = await buildTestApp({ SMTP_URL: smtp.url }, { logger: { ...options, stream: captured.stream } });
  const db = t.app.db.db;
  const project = await aProject(db);
  projectName = project.projectName;
  login = (await aParticipant(db, { project, password: PASSWORD })).login;
  otherLogin = (await aParticipant(db, { project, password: PASSWORD })).login;
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: await hashPassword(CLIENT_SECRET),
    scope: ['SUBJECT.READ', 'MEASUREMENT.CREATE'], authorities: ['ROLE_CLIENT'],
    authorizedGrantTypes: ['password', 'client_credentials', 'authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT], autoApprove: [], accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** No secret remembered so far is in the log: whole, its first 10 characters (a JWT: its signature), URL- or base64-encoded. */
function expectNoSecretLogged() {
  const log = captured.text();
  expect(log.length).toBeGreaterThan(0);
  for (const [name, value] of secrets) {
    const needles = value.split('.').length === 3 ? [value, value.split('.')[2]!] : [value, value.slice(0, 10)];
    for (const needle of needles) {
      for (const form of [needle, encodeURIComponent(needle), Buffer.from(needle).toString('base64')]) {
        expect(log.includes(form), `${name} (${form.slice(0, 12)}…) in the log`).toBe(false);
      }
    }
  }
}

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
  // The consent page's ticked boxes, as the browser sends them with Approve.
  const scopes = Object.fromEntries([...String(res.body).matchAll(/name="(scope\.[^"]+)" value="true"/g)].map((m) => [m[1]!, 'true']));
  return { cookie: sessionCookie(res), csrf: remember('csrf token', hidden(res.body, '_csrf')), requestId: hidden(res.body, 'request_id'), scopes };
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
      body: { user_oauth_approval: 'true', _csrf: session.csrf, request_id: session.requestId, ...session.scopes }, headers: { cookie: `mp_oauth_session=${session.cookie}` },
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
    expectNoSecretLogged();
    expect(captured.text().includes(Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64'))).toBe(false);
  });
});

/** The 20-digit key of the newest mail to `to` (activation or reset link). */
async function mailedKey(to: string, already: number): Promise<string> {
  await until(() => expect(smtp.mails.filter((m) => m.to.includes(to)).length).toBeGreaterThan(already));
  const mail = smtp.mails.filter((m) => m.to.includes(to)).at(-1)!;
  return remember(`key mailed to ${to}`, /key=(\d{20})/.exec(mimeParts(mail.raw).map((part) => part.body).join('\n'))?.[1]);
}

describe('the log of the account, pairing and admin UI flows', () => {
  it('holds no password, activation or reset key of the account flows', async () => {
    const mc = managementClient(t.app);
    const admin = remember('admin token', await mc.tokenOf('admin', 'admin'));
    // A new user gets an activation mail; its key opens the account (GET /api/activate?key=).
    const user = `logs-user-${randomBytes(4).toString('hex')}`;
    const email = `${user}@example.org`;
    const created = await mc.call('POST', '/api/users', { bearer: admin, body: { login: user, firstName: 'F', lastName: 'L', email, roles: [{ authorityName: 'ROLE_SYS_ADMIN' }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The mailed link sets the first password (a reset key); an activation key opens the account as it is.
    await mailedKey(email, 0);
    const activationKey = remember('activation key', String(randomBytes(8).readBigUInt64BE()).padStart(20, '3'));
    await t.app.db.db.update(users).set({ activationKey }).where(eq(users.login, user));
    expect((await mc.call('GET', `/api/activate?key=${activationKey}`)).status).toBe(200);
    expect((await mc.call('GET', `/api/activate?key=${remember('unknown activation key', String(randomBytes(8).readBigUInt64BE()).padStart(20, '5'))}`)).status).toBe(404);
    // Reset request (raw text body: the address) and finish (JSON: key and new password), a wrong key first.
    expect((await mc.call('POST', '/api/account/reset_password/init', { body: email })).status).toBe(204);
    const resetKey = await mailedKey(email, 1);
    expect(resetKey).not.toBe(activationKey);
    const first = remember('reset password', distinct('Reset-Passw0rd'));
    const wrongKey = remember('wrong reset key', String(randomBytes(8).readBigUInt64BE()).padStart(20, '7'));
    expect((await mc.call('POST', '/api/account/reset_password/finish', { body: { key: wrongKey, newPassword: first } })).status).toBe(400);
    expect((await mc.call('POST', '/api/account/reset_password/finish', { body: { key: resetKey, newPassword: first } })).status).toBe(204);
    // Password change (raw text body), a weak one refused first (no upper case; distinctive: a short
    // one such as "abc" turns up inside any hex string of the log); then a sign-in with it.
    const token = remember('user token', await mc.tokenOf(user, first));
    expect((await mc.call('POST', '/api/account/change_password', { bearer: token, body: remember('weak password', `weak-${randomBytes(9).toString('hex')}`) })).status).toBe(400);
    const changed = remember('changed password', distinct('Changed-Passw0rd'));
    expect((await mc.call('POST', '/api/account/change_password', { bearer: token, body: changed })).status).toBe(204);
    remember('token after change', await mc.tokenOf(user, changed));
    // A new activation link for a user that is not activated yet.
    const pending = `logs-pending-${randomBytes(4).toString('hex')}`;
    expect((await mc.call('POST', '/api/users', { bearer: admin, body: { login: pending, firstName: 'F', lastName: 'L', email: `${pending}@example.org`, roles: [{ authorityName: 'ROLE_SYS_ADMIN' }] } })).status).toBe(201);
    await mailedKey(`${pending}@example.org`, 0);
    expect((await mc.call('POST', '/api/account/reset-activation/init', { bearer: admin, body: pending })).status).toBe(204);
    await mailedKey(`${pending}@example.org`, 1);
    expect(captured.text()).toContain('"url":"/managementportal/api/activate?key=%5BRedacted%5D"');
    expectNoSecretLogged();
  });

  it('holds no meta-token name nor the refresh token of a pairing', async () => {
    const mc = managementClient(t.app);
    const admin = remember('admin token', await mc.tokenOf('admin', 'admin'));
    for (const persistent of ['false', 'true']) {
      const paired = await mc.call('GET', `/api/oauth-clients/pair?${new URLSearchParams({ login, clientId: 'aRMT', persistent })}`, { bearer: admin });
      expect(paired.status, JSON.stringify(paired.body)).toBe(200);
      const name = remember(`meta-token name (persistent ${persistent})`, paired.body.tokenName);
      remember('meta-token URL', paired.body.tokenUrl);
      const exchanged = await mc.call('GET', `/api/meta-token/${name}`);
      expect(exchanged.status).toBe(200);
      remember('pairing refresh token', exchanged.body.refreshToken);
      // Read again (410 for a one-time token), and a name that does not exist.
      expect((await mc.call('GET', `/api/meta-token/${name}`)).status).toBeLessThan(500);
    }
    expect((await mc.call('GET', `/api/meta-token/${remember('unknown meta-token name', distinct('nometa'))}`)).status).toBe(404);
    expect(captured.text()).toContain('/api/meta-token/[Redacted]');
    expectNoSecretLogged();
  });

  it('holds no password, client secret or meta-token of the admin UI\'s flows', async () => {
    // The admin signs in (a wrong password first), creates a user, an OAuth client with a secret, and pairs an app.
    const adminPassword = remember('admin UI password', distinct('Admin-Passw0rd'));
    const mc = managementClient(t.app);
    const sysAdmin = `logs-ui-${randomBytes(4).toString('hex')}`;
    await mc.call('POST', '/api/users', { bearer: await mc.tokenOf('admin', 'admin'), body: { login: sysAdmin, firstName: 'F', lastName: 'L', email: `${sysAdmin}@example.org`, roles: [{ authorityName: 'ROLE_SYS_ADMIN' }] } });
    const key = await mailedKey(`${sysAdmin}@example.org`, 0);
    expect((await mc.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: adminPassword } })).status).toBe(204);

    const ui = uiClient(t.app);
    expect((await ui.signIn(sysAdmin, remember('wrong UI password', distinct('wrongpw')))).status).toBe(400);
    expect((await ui.signIn(sysAdmin, adminPassword)).status).toBe(303);
    for (const value of ui.jar.values()) remember('UI session cookie', value);

    const newUser = `logs-uiuser-${randomBytes(4).toString('hex')}`;
    const createdUser = await ui.submit('/users/new', '/users/new', { login: newUser, firstName: 'F', lastName: 'L', email: `${newUser}@example.org`, langKey: 'en', roleAuthority: 'ROLE_SYS_ADMIN', roleReferent: '' });
    expect(createdUser.status, createdUser.body.slice(0, 300)).toBe(303);
    await mailedKey(`${newUser}@example.org`, 0);

    const client = `logs-uiclient-${randomBytes(4).toString('hex')}`;
    const clientSecret = remember('UI client secret', distinct('uiclientsecret'));
    const createdClient = await ui.submit('/oauth-clients/new', '/oauth-clients/new', {
      clientId: client, clientSecret, authorizedGrantTypes: 'client_credentials', scope: 'SUBJECT.READ', resourceIds: 'res_ManagementPortal',
      accessTokenValiditySeconds: '900', refreshTokenValiditySeconds: '3600',
    });
    expect(createdClient.status, createdClient.body.slice(0, 300)).toBeLessThan(400);
    const generated = await ui.submit('/oauth-clients/new', '/oauth-clients/new', {
      clientId: `${client}-gen`, generateSecret: 'on', authorizedGrantTypes: 'client_credentials', scope: 'SUBJECT.READ', resourceIds: 'res_ManagementPortal',
    });
    // Post, redirect, show once: the secret's page shows it (from a sealed cookie, itself remembered).
    expect(generated.status, generated.body.slice(0, 300)).toBe(303);
    remember('sealed secret cookie', ui.jar.get('shown-once'));
    const shown = await ui.get(generated.location!);
    expect(shown.status).toBe(200);
    remember('generated client secret', /id="new-secret" value="([^"]+)"/.exec(shown.body)?.[1]);

    // The pair-app page: its QR code and link carry a meta-token name.
    const pairPage = `/projects/${projectName}/subjects/${login}/pair`;
    const paired = await ui.submit(pairPage, pairPage, { clientId: 'aRMT', persistent: 'false' });
    expect(paired.status, paired.body.slice(0, 300)).toBe(200);
    remember('UI meta-token name', /\/api\/meta-token\/([A-Za-z0-9.-]+)/.exec(paired.body)?.[1]);

    // The admin changes the password (a wrong current one first), signs out.
    const changed = remember('UI changed password', distinct('UiChanged-Passw0rd'));
    const wrong = await ui.submit('/account/password', '/account/password', { currentPassword: distinct('wrongcurrent'), newPassword: changed, confirmPassword: changed });
    expect(wrong.status).toBe(400);
    const ok = await ui.submit('/account/password', '/account/password', { currentPassword: adminPassword, newPassword: changed, confirmPassword: changed });
    expect(ok.status, ok.body.slice(0, 300)).toBeLessThan(400);
    const home = await ui.get('/');
    expect((await ui.post('/logout', { _csrf: csrfOf(home.body) })).status).toBe(303);
    // The UI's requests were logged (at trace), forms and all, with nothing secret in them.
    for (const path of ['/managementportal/oauth-clients/new', '/managementportal/account/password', `/managementportal${pairPage}`]) expect(captured.text()).toContain(`"url":"${path}"`);
    expectNoSecretLogged();
  });
});
