/**
 * Security headers, CORS and Secure cookies (issue 22 item 4), as a browser would get them: every
 * kind of response carries nosniff and frame denial; HSTS only when the request came over TLS as
 * judged through TRUST_PROXY; CORS only for the listed origins and only on the API paths; the
 * session cookie (admin UI and OAuth pages) and its clearing are Secure over TLS only.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import helmet from '@fastify/helmet';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { uiClient } from '../helpers/ui-client.js';
import { aParticipant, aProject } from '../fixtures/management.js';
import { upsertClient } from '../../src/management/oauth/clients/queries.js';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_CSP, HSTS, isCorsPath, SECURITY_HEADERS } from '../../src/platform/http-security.js';

const MP = '/managementportal';
const ORIGIN = 'https://dashboard.example.org';
const OTHER = 'https://evil.example.net';
const REDIRECT = 'https://app.example.org/callback';
const TLS = { 'x-forwarded-proto': 'https' };

/** Behind a trusted proxy, with CORS for ORIGIN. */
let t: TestApp;
/** The defaults: no proxy trusted, CORS off. */
let plain: TestApp;
let clientId: string;

beforeAll(async () => {
  [t, plain] = await Promise.all([buildTestApp({ TRUST_PROXY: 'true', CORS_ALLOWED_ORIGINS: `${ORIGIN}, http://localhost:8100` }), buildTestApp()]);
  for (const app of [t, plain]) {
    const db = app.app.db.db;
    await aParticipant(db, { project: await aProject(db), password: 'correct horse battery' });
    clientId = 'headers-client';
    await upsertClient(db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'],
      authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
      accessTokenValidity: 900, refreshTokenValidity: 3600,
    });
  }
});
afterAll(async () => { await Promise.all([t?.close(), plain?.close()]); });

const authorizeUrl = () => `${MP}/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 's' }).toString()}`;

/** One of each kind of response: API answers and errors of both domains, pages, static files, 404s. */
const RESPONSES: { name: string; method: 'GET' | 'POST'; url: string; status: number; body?: string; type?: string; page?: 'ui' | 'oauth' | 'swagger' }[] = [
  { name: 'app server API', method: 'GET', url: '/projects', status: 200 },
  { name: 'app server validation error', method: 'POST', url: '/projects', status: 400, body: '{"projectId":7}', type: 'application/json' },
  { name: 'app server 404', method: 'GET', url: `/projects/none-${randomBytes(3).toString('hex')}`, status: 404 },
  { name: 'unknown path', method: 'GET', url: '/no/such/path', status: 404 },
  { name: 'management API without a token', method: 'GET', url: `${MP}/api/projects`, status: 401 },
  { name: 'management 404', method: 'GET', url: `${MP}/api/nothing-here`, status: 404 },
  { name: 'OAuth token error', method: 'POST', url: `${MP}/oauth/token`, status: 401, body: 'grant_type=client_credentials', type: 'application/x-www-form-urlencoded' },
  { name: 'token key', method: 'GET', url: `${MP}/oauth/token_key`, status: 200 },
  { name: 'malformed JSON', method: 'POST', url: `${MP}/api/projects`, status: 401, body: '{"x":', type: 'application/json' },
  { name: 'actuator health', method: 'GET', url: '/actuator/health', status: 200 },
  { name: 'actuator admin without credentials', method: 'GET', url: '/actuator/prometheus', status: 401 },
  { name: 'OpenAPI document', method: 'GET', url: '/v3/api-docs', status: 200 },
  { name: 'admin UI sign-in page', method: 'GET', url: `${MP}/login`, status: 200, page: 'ui' },
  { name: 'admin UI page needing a sign-in', method: 'GET', url: `${MP}/users`, status: 303 },
  { name: 'admin UI static file', method: 'GET', url: `${MP}/content/ui.css`, status: 200 },
  { name: 'admin UI logo', method: 'GET', url: `${MP}/content/images/navbar-logo.png`, status: 200 },
  { name: 'admin UI unknown static file', method: 'GET', url: `${MP}/content/nothing.js`, status: 404 },
  { name: 'OAuth sign-in page', method: 'GET', url: 'AUTHORIZE', status: 200, page: 'oauth' },
  { name: 'OAuth error page', method: 'GET', url: `${MP}/oauth/authorize?client_id=nobody&response_type=code`, status: 400, page: 'oauth' },
  { name: 'Swagger UI', method: 'GET', url: '/swagger-ui/', status: 200, page: 'swagger' },
  { name: 'Swagger UI script', method: 'GET', url: '/swagger-ui/static/swagger-initializer.js', status: 200, page: 'swagger' },
  { name: 'code documentation (a missing page)', method: 'GET', url: '/java-docs/no-such-page.html', status: 404 },
];

async function call(app: TestApp, r: (typeof RESPONSES)[number], headers: Record<string, string> = {}) {
  return app.app.inject({
    method: r.method, url: r.url === 'AUTHORIZE' ? authorizeUrl() : r.url,
    headers: { ...(r.type ? { 'content-type': r.type } : {}), ...headers }, ...(r.body ? { payload: r.body } : {}),
  });
}

