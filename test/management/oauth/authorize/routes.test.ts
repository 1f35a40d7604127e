/**
 * The authorization code flow over HTTP (app.inject, cookies carried by hand): authorize → sign-in
 * page → consent → redirect with code and state → token with code and PKCE verifier, the token
 * verified with jose against /oauth/token_key. Plus the error cases of RFC 6749 §4.1.2.1 and
 * §5.2, CSRF, single-use codes and the session cookie's attributes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { importSPKI, jwtVerify, type CryptoKey } from 'jose';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../../fixtures/management.js';
import { upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { oauthApprovals, oauthCodes, serverSecrets } from '../../../../src/management/schema.js';
import type { Database } from '../../../../src/platform/database.js';
import { createAuthorizeService } from '../../../../src/management/oauth/authorize/service.js';
import { createClientStore } from '../../../../src/management/oauth/clients/client-store.js';
import { createFailedAttemptLimiter, TooManyFailedAttempts } from '../../../../src/management/oauth/limiter.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

const MP = '/managementportal';
let t: TestApp;
let db: Database;
let keys: CryptoKey[] = [];
let participant: { login: string; sourceId: string };
const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://app.example.org/callback';
const NATIVE_REDIRECT = 'org.example.app:/oauth/callback';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** A public client of the code flow (optionally with other grants or auto-approved scopes). */
async function aClient(opts: { grants?: string[]; autoApprove?: string[] } = {}) {
  const clientId = unique('webapp');
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null,
    scope: ['SUBJECT.READ', 'PROJECT.READ', 'MEASUREMENT.CREATE'],
    authorizedGrantTypes: opts.grants ?? ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT, NATIVE_REDIRECT], autoApprove: opts.autoApprove ?? [],
    accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
  return clientId;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** `name=value` of the session cookie a response sets. */
