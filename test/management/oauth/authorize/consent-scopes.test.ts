/**
 * Issue 33 item 3, consent per scope, over HTTP (app.inject, cookies carried by hand): the consent
 * page ticks each requested scope (`scope.<name>`, as the reference's approval page), the code and
 * its tokens carry exactly the scopes left ticked, unticked ones are remembered DENIED and asked
 * again, approved ones still skip the page, and a forged form adds nothing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../../fixtures/management.js';
import { upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { createClientStore } from '../../../../src/management/oauth/clients/client-store.js';
import { createAuthorizeService } from '../../../../src/management/oauth/authorize/service.js';
import { oauthApprovals, oauthCodes } from '../../../../src/management/schema.js';
import type { Database } from '../../../../src/platform/database.js';

const MP = '/managementportal';
const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://app.example.org/callback';
const CLIENT_SCOPES = ['SUBJECT.READ', 'PROJECT.READ', 'MEASUREMENT.CREATE'];
let t: TestApp;
let db: Database;
let login: string;

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

async function aClient() {
  const clientId = unique('consent');
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: CLIENT_SCOPES,
    authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
  return clientId;
}

function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
  if (!header) throw new Error('no session cookie set');
  return header.split(';')[0]!;
}
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
/** The scopes a consent page offers, ticked or not: its `scope.<name>` checkboxes. */
const checkboxesOf = (html: string) => [...html.matchAll(/<input type="checkbox" name="scope\.([^"]+)" value="true"( checked)?>/g)]
  .map((m) => ({ scope: m[1]!, ticked: m[2] !== undefined }));

async function post(path: string, fields: Record<string, string>, cookie: string) {
  return t.app.inject({
    method: 'POST', url: `${MP}${path}`, payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
  });
}

/** Authorize and sign in: the consent page (with its cookie and form fields) or the redirect. */
async function signIn(clientId: string, scope: string) {
  const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 'st', scope });
  const start = await t.app.inject({ method: 'GET', url: `${MP}/oauth/authorize?${query.toString()}` });
  expect(start.statusCode, start.body).toBe(200);
  const res = await post('/oauth/login', { username: login, password: PASSWORD, _csrf: hidden(start.body, '_csrf'), request_id: hidden(start.body, 'request_id') }, sessionCookie(start));
  return { res, cookie: res.statusCode === 200 ? sessionCookie(res) : '', form: { _csrf: hidden(res.body, '_csrf'), request_id: hidden(res.body, 'request_id') } };
}

/** The consent form as a browser sends it with `ticked` left ticked and the Approve (or Deny) button. */
async function answer(page: Awaited<ReturnType<typeof signIn>>, ticked: string[], button: 'true' | 'false' = 'true', extra: Record<string, string> = {}) {
  const boxes = Object.fromEntries(ticked.map((s) => [`scope.${s}`, 'true']));
  return post('/oauth/authorize', { ...page.form, ...boxes, ...extra, user_oauth_approval: button }, page.cookie);
}

const approvalsOf = async (clientId: string) => (await db.select().from(oauthApprovals).where(eq(oauthApprovals.clientId, clientId)))
  .map((a) => [a.scope, a.status]).sort();
const codesOf = (clientId: string) => db.select().from(oauthCodes).where(eq(oauthCodes.clientId, clientId));

