/**
 * The sign-in, consent and error pages of the authorization endpoint as a browser gets them
 * (rendered by @fastify/view with Eta): the layout, the headers, and HTML escaping of what the
 * user or the request put on a page.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../../fixtures/management.js';
import { upsertClient } from '../../../../src/management/oauth/clients/queries.js';

const MP = '/managementportal';
const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://app.example.org/callback';
const HOSTILE = '"><script>alert(1)</script>';
let t: TestApp;
let login: string;
let clientId: string;

beforeAll(async () => {
  t = await buildTestApp();
  const db = t.app.db.db;
  login = (await aParticipant(db, { project: await aProject(db), password: PASSWORD })).login;
  clientId = `pages-${randomBytes(4).toString('hex')}`;
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ', 'MEASUREMENT.CREATE'],
    authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
});
afterAll(async () => { await t.close(); });

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
const cookieOf = (res: { headers: Record<string, unknown> }) => String([res.headers['set-cookie']].flat()[0]).split(';')[0]!;

async function signInPage() {
  const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 's' });
  return t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${query.toString()}` });
}

function postForm(path: string, fields: Record<string, string>, cookie: string) {
  return t.app.inject({
    method: 'POST', url: `${MP}${path}`, payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
  });
}

function expectPageHeaders(res: { headers: Record<string, unknown> }) {
  expect(res.headers).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    // The layout's inline <style> by its hash (the browser test of test/platform/http-security-browser.test.ts shows it applies).
    'content-security-policy': expect.stringMatching(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; frame-ancestors 'none'; base-uri 'none'$/),
  });
}

describe('authorization pages', () => {
  it('the sign-in page: the layout around the form, with the page\'s headers', async () => {
    const res = await signInPage();
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res);
    expect(res.body).toMatch(/^<!DOCTYPE html>/);
    expect(res.body).toContain('<title>Sign in · RADAR-base</title>');
    expect(res.body).toContain(`The application <strong>${clientId}</strong> asks you to sign in`);
    expect(res.body).toMatch(/<main>\s*<h1>Sign in<\/h1>[\s\S]*<form method="post" action="login">[\s\S]*<\/form>\s*<\/main>/);
    expect(field(res.body, '_csrf')).not.toBe('');
  });

  it('the user name sent back on a failed sign-in is escaped', async () => {
    const page = await signInPage();
    const res = await postForm('/oauth/login', { username: HOSTILE, password: 'wrong', _csrf: field(page.body, '_csrf'), request_id: field(page.body, 'request_id') }, cookieOf(page));
    expect(res.statusCode).toBe(400);
    expectPageHeaders(res);
    expect(res.body).toContain('Wrong user name or password.');
    expect(res.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(res.body).not.toContain('<script>');
  });

  it('the consent page lists the scopes and posts back with the session\'s CSRF token', async () => {
    const page = await signInPage();
    const res = await postForm('/oauth/login', { username: login, password: PASSWORD, _csrf: field(page.body, '_csrf'), request_id: field(page.body, 'request_id') }, cookieOf(page));
    expect(res.statusCode, res.body).toBe(200);
    expectPageHeaders(res);
    expect(res.body).toContain('<title>Approve access · RADAR-base</title>');
    expect(res.body).toContain(`You are signed in as <strong>${login}</strong>.`);
    // One checkbox per requested scope, ticked, named as the reference's fields; plain HTML, no script.
    expect(res.body).toMatch(new RegExp([
      '<form method="post" action="authorize">\\s*',
      '<input type="hidden" name="_csrf" value="[^"]+">\\s*<input type="hidden" name="request_id" value="[^"]+">\\s*',
      '<fieldset class="scopes">\\s*<legend>The application <strong>[^<]+</strong> asks for access to your account with these permissions\\. Untick those you do not grant:</legend>\\s*',
      '<label class="scope"><input type="checkbox" name="scope\\.SUBJECT\\.READ" value="true" checked> <code>SUBJECT\\.READ</code></label>\\s*',
      '<label class="scope"><input type="checkbox" name="scope\\.MEASUREMENT\\.CREATE" value="true" checked> <code>MEASUREMENT\\.CREATE</code></label>\\s*',
      '</fieldset>\\s*',
      '<button type="submit" name="user_oauth_approval" value="true">Approve</button>\\s*',
      '<button type="submit" name="user_oauth_approval" value="false" class="secondary">Deny</button>\\s*</form>',
    ].join('')));
    expect(res.body).not.toContain('<script');
    expect(field(res.body, '_csrf')).not.toBe('');
  });

  it('a scope the request made up (a client without scopes restricts none) is escaped in the field name and the label', async () => {
    const db = t.app.db.db;
    const open = `open-${randomBytes(4).toString('hex')}`;
    await upsertClient(db, {
      clientId: open, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: [],
      authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    });
    const query = new URLSearchParams({ client_id: open, response_type: 'code', redirect_uri: REDIRECT, scope: HOSTILE });
    const page = await t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${query.toString()}` });
    const res = await postForm('/oauth/login', { username: login, password: PASSWORD, _csrf: field(page.body, '_csrf'), request_id: field(page.body, 'request_id') }, cookieOf(page));
    expect(res.statusCode, res.body).toBe(200);
    const escaped = '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;';
    expect(res.body).toContain(`<input type="checkbox" name="scope.${escaped}" value="true" checked> <code>${escaped}</code>`);
    expect(res.body).not.toContain('<script');
  });

  it('an error page for an unknown client, which is never redirected to', async () => {
    const query = new URLSearchParams({ client_id: `${HOSTILE}-unknown`, response_type: 'code', redirect_uri: REDIRECT });
    const res = await t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${query.toString()}` });
    expect(res.statusCode).toBe(400);
    expectPageHeaders(res);
    expect(res.body).toContain('<title>Sign-in error · RADAR-base</title>');
    expect(res.body).toMatch(/<p class="error" role="alert">[^<]+<\/p>/);
    expect(res.body).not.toContain('<script>');
  });
});