describe('security headers', () => {
  it.each(RESPONSES)('$name: nosniff, frame denial and a Content-Security-Policy', async (r) => {
    const res = await call(plain, r);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(r.status);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    if (!r.page) expect(csp.replace(/;\s*/g, '; ')).toBe(DEFAULT_CSP);
    if (r.page === 'ui') expect(csp).toContain("script-src 'self'");
    if (r.page === 'oauth') expect(csp).toMatch(/style-src 'sha256-/);
    if (r.page === 'swagger') expect(csp).toContain("script-src 'self'");
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('every kind of response carries the headers @fastify/helmet sent with the same policy (JSON, pages, static files, docs, errors)', async () => {
    // What @fastify/helmet 13 answered with the options http-security.ts gave it until issue 30,
    // for each content type: the service now sets these headers itself, precomputed.
    const bare = Fastify({ logger: false });
    await bare.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
      frameguard: { action: 'deny' },
      hsts: false,
    });
    bare.get('/json', async () => ({ ok: true }));
    bare.get('/html', async (_req, reply) => reply.type('text/html').send('<p>hi</p>'));
    bare.get('/css', async (_req, reply) => reply.type('text/css').send('p{}'));
    bare.get('/error', async () => { throw new Error('boom'); });
    const own = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
    const helmetHeaders = async (url: string) => Object.fromEntries(Object.entries((await bare.inject({ method: 'GET', url })).headers).filter(([name]) => !own.has(name)));
    const expected = await helmetHeaders('/json');
    for (const url of ['/html', '/css', '/error']) expect(await helmetHeaders(url), url).toEqual(expected);
    await bare.close();
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(10);
    expect(SECURITY_HEADERS).toEqual(expected);

    const docs: (typeof RESPONSES)[number] = { name: 'code documentation', method: 'GET', url: '/java-docs/index.html', status: 200 };
    for (const r of [...RESPONSES, docs]) {
      const res = await call(plain, r);
      expect(res.statusCode, r.name).toBe(r.status);
      for (const [name, value] of Object.entries(expected)) {
        // Pages set their own policy (checked above) and, the admin UI and OAuth pages, their own Referrer-Policy.
        if (r.page && name === 'content-security-policy') continue;
        if ((r.page === 'ui' || r.page === 'oauth') && name === 'referrer-policy') continue;
        expect(res.headers[name], `${r.name}: ${name}`).toBe(value);
      }
    }
  });

  it('HSTS only when the request came over TLS through a trusted proxy', async () => {
    for (const r of RESPONSES.filter((x) => ['app server API', 'OAuth sign-in page', 'management 404', 'admin UI sign-in page'].includes(x.name))) {
      expect((await call(t, r, TLS)).headers['strict-transport-security'], r.name).toBe(HSTS);
      expect((await call(t, r)).headers['strict-transport-security'], `${r.name} over http`).toBeUndefined();
      // No proxy trusted: a client cannot claim TLS by sending the header itself.
      expect((await call(plain, r, TLS)).headers['strict-transport-security'], `${r.name}, proxy not trusted`).toBeUndefined();
    }
  });
});

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('CORS', () => {
  const preflight = (app: TestApp, url: string, origin: string, method = 'POST') => app.app.inject({
    method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });

  it('a listed origin may call both domains\' APIs and the token endpoint; preflights need no token and allow Authorization', async () => {
    for (const [url, method] of [['/projects/p1/users/u1', 'PUT'], [`${MP}/api/projects`, 'GET'], [`${MP}/oauth/token`, 'POST'], ['/messaging/notifications', 'DELETE']] as const) {
      const res = await preflight(t, url, ORIGIN, method);
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBe(ORIGIN);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type']));
      expect(String(res.headers['access-control-allow-methods']).split(/,\s*/), url).toContain(method);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(res.headers.vary)).toMatch(/origin/i);
    }
    // The other listed origin, and an actual call (a 401 carries the headers too, so the script can read it).
    for (const origin of [ORIGIN, 'http://localhost:8100']) {
      const res = await t.app.inject({ method: 'GET', url: `${MP}/api/projects`, headers: { origin } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(String(res.headers['access-control-expose-headers'])).toContain('X-Total-Count');
    }
    const token = await t.app.inject({ method: 'POST', url: `${MP}/oauth/token`, headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials' });
    expect(token.headers['access-control-allow-origin']).toBe(ORIGIN);
    const api = await t.app.inject({ method: 'GET', url: '/projects', headers: { origin: ORIGIN } });
    expect(api.statusCode).toBe(200);
    expect(api.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('an unlisted origin gets no CORS header, neither on a preflight nor on a call', async () => {
    const pre = await preflight(t, '/projects/p1/users/u1', OTHER, 'PUT');
    expect(pre.statusCode).toBe(404);
    expect(pre.json()).toMatchObject({ status: 404 });
    expect(corsHeaders(pre.headers)).toEqual([]);
    const call = await t.app.inject({ method: 'GET', url: '/projects', headers: { origin: OTHER } });
    expect(call.statusCode).toBe(200);
    expect(corsHeaders(call.headers)).toEqual([]);
    // An origin that only starts like a listed one.
    expect(corsHeaders((await t.app.inject({ method: 'GET', url: '/projects', headers: { origin: `${ORIGIN}.evil.net` } })).headers)).toEqual([]);
  });

  it('the pages are not API paths: no CORS header even for a listed origin', async () => {
    for (const url of [`${MP}/login`, authorizeUrl(), `${MP}/content/ui.css`, '/swagger-ui/static/index.html', `${MP}/users`]) {
      expect(corsHeaders((await t.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } })).headers), url).toEqual([]);
      const pre = await preflight(t, url, ORIGIN, 'GET');
      expect(corsHeaders(pre.headers), `preflight ${url}`).toEqual([]);
      expect(pre.statusCode).toBe(404);
    }
    expect(corsHeaders((await preflight(t, `${MP}/oauth/login`, ORIGIN)).headers)).toEqual([]);
  });

  it('off by default: no CORS header for any origin, and preflights are unknown routes', async () => {
    const pre = await preflight(plain, `${MP}/oauth/token`, ORIGIN);
    expect(pre.statusCode).toBe(404);
    expect(corsHeaders(pre.headers)).toEqual([]);
    expect(corsHeaders((await plain.app.inject({ method: 'GET', url: '/projects', headers: { origin: ORIGIN } })).headers)).toEqual([]);
  });

  it('which paths are API paths', () => {
    const rules = { '': true, '/java-docs': false, '/swagger-ui': false, [MP]: false, [`${MP}/api`]: true, [`${MP}/oauth/token`]: true };
    expect(isCorsPath(rules, '/projects/x?y=1')).toBe(true);
    expect(isCorsPath(rules, `${MP}/api/projects`)).toBe(true);
    expect(isCorsPath(rules, `${MP}/oauth/token?grant_type=x`)).toBe(true);
    expect(isCorsPath(rules, `${MP}/oauth/tokenizer`)).toBe(false);
    expect(isCorsPath(rules, `${MP}/apis`)).toBe(false);
    expect(isCorsPath(rules, `${MP}/login`)).toBe(false);
    expect(isCorsPath(rules, '/java-docs/index.html')).toBe(false);
    expect(isCorsPath({ '/appserver': true }, '/other')).toBe(false);
  });

  it('CORS_ALLOWED_ORIGINS takes origins or *, and names itself when an entry is not an origin', () => {
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'https://A.example.org:443/, http://localhost:8100' }, 't').corsAllowedOrigins).toEqual(['https://a.example.org', 'http://localhost:8100']);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '*' }, 't').corsAllowedOrigins).toEqual(['*']);
    expect(loadConfig({}, 't').corsAllowedOrigins).toEqual([]);
    for (const bad of ['https://a.example.org/path', 'a.example.org', 'ftp://a.example.org', 'https://user@a.example.org']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: bad }, 't'), bad).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});