/** The code of a redirect exchanged for tokens: the token response's scope and the access token's. */
async function tokenScopes(location: string, clientId: string) {
  const code = new URL(location).searchParams.get('code');
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const res = await t.app.inject({
    method: 'POST', url: `${MP}/oauth/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: code!, redirect_uri: REDIRECT }).toString(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<{ scope: string; access_token: string }>();
  return { response: body.scope.split(' ').sort(), claim: [...decodeJwt(body.access_token).scope as string[]].sort() };
}

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  login = (await aParticipant(db, { project: await aProject(db), password: PASSWORD })).login;
});
afterAll(async () => { await t.close(); });

describe('consent per scope', () => {
  it('a subset approved: code and tokens carry exactly it; the unticked scope is DENIED and asked again; approved ones skip the page', async () => {
    const clientId = await aClient();
    const page = await signIn(clientId, 'SUBJECT.READ MEASUREMENT.CREATE');
    expect(page.res.statusCode).toBe(200);
    expect(checkboxesOf(page.res.body)).toEqual([{ scope: 'SUBJECT.READ', ticked: true }, { scope: 'MEASUREMENT.CREATE', ticked: true }]);

    const approve = await answer(page, ['SUBJECT.READ']);
    expect(approve.statusCode).toBe(302);
    expect(approve.headers.location).toMatch(/^https:\/\/app\.example\.org\/callback\?code=[A-Za-z0-9_-]{43}&state=st$/);
    expect((await codesOf(clientId)).map((c) => c.scope)).toEqual([['SUBJECT.READ']]);
    expect(await tokenScopes(approve.headers.location as string, clientId)).toEqual({ response: ['SUBJECT.READ'], claim: ['SUBJECT.READ'] });
    expect(await approvalsOf(clientId)).toEqual([['MEASUREMENT.CREATE', 'DENIED'], ['SUBJECT.READ', 'APPROVED']]);

    // The same request asks again (a denial is not an approval), every box ticked at first.
    const again = await signIn(clientId, 'SUBJECT.READ MEASUREMENT.CREATE');
    expect(again.res.statusCode).toBe(200);
    expect(checkboxesOf(again.res.body)).toEqual([{ scope: 'SUBJECT.READ', ticked: true }, { scope: 'MEASUREMENT.CREATE', ticked: true }]);
    // This time both: the denial is replaced by an approval.
    const both = await answer(again, ['SUBJECT.READ', 'MEASUREMENT.CREATE']);
    expect(await tokenScopes(both.headers.location as string, clientId)).toEqual({ response: ['MEASUREMENT.CREATE', 'SUBJECT.READ'], claim: ['MEASUREMENT.CREATE', 'SUBJECT.READ'] });
    expect(await approvalsOf(clientId)).toEqual([['MEASUREMENT.CREATE', 'APPROVED'], ['SUBJECT.READ', 'APPROVED']]);

    // Remembered approvals still skip the page: straight to the client with a code for what was asked.
    const remembered = await signIn(clientId, 'SUBJECT.READ');
    expect(remembered.res.statusCode).toBe(302);
    expect(await tokenScopes(remembered.res.headers.location as string, clientId)).toEqual({ response: ['SUBJECT.READ'], claim: ['SUBJECT.READ'] });
  });

  it('a forged form adds nothing: fields for scopes not requested (the client\'s or not) are ignored and not remembered', async () => {
    const clientId = await aClient();
    const page = await signIn(clientId, 'SUBJECT.READ MEASUREMENT.CREATE');
    // PROJECT.READ is the client's but was not requested; USER.CREATE is not the client's. The
    // reference's other approving value (`approve…`, any case) counts for a requested scope.
    const res = await answer(page, ['PROJECT.READ', 'USER.CREATE'], 'true', { 'scope.MEASUREMENT.CREATE': 'Approved' });
    expect(res.statusCode).toBe(302);
    expect((await codesOf(clientId)).map((c) => c.scope)).toEqual([['MEASUREMENT.CREATE']]);
    expect(await tokenScopes(res.headers.location as string, clientId)).toEqual({ response: ['MEASUREMENT.CREATE'], claim: ['MEASUREMENT.CREATE'] });
    expect(await approvalsOf(clientId)).toEqual([['MEASUREMENT.CREATE', 'APPROVED'], ['SUBJECT.READ', 'DENIED']]);
  });

  it('a field sent twice is a malformed form (400), and nothing is granted', async () => {
    const clientId = await aClient();
    const page = await signIn(clientId, 'SUBJECT.READ');
    const res = await t.app.inject({
      method: 'POST', url: `${MP}/oauth/authorize`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      payload: `${new URLSearchParams({ ...page.form, user_oauth_approval: 'true' }).toString()}&scope.SUBJECT.READ=true&scope.SUBJECT.READ=false`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers.location).toBeUndefined();
    expect(await codesOf(clientId)).toEqual([]);
    expect(await approvalsOf(clientId)).toEqual([]);
  });

  it.each([
    ['nothing ticked, Approve', [] as string[], 'true' as const],
    ['boxes ticked, Deny', ['SUBJECT.READ', 'PROJECT.READ'], 'false' as const],
  ])('%s: access_denied with the state, every scope DENIED, no code', async (_name, ticked, button) => {
    const clientId = await aClient();
    const page = await signIn(clientId, 'SUBJECT.READ PROJECT.READ');
    const res = await answer(page, ticked, button);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${REDIRECT}?error=access_denied&error_description=The+user+denied+access&state=st`);
    expect(await codesOf(clientId)).toEqual([]);
    expect(await approvalsOf(clientId)).toEqual([['PROJECT.READ', 'DENIED'], ['SUBJECT.READ', 'DENIED']]);
    expect((await signIn(clientId, 'PROJECT.READ')).res.statusCode).toBe(200); // asked again
  });

  it('CSRF is still enforced: ticked scopes without the page\'s _csrf are 403, nothing remembered or issued, and the page still answers', async () => {
    const clientId = await aClient();
    const page = await signIn(clientId, 'SUBJECT.READ');
    for (const csrf of [undefined, 'x'.repeat(43)]) {
      const fields: Record<string, string> = { request_id: page.form.request_id, user_oauth_approval: 'true', 'scope.SUBJECT.READ': 'true', ...(csrf ? { _csrf: csrf } : {}) };
      const res = await post('/oauth/authorize', fields, page.cookie);
      expect(res.statusCode).toBe(403);
      expect(res.headers.location).toBeUndefined();
    }
    expect(await codesOf(clientId)).toEqual([]);
    expect(await approvalsOf(clientId)).toEqual([]);
    expect((await answer(page, ['SUBJECT.READ'])).statusCode).toBe(302);
    expect(await approvalsOf(clientId)).toEqual([['SUBJECT.READ', 'APPROVED']]);
  });

  it('a scope the client lost after the request is not granted, even ticked', async () => {
    const clientId = await aClient();
    const authorize = createAuthorizeService({ db, clients: createClientStore({ db }), now: Date.now });
    const request = await authorize.validateRequest({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'SUBJECT.READ PROJECT.READ' });
    await upsertClient(db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'],
      authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    });
    const scopes = new Map([['SUBJECT.READ', 'true'], ['PROJECT.READ', 'true']]);
    const location = await createAuthorizeService({ db, clients: createClientStore({ db }), now: Date.now })
      .decide(request, login, { userOauthApproval: 'true', scopes });
    expect(location).toMatch(/\?code=/);
    expect((await codesOf(clientId)).map((c) => c.scope)).toEqual([['SUBJECT.READ']]);
    expect(await db.select().from(oauthApprovals).where(and(eq(oauthApprovals.clientId, clientId), eq(oauthApprovals.scope, 'PROJECT.READ')))).toEqual([]);
  });
});