function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
  if (!header) throw new Error('no session cookie set');
  return header.split(';')[0]!;
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const requestIdOf = (html: string) => /name="request_id" value="([^"]+)"/.exec(html)?.[1] ?? '';
/** The ticked `scope.<name>` checkboxes of a consent page, as a browser sends them. */
const tickedScopesOf = (html: string) => Object.fromEntries([...html.matchAll(/<input type="checkbox" name="(scope\.[^"]+)" value="true" checked>/g)].map((m) => [m[1]!, 'true']));
/** What a page's form sends untouched: the CSRF token, the id of the request the page shows, the ticked scopes. */
const formFieldsOf = (html: string) => ({ _csrf: csrfOf(html), request_id: requestIdOf(html), ...tickedScopesOf(html) });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function authorizeUrl(params: Record<string, string>) {
  return `${MP}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

async function post(path: string, fields: Record<string, string>, cookie?: string) {
  return t.app.inject({
    method: 'POST', url: `${MP}${path}`, payload: form(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  });
}

/** GET authorize → sign-in page; returns its cookie and CSRF token. */
async function startAuthorization(params: Record<string, string>) {
  const res = await t.app.inject({ method: 'GET', url: authorizeUrl(params) });
  expect(res.statusCode, res.body).toBe(200);
  return { res, cookie: sessionCookie(res), csrf: csrfOf(res.body), requestId: requestIdOf(res.body) };
}

/** The whole browser part: sign in, approve (unless approved before); returns the redirect location. */
async function authorizeAndApprove(clientId: string, extra: Record<string, string> = {}) {
  const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'xyz', ...extra });
  const signIn = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: start.csrf, request_id: start.requestId }, start.cookie);
  if (signIn.statusCode === 302) return new URL(signIn.headers.location as string);
  expect(signIn.statusCode, signIn.body).toBe(200);
  const cookie = sessionCookie(signIn);
  const approve = await post('/oauth/authorize', { user_oauth_approval: 'true', ...formFieldsOf(signIn.body) }, cookie);
  expect(approve.statusCode, approve.body).toBe(302);
  return new URL(approve.headers.location as string);
}

async function tokenRequest(fields: Record<string, string>) {
  const res = await post('/oauth/token', fields);
  return { status: res.statusCode, body: res.json() as Json };
}

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  const project = await aProject(db);
  participant = await aParticipant(db, { project, password: PASSWORD });
  const tokenKey = (await t.app.inject(`${MP}/oauth/token_key`)).json() as Json;
  keys = await Promise.all(tokenKey.keys.map((k: Json) =>
    importSPKI(k.value.replace(/-----(BEGIN|END) EC PUBLIC KEY-----/g, '-----$1 PUBLIC KEY-----'), k.alg)));
});
afterAll(async () => { await t.close(); });

async function verified(token: string) {
  for (const key of keys) {
    try { return (await jwtVerify(token, key)).payload; } catch { /* next key */ }
  }
  throw new Error('no published key verifies the token');
}

describe('authorization code flow', () => {
  it('signs in, asks consent, redirects with code and state; the code and verifier buy a verified token', async () => {
    const clientId = await aClient();
    const { verifier, challenge } = pkce();
    const start = await startAuthorization({
      client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'af0ifjsldkj', scope: 'SUBJECT.READ MEASUREMENT.CREATE',
      code_challenge: challenge, code_challenge_method: 'S256',
    });
    expect(start.res.headers['content-type']).toMatch(/^text\/html/);
    expect(start.res.headers['cache-control']).toBe('no-store');
    expect(start.res.body).toContain('<form method="post" action="login">');
    expect(start.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = String([start.res.headers['set-cookie']].flat().find((c) => String(c).startsWith('mp_oauth_session=')));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/managementportal\/;/); // the admin UI calls the API with it too
    expect(setCookie).not.toMatch(/Secure/); // plain HTTP here; HTTPS (request.protocol) adds it

    const signIn = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: start.csrf, request_id: start.requestId }, start.cookie);
    expect(signIn.statusCode).toBe(200);
    expect(signIn.body).toContain('Approve access');
    expect(signIn.body).toContain('SUBJECT.READ');
    const cookie = sessionCookie(signIn);
    expect(cookie).not.toBe(start.cookie); // a new session id after sign-in
    const csrf = csrfOf(signIn.body);
    expect(csrf).not.toBe(start.csrf);
    // The pre-sign-in session is gone.
    expect((await post('/oauth/authorize', { user_oauth_approval: 'true', _csrf: start.csrf, request_id: start.requestId }, start.cookie)).statusCode).toBe(403);

    expect(requestIdOf(signIn.body)).toBe(start.requestId); // the same request, now signed in
    const approve = await post('/oauth/authorize', { user_oauth_approval: 'true', ...formFieldsOf(signIn.body) }, cookie);
    expect(approve.statusCode).toBe(302);
    const location = new URL(approve.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('af0ifjsldkj');
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored hashed only.
    expect(await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, code))).toEqual([]);

    const res = await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'bearer', expires_in: 900, sub: participant.login, sources: [participant.sourceId],
      grant_type: 'authorization_code', refresh_token: expect.any(String),
    });
    const claims = await verified(res.body.access_token);
    expect(claims).toMatchObject({
      sub: participant.login, user_name: participant.login, client_id: clientId, grant_type: 'authorization_code',
      aud: ['res_ManagementPortal'], iss: 'ManagementPortal', authorities: ['ROLE_PARTICIPANT'],
    });
    expect([...(claims.scope as string[])].sort()).toEqual(['MEASUREMENT.CREATE', 'SUBJECT.READ']);

    // The code is single-use; a replay also revokes the refresh token it bought.
    const replay = await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(replay).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid authorization code' } });
    const refresh = await tokenRequest({ grant_type: 'refresh_token', client_id: clientId, refresh_token: res.body.refresh_token });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a signed-in session goes straight on; auto-approved scopes skip consent; custom-scheme redirect URIs work', async () => {
    const clientId = await aClient({ autoApprove: ['true'] });
    const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: NATIVE_REDIRECT });
    const signIn = await post('/oauth/login', { username: participant.login.toUpperCase(), password: PASSWORD, _csrf: start.csrf, request_id: start.requestId }, start.cookie);
    expect(signIn.statusCode).toBe(302);
    expect(signIn.headers.location).toMatch(/^org\.example\.app:\/oauth\/callback\?code=[A-Za-z0-9_-]{43}$/);

    const again = await t.app.inject({ method: 'GET', url: authorizeUrl({ client_id: clientId, response_type: 'code', redirect_uri: NATIVE_REDIRECT, state: 's2' }), headers: { cookie: sessionCookie(signIn) } });
    expect(again.statusCode).toBe(302);
    const location = new URL(again.headers.location as string);
    expect(location.searchParams.get('state')).toBe('s2');
    // No PKCE in the request: a verifier is refused (downgrade), as is a different redirect_uri.
    const code = location.searchParams.get('code')!;
    const withVerifier = await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: NATIVE_REDIRECT, code_verifier: pkce().verifier });
    expect(withVerifier.body.error).toBe('invalid_grant');
  });

  it('the redirect_uri of the token request must repeat the authorization request\'s', async () => {
    const clientId = await aClient();
    const code = (await authorizeAndApprove(clientId)).searchParams.get('code')!;
    const res = await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: NATIVE_REDIRECT });
    expect(res).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Redirect URI mismatch.' } });
  });

  it('an expired code is invalid_grant; a missing code is invalid_request', async () => {
    const clientId = await aClient();
    const code = (await authorizeAndApprove(clientId)).searchParams.get('code')!;
    await db.update(oauthCodes).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(oauthCodes.clientId, clientId));
    expect(await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT }))
      .toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid authorization code' } });
    expect(await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT }))
      .toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'An authorization code must be supplied.' } });
  });

  it('the user may deny: redirect with access_denied and the state', async () => {
    const clientId = await aClient();
    const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'st' });
    const signIn = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: start.csrf, request_id: start.requestId }, start.cookie);
    const deny = await post('/oauth/authorize', { user_oauth_approval: 'false', ...formFieldsOf(signIn.body) }, sessionCookie(signIn));
    expect(deny.statusCode).toBe(302);
    const location = new URL(deny.headers.location as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('remembers the answer for a month: approved scopes skip consent, other scopes, expired or denied approvals ask again', async () => {
    const clientId = await aClient();
    const signInTo = async (scope: string, user = participant.login) => {
      const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope });
      return post('/oauth/login', { username: user, password: PASSWORD, _csrf: start.csrf, request_id: start.requestId }, start.cookie);
    };
    const first = await signInTo('SUBJECT.READ PROJECT.READ');
    expect(first.body).toContain('Approve access');
    expect((await post('/oauth/authorize', { user_oauth_approval: 'true', ...formFieldsOf(first.body) }, sessionCookie(first))).statusCode).toBe(302);
    const stored = await db.select().from(oauthApprovals).where(eq(oauthApprovals.clientId, clientId));
    expect(stored.map((a) => [a.scope, a.status]).sort()).toEqual([['PROJECT.READ', 'APPROVED'], ['SUBJECT.READ', 'APPROVED']]);
    const month = 30 * 24 * 3600 * 1000;
    for (const a of stored) expect(Math.abs(a.expiresAt.getTime() - (Date.now() + month))).toBeLessThan(60_000);

    // A new sign-in for the same or fewer scopes goes straight to the client with a code.
    for (const scope of ['SUBJECT.READ PROJECT.READ', 'PROJECT.READ']) {
      const again = await signInTo(scope);
      expect(again.statusCode).toBe(302);
      expect(new URL(again.headers.location as string).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    // A scope not approved yet asks again; so does another user.
    expect((await signInTo('SUBJECT.READ MEASUREMENT.CREATE')).body).toContain('Approve access');
    const other = await aParticipant(db, { project: await aProject(db), password: PASSWORD });
    expect((await signInTo('PROJECT.READ', other.login)).body).toContain('Approve access');

    // Expired approvals count no more; a denial is remembered as DENIED and asks again next time.
    await db.update(oauthApprovals).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(oauthApprovals.clientId, clientId));
    const expired = await signInTo('PROJECT.READ');
    expect(expired.body).toContain('Approve access');
    expect((await post('/oauth/authorize', { user_oauth_approval: 'false', ...formFieldsOf(expired.body) }, sessionCookie(expired))).statusCode).toBe(302);
    const denied = await db.select().from(oauthApprovals).where(and(eq(oauthApprovals.clientId, clientId), eq(oauthApprovals.scope, 'PROJECT.READ')));
    expect(denied.map((a) => a.status)).toEqual(['DENIED']);
    expect((await signInTo('PROJECT.READ')).body).toContain('Approve access');
  });

  it('a wrong password shows the sign-in page again with an error', async () => {
    const clientId = await aClient();
    const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT });
    const res = await post('/oauth/login', { username: participant.login, password: 'wrong', _csrf: start.csrf, request_id: start.requestId }, start.cookie);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Wrong user name or password.');
    expect(csrfOf(res.body)).toBe(start.csrf);
    expect(requestIdOf(res.body)).toBe(start.requestId);
  });
});

describe('PKCE', () => {
  it('a wrong or missing verifier is invalid_grant, and the code is spent', async () => {
    const clientId = await aClient();
    const { verifier, challenge } = pkce();
    const code = (await authorizeAndApprove(clientId, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    expect(await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: pkce().verifier }))
      .toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'PKCE verification failed' } });
    expect((await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier })).body.error)
      .toBe('invalid_grant');

    const code2 = (await authorizeAndApprove(clientId, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    expect((await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code: code2, redirect_uri: REDIRECT })).body)
      .toEqual({ error: 'invalid_grant', error_description: 'PKCE verification failed: code_verifier missing' });
  });

  it('only S256 is accepted', async () => {
    const clientId = await aClient();
    const res = await t.app.inject(authorizeUrl({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'p', code_challenge: pkce().challenge, code_challenge_method: 'plain' }));
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'invalid_request', error_description: 'code_challenge_method must be S256', state: 'p' });
  });
});

describe('CSRF and the session cookie', () => {
  it('a form without the page\'s _csrf, with a wrong one, or without the cookie is refused with 403', async () => {
    const clientId = await aClient();
    const start = await startAuthorization({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT });
    const creds = { username: participant.login, password: PASSWORD };
    const missing = await post('/oauth/login', creds, start.cookie);
    expect(missing.statusCode).toBe(403);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect((await post('/oauth/login', { ...creds, _csrf: 'x'.repeat(43) }, start.cookie)).statusCode).toBe(403);
    expect((await post('/oauth/login', { ...creds, _csrf: start.csrf })).statusCode).toBe(403);
    // A tampered cookie (signature no longer matches) is no session.
    const tampered = start.cookie.replace(/=(.)/, (_m, c: string) => `=${c === 'A' ? 'B' : 'A'}`);
    expect((await post('/oauth/login', { ...creds, _csrf: start.csrf }, tampered)).statusCode).toBe(403);
    // The consent form too.
    expect((await post('/oauth/authorize', { user_oauth_approval: 'true' }, start.cookie)).statusCode).toBe(403);
    // The right token still works.
    expect((await post('/oauth/login', { ...creds, _csrf: start.csrf, request_id: start.requestId }, start.cookie)).statusCode).toBe(200);
  });

  it('without MANAGEMENTPORTAL_SESSION_SECRET the cookie key is generated once and kept in the database', async () => {
    const rows = await db.select().from(serverSecrets).where(eq(serverSecrets.name, 'session-secret'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.value.length).toBeGreaterThanOrEqual(43);
  });
});

describe('authorization request errors', () => {
  it('an unregistered redirect_uri or unknown client shows an error page (400) and never redirects', async () => {
    const clientId = await aClient();
    const cases: Record<string, string>[] = [
      { client_id: clientId, response_type: 'code', redirect_uri: 'https://evil.example.org/callback', state: 's' },
      { client_id: clientId, response_type: 'code', redirect_uri: `${REDIRECT}/`, state: 's' },
      { client_id: clientId, response_type: 'code', state: 's' }, // two registered: must be named
      { client_id: 'no-such-client', response_type: 'code', redirect_uri: REDIRECT },
      { response_type: 'code', redirect_uri: REDIRECT },
    ];
    for (const params of cases) {
      const res = await t.app.inject(authorizeUrl(params));
      expect(res.statusCode, JSON.stringify(params)).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Sign-in error');
    }
  });

  it('a client without the authorization_code grant is redirected with unauthorized_client', async () => {
    const clientId = await aClient({ grants: ['client_credentials'] });
    const res = await t.app.inject(authorizeUrl({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'q' }));
    expect(res.statusCode).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('error')).toBe('unauthorized_client');
    expect(location.searchParams.get('state')).toBe('q');
  });

  it('other errors redirect with their RFC 6749 §4.1.2.1 code', async () => {
    const clientId = await aClient();
    const errorOf = async (params: Record<string, string>) =>
      new URL((await t.app.inject(authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, ...params }))).headers.location as string).searchParams.get('error');
    expect(await errorOf({ response_type: 'token' })).toBe('unsupported_response_type');
    expect(await errorOf({})).toBe('invalid_request');
    expect(await errorOf({ response_type: 'code', scope: 'USER.DELETE' })).toBe('invalid_scope');
  });

  it('the token endpoint refuses the grant to a client that does not list it', async () => {
    const clientId = await aClient({ grants: ['client_credentials'] });
    expect(await tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code: 'x', redirect_uri: REDIRECT }))
      .toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Unauthorized grant type' } });
  });
});

describe('metadata', () => {
  it('RFC 8414 metadata names the authorization endpoint, the code response type and S256', async () => {
    const res = await t.app.inject({ url: `${MP}/.well-known/oauth-authorization-server`, headers: { host: 'mp.example.org' } });
    expect(res.json()).toMatchObject({
      authorization_endpoint: 'http://mp.example.org/managementportal/oauth/authorize',
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code']),
    });
  });
});

describe('behind TLS with a configured session secret and a failed-attempt limit of 1', () => {
  it('marks the cookie Secure, stores no generated secret, and limits sign-in with the token endpoint\'s counters', async () => {
    const tls = await buildTestApp({ TRUST_PROXY: 'true', MANAGEMENTPORTAL_SESSION_SECRET: 's'.repeat(40), MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '1' });
    try {
      const tdb = tls.app.db.db;
      const clientId = unique('webapp');
      await upsertClient(tdb, {
        clientId, clientSecret: null, scope: ['SUBJECT.READ'], authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT],
      });
      const res = await tls.app.inject({
        url: authorizeUrl({ client_id: clientId, response_type: 'code' }), headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.statusCode).toBe(200);
      const setCookie = String([res.headers['set-cookie']].flat().find((c) => String(c).startsWith('mp_oauth_session=')));
      expect(setCookie).toMatch(/; Secure/);
      expect(setCookie).toMatch(/HttpOnly/);
      expect((await tdb.select().from(serverSecrets)).filter((row) => row.name === 'session-secret')).toEqual([]);

      // One wrong password at the token endpoint blocks this user's sign-in from this IP.
      const user = await aParticipant(tdb, { project: await aProject(tdb), password: PASSWORD });
      const grant = await tls.app.inject({
        method: 'POST', url: `${MP}/oauth/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ grant_type: 'password', client_id: 'radar_restapi', client_secret: 'secret', username: user.login, password: 'wrong' }),
      });
      expect(grant.statusCode).toBe(400);
      const signIn = await tls.app.inject({
        method: 'POST', url: `${MP}/oauth/login`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: sessionCookie(res), 'x-forwarded-proto': 'https' },
        payload: form({ username: user.login, password: PASSWORD, ...formFieldsOf(res.body) }),
      });
      expect(signIn.statusCode).toBe(429);
      expect(Number(signIn.headers['retry-after'])).toBeGreaterThan(0);
      expect(signIn.headers['content-type']).toMatch(/^text\/html/);
    } finally {
      await tls.close();
    }
  });
});

describe('sign-in failures', () => {
  it('count with the token endpoint\'s limiter per (username, IP); past the limit even the right password waits', async () => {
    let now = Date.now();
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 2, now: () => now });
    const service = createAuthorizeService({ db, clients: createClientStore({ db }), now: () => now, limiter });
    expect(await service.signIn(participant.login, 'wrong', '10.0.0.1')).toBeUndefined();
    expect(await service.signIn(participant.login.toUpperCase(), 'wrong', '10.0.0.1')).toBeUndefined();
    await expect(service.signIn(participant.login, PASSWORD, '10.0.0.1')).rejects.toBeInstanceOf(TooManyFailedAttempts);
    // Another IP is not affected, and the block ends with the window.
    expect(await service.signIn(participant.login, PASSWORD, '10.0.0.2')).toBe(participant.login);
    now += 61_000;
    expect(await service.signIn(participant.login, PASSWORD, '10.0.0.1')).toBe(participant.login);
  });
});
