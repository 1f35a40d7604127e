/**
 * The admin UI's error pages (issue 31 item 11): every error under the UI's paths, asked for by a
 * browser (`Accept: text/html`), is an HTML page of the UI with the message and a link back to the
 * home page, never a JSON body: an unknown page (404), a page asked with a method it does not take
 * (405 with `Allow`), a denied page (403), bad input (400), a body over the limit (413) or of a
 * kind no page takes (415), the router's own errors (a malformed URL 400, an over-long path
 * parameter 414), a bug (500) and the database unreachable (503). The API's paths, and clients
 * not asking for HTML, keep the API's JSON bodies. A page answered outside a page's scope (an
 * unknown path, a wrong method, a router error, a body refused before the page's guard) shows the signed-in user's
 * navbar, as every other page does.
 */
import { eq } from 'drizzle-orm';
import Fastify from 'fastify';
import view from '@fastify/view';
import { Eta } from 'eta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { anOrganization, aProjectIn } from '../../fixtures/management.js';
import { uiErrorHandler } from '../../../src/management/ui/errors.js';
import { VIEWS } from '../../../src/management/pages.js';
import { users } from '../../../src/management/schema.js';
import { SESSION_COOKIE } from '../../../src/management/session/sessions.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const BASE = '/managementportal';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;

beforeAll(async () => {
  // The smallest body limit the configuration takes, so a 413 needs no large payload.
  t = await buildTestApp({ HTTP_BODY_LIMIT_BYTES: '1024' });
  mc = managementClient(t.app);
});
afterAll(async () => { await t?.close(); });

const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, headers: Record<string, string> = HTML, payload?: string) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });

/** The page's alert text, and that it is a whole page of the UI with a link back home. */
function errorPageOf(res: { statusCode: number; headers: Record<string, unknown>; body: string }): string {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.body).toMatch(/^<!DOCTYPE html>/);
  expect(res.body).toContain(`<a href="${BASE}/">Back to the home page</a>`);
  expect(res.headers['cache-control']).toBe('no-store');
  return /role="alert" class="alert">([^<]*)</.exec(res.body)?.[1] ?? '';
}

describe('outside any page (no page route matched)', () => {
  it('an unknown page is the 404 page; the API and clients not asking for HTML keep the JSON body', async () => {
    const page = await inject('GET', `${BASE}/no-such-page`);
    expect(page.statusCode).toBe(404);
    expect(errorPageOf(page)).toBe('Not found.');

    const json = await inject('GET', `${BASE}/no-such-page`, { accept: 'application/json' });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toEqual({ message: 'error.notFound', description: `No endpoint GET ${BASE}/no-such-page`, fieldErrors: null });
    const api = await inject('GET', `${BASE}/api/no-such-resource`);
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ message: 'error.notFound' });
  });

  it('a page asked with a method it does not take is 405 with Allow', async () => {
    const put = await inject('PUT', `${BASE}/users`);
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD');
    expect(errorPageOf(put)).toBe('This page does not take this kind of request.');
    const del = await inject('DELETE', `${BASE}/users/someone/edit`);
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe('GET, HEAD, POST');
    // The OAuth sign-in page is a page too.
    const authorize = await inject('PUT', `${BASE}/oauth/authorize`);
    expect(authorize.statusCode).toBe(405);
    expect(authorize.headers.allow).toContain('GET');
    // Not a page at all: still 404.
    expect((await inject('DELETE', `${BASE}/no-such-page`)).statusCode).toBe(404);
  });

  it('a malformed URL and an over-long path parameter are pages of the router\'s status; the API keeps its body', async () => {
    const bad = await inject('GET', `${BASE}/projects/%E0%A4%A`);
    expect(bad.statusCode).toBe(400);
    expect(errorPageOf(bad)).toBe('The address is not valid.');
    const long = await inject('GET', `${BASE}/projects/${'x'.repeat(300)}`);
    expect(long.statusCode).toBe(414);
    expect(errorPageOf(long)).toBe('The address is too long.');

    const api = await inject('GET', `${BASE}/api/projects/%E0%A4%A`);
    expect(api.statusCode).toBe(400);
    expect(api.json()).toMatchObject({ message: 'error.validation' });
    const notHtml = await inject('GET', `${BASE}/projects/%E0%A4%A`, { accept: '*/*' });
    expect(notHtml.statusCode).toBe(400);
    expect(notHtml.headers['content-type']).toContain('application/json');
  });

  it('speaks the browser\'s language, or the language cookie\'s', async () => {
    const dutch = await inject('GET', `${BASE}/no-such-page`, { ...HTML, 'accept-language': 'nl-NL,nl;q=0.9' });
    expect(dutch.statusCode).toBe(404);
    expect(dutch.body).toContain('<html lang="nl"');
    expect(dutch.body).toContain('Niet gevonden.');
    expect(dutch.body).toContain('Terug naar de startpagina');
    const cookie = await inject('GET', `${BASE}/projects/%E0%A4%A`, { ...HTML, 'accept-language': 'en', cookie: 'lang=nl' });
    expect(cookie.body).toContain('Het adres is niet geldig.');
  });
});