describe('cookies', () => {
  const setCookies = (res: { headers: Record<string, unknown> }) => [res.headers['set-cookie']].flat().filter((c): c is string => typeof c === 'string');
  const secure = (line: string) => /;\s*secure(;|$)/i.test(line);

  /** Every cookie the sign-in pages set or clear: the OAuth session, the admin UI's session and sign-in, sign-out, the API's logout. */
  async function everyCookie(app: TestApp, headers: Record<string, string>): Promise<string[]> {
    const lines: string[] = [];
    lines.push(...setCookies(await app.app.inject({ method: 'GET', url: authorizeUrl(), headers })));
    const ui = uiClient(app.app, MP, headers);
    expect((await ui.signIn('admin', 'admin')).status).toBe(303);
    const signedIn = await ui.get('/users');
    expect(signedIn.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]*)"/.exec(signedIn.body)![1]!;
    expect((await ui.post('/logout', { _csrf: csrf })).status).toBe(303);
    lines.push(...ui.setCookies);
    const again = uiClient(app.app, MP, headers);
    await again.signIn('admin', 'admin');
    const page = await again.get('/users');
    const logout = await app.app.inject({
      method: 'POST', url: `${MP}/api/logout`,
      headers: { ...headers, cookie: [...again.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'x-csrf-token': /name="_csrf" value="([^"]*)"/.exec(page.body)![1]! },
    });
    expect(logout.statusCode, logout.body).toBe(200);
    lines.push(...setCookies(logout));
    // Set by: the OAuth page, the UI's sign-in page, the sign-in, the UI's sign-out, the API's logout.
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.some((l) => /max-age=0|expires=thu, 01 jan 1970/i.test(l))).toBe(true);
    return lines;
  }

  it('over TLS (x-forwarded-proto through a trusted proxy) every cookie set or cleared is Secure', async () => {
    for (const line of await everyCookie(t, TLS)) expect(secure(line), line).toBe(true);
  });

  it('over plain http none is, and an untrusted x-forwarded-proto changes nothing', async () => {
    for (const line of await everyCookie(t, {})) expect(secure(line), line).toBe(false);
    for (const line of await everyCookie(plain, TLS)) expect(secure(line), line).toBe(false);
  });
});