describe('the navbar of an error page outside a page\'s scope', () => {
  /** The navbar's links of a page (empty: no navbar), and whether it has "Sign out". */
  const navbarOf = (body: string) => ({
    // The layout's first <nav> is the navbar ("Main"; "Hoofdmenu" in Dutch).
    links: [...(/<header class="navbar">[\s\S]*?<nav aria-label="[^"]*">([\s\S]*?)<\/nav>/.exec(body)?.[1] ?? '').matchAll(/<li><a href="[^"]*">([^<]*)<\/a><\/li>/g)].map((m) => m[1]),
    signOut: body.includes('action="/managementportal/logout"'),
  });

  it('is the signed-in user\'s on a 404, 405, 400 (malformed URL), 414 and 413 page: the same links as its other pages, and Sign out', async () => {
    const project = await aProjectIn(t.app.db.db, await anOrganization(t.app.db.db));
    const analyst = await mc.userWithRole('ROLE_PROJECT_ANALYST', { project: project.projectName });
    const ui = uiClient(t.app, BASE, HTML);
    expect((await ui.signIn(analyst.login, 'Passw0rd')).status).toBe(303);
    const home = navbarOf((await ui.get('/')).body);
    expect(home.links).toEqual(['Home', 'Organizations', 'Source types', 'Notifications', 'OAuth clients', 'Account']);

    const unknown = await ui.get('/no-such-page/at/all');
    expect(unknown.status).toBe(404);
    expect(errorPageOf({ statusCode: unknown.status, headers: unknown.headers, body: unknown.body })).toBe('Not found.');
    expect(navbarOf(unknown.body)).toEqual({ ...home, signOut: true });
    // Its "Sign out" form carries the session's CSRF token: it signs out.
    const signOutToken = /action="\/managementportal\/logout"[\s\S]*?name="_csrf" value="([^"]+)"/.exec(unknown.body)?.[1];
    expect(signOutToken).toBe(csrfOf((await ui.get('/')).body));

    const wrongMethod = await t.app.inject({ method: 'PUT', url: `${BASE}/users`, headers: { ...HTML, cookie: [...ui.jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect(wrongMethod.statusCode).toBe(405);
    expect(navbarOf(wrongMethod.body).links).toEqual(home.links);

    // The router's own errors, before any route: a malformed URL, an over-long path parameter.
    const malformed = await ui.get('/projects/%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(errorPageOf({ statusCode: malformed.status, headers: malformed.headers, body: malformed.body })).toBe('The address is not valid.');
    expect(navbarOf(malformed.body).links).toEqual(home.links);
    const long = await ui.get(`/projects/${'x'.repeat(300)}`);
    expect(long.status).toBe(414);
    expect(navbarOf(long.body).links).toEqual(home.links);

    // A body refused by its parser, before the page's guard read the session.
    const big = await ui.post('/account/settings', { _csrf: 'x', firstName: 'x'.repeat(2000) });
    expect(big.status).toBe(413);
    expect(errorPageOf({ statusCode: big.status, headers: big.headers, body: big.body })).toBe('What was sent is too large.');
    expect(navbarOf(big.body).links).toEqual(home.links);

    // A system admin's has the pages an analyst's has not.
    const admin = uiClient(t.app, BASE, HTML);
    expect((await admin.signIn()).status).toBe(303);
    expect(navbarOf((await admin.get('/no-such-page')).body).links).toEqual(['Home', 'Organizations', 'Source types', 'Notifications', 'Users', 'OAuth clients', 'Audits', 'Account']);
  });

  it('is in the signed-in account\'s language, the language cookie winning', async () => {
    const project = await aProjectIn(t.app.db.db, await anOrganization(t.app.db.db));
    const admin = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    await t.app.db.db.update(users).set({ langKey: 'nl' }).where(eq(users.login, admin.login));
    const ui = uiClient(t.app, BASE, { ...HTML, 'accept-language': 'en' });
    expect((await ui.signIn(admin.login, 'Passw0rd')).status).toBe(303);
    const dutch = await ui.get('/no-such-page');
    expect(dutch.body).toContain('<html lang="nl"');
    expect(dutch.body).toContain('Niet gevonden.');
    expect(navbarOf(dutch.body).links).toContain('Gebruikers');
    ui.jar.set('lang', 'en');
    const english = await ui.get('/no-such-page');
    expect(english.body).toContain('Not found.');
  });

  it('is absent for a visitor, a tampered session cookie and a signed-out session', async () => {
    const visitor = await inject('GET', `${BASE}/no-such-page`);
    expect(navbarOf(visitor.body)).toEqual({ links: [], signOut: false });
    expect(navbarOf((await inject('GET', `${BASE}/projects/%E0%A4%A`)).body)).toEqual({ links: [], signOut: false });

    const ui = uiClient(t.app, BASE, HTML);
    expect((await ui.signIn()).status).toBe(303);
    const name = SESSION_COOKIE;
    const value = ui.jar.get(SESSION_COOKIE)!;
    const tampered = await inject('GET', `${BASE}/no-such-page`, { ...HTML, cookie: `${name}=${value.slice(0, -3)}abc` });
    expect(tampered.statusCode).toBe(404);
    expect(navbarOf(tampered.body).links).toEqual([]);

    const home = await ui.get('/');
    expect((await ui.post('/logout', { _csrf: csrfOf(home.body) })).status).toBe(303);
    const after = await inject('GET', `${BASE}/no-such-page`, { ...HTML, cookie: `${name}=${value}` });
    expect(after.statusCode).toBe(404);
    expect(navbarOf(after.body).links).toEqual([]);
  });
});

describe('on a page', () => {
  it('a body over the limit is 413 and one of a kind no page takes 415, as pages; nothing signs in', async () => {
    const big = await inject('POST', `${BASE}/login`, { ...HTML, 'content-type': 'application/x-www-form-urlencoded' }, `username=admin&password=${'x'.repeat(2000)}`);
    expect(big.statusCode).toBe(413);
    expect(errorPageOf(big)).toBe('What was sent is too large.');
    expect(big.headers['set-cookie']).toBeUndefined();
    const plain = await inject('POST', `${BASE}/login`, { ...HTML, 'content-type': 'application/xml' }, '<login/>');
    expect(plain.statusCode).toBe(415);
    expect(errorPageOf(plain)).toBe('What was sent is of a kind this page does not take.');
  });

  it('a denied page is 403, bad input 400, an unknown entity 404: pages with the navbar of the signed-in user', async () => {
    const project = await aProjectIn(t.app.db.db, await anOrganization(t.app.db.db));
    const user = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const ui = uiClient(t.app, BASE, HTML);
    expect((await ui.signIn(user.login, 'Passw0rd')).status).toBe(303);
    const denied = await ui.get('/audits');
    expect(denied.status).toBe(403);
    expect(errorPageOf({ statusCode: denied.status, headers: denied.headers, body: denied.body })).toBe('You do not have permission to see this page or do this.');
    expect(denied.body).toContain(`<nav aria-label=`);
    const bad = await ui.get('/users?page=abc');
    expect(bad.status).toBe(400);
    expect(errorPageOf({ statusCode: bad.status, headers: bad.headers, body: bad.body })).toBe('The request is not valid.');
    const admin = uiClient(t.app, BASE, HTML);
    expect((await admin.signIn()).status).toBe(303);
    const unknown = await admin.get('/organizations/no-such-organization-here');
    expect(unknown.status).toBe(404);
    expect(errorPageOf({ statusCode: unknown.status, headers: unknown.headers, body: unknown.body })).toContain('not found');
  });
});

describe('a bug and an outage', () => {
  // The UI's error handler on routes that throw (as a page's would), before any page context was made.
  let app: ReturnType<typeof Fastify>;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    await app.register(view, { engine: { eta: new Eta() }, root: VIEWS, production: true });
    app.decorateRequest('ui', null);
    app.setErrorHandler(uiErrorHandler(BASE));
    app.get(`${BASE}/boom`, async () => { throw new Error('secret detail of a bug'); });
    app.get(`${BASE}/down`, async () => { throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }); });
    await app.ready();
  });
  afterAll(async () => { await app?.close(); });

  it('a bug is the 500 page, showing nothing of the error', async () => {
    const res = await app.inject({ method: 'GET', url: `${BASE}/boom`, headers: HTML });
    expect(res.statusCode).toBe(500);
    expect(errorPageOf(res)).toBe('Something went wrong. Please try again later.');
    expect(res.body).not.toContain('secret detail');
  });

  it('the database unreachable is the 503 page with Retry-After', async () => {
    const res = await app.inject({ method: 'GET', url: `${BASE}/down`, headers: HTML });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(errorPageOf(res)).toBe('The service is briefly unavailable. Please try again in a moment.');
  });
});
