/**
 * Issue 17 item 7: the sign-in and consent forms carry the id of the authorization request they
 * show, and an answer for a request that is no longer the session's pending one is refused (400,
 * nothing granted). Two tabs authorizing two clients in one browser cannot cross.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../../fixtures/management.js';
import { upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { oauthApprovals, oauthCodes } from '../../../../src/management/schema.js';
import type { Database } from '../../../../src/platform/database.js';

const MP = '/managementportal';
const PASSWORD = 'correct horse battery';
const REDIRECT_A = 'https://a.example.org/callback';
const REDIRECT_B = 'https://b.example.org/callback';
let t: TestApp;
let db: Database;
let participant: { login: string };

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

async function aClient(redirectUri: string, autoApprove: string[] = []) {
  const clientId = unique('webapp');
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ', 'PROJECT.READ'],
    authorizedGrantTypes: ['authorization_code'], redirectUris: [redirectUri], autoApprove,
  });
  return clientId;
}

function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='));
  if (!header) throw new Error('no session cookie set');
  return header.split(';')[0]!;
}
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];

async function getAuthorize(clientId: string, redirectUri: string, cookie?: string) {
  return t.app.inject({
    method: 'GET',
    url: `${MP}/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: redirectUri, state: clientId })}`,
    headers: cookie ? { cookie } : {},
  });
}

async function post(path: string, fields: Record<string, string>, cookie: string) {
  return t.app.inject({
    method: 'POST', url: `${MP}${path}`, payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
  });
}

async function codesOf(...clientIds: string[]) {
  return db.select().from(oauthCodes).where(inArray(oauthCodes.clientId, clientIds));
}

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  participant = await aParticipant(db, { project: await aProject(db), password: PASSWORD });
});
afterAll(async () => { await t.close(); });

describe('the consent answer is bound to its request', () => {
  it('two tabs in one session: consent for A after B was started is 400 and grants nothing; B\'s own answer gets B\'s code only', async () => {
    const clientA = await aClient(REDIRECT_A);
    const clientB = await aClient(REDIRECT_B);

    // Sign in through A: the consent page for A, request id a.
    const signInPage = await getAuthorize(clientA, REDIRECT_A);
    const signIn = await post('/oauth/login', {
      username: participant.login, password: PASSWORD, _csrf: hidden(signInPage.body, '_csrf')!, request_id: hidden(signInPage.body, 'request_id')!,
    }, sessionCookie(signInPage));
    expect(signIn.statusCode, signIn.body).toBe(200);
    expect(signIn.body).toContain(clientA);
    const cookie = sessionCookie(signIn);
    const csrf = hidden(signIn.body, '_csrf')!;
    const idA = hidden(signIn.body, 'request_id')!;
    expect(idA).toMatch(/^[A-Za-z0-9_-]{32,}$/);

    // Another tab, same session: authorize B; the pending request is now B's.
    const consentB = await getAuthorize(clientB, REDIRECT_B, cookie);
    expect(consentB.statusCode, consentB.body).toBe(200);
    expect(consentB.body).toContain(clientB);
    const idB = hidden(consentB.body, 'request_id')!;
    expect(idB).not.toBe(idA);
    expect(hidden(consentB.body, '_csrf')).toBe(csrf);

    // Approving on A's page: refused with the HTML error page, nothing granted or remembered.
    const crossed = await post('/oauth/authorize', { user_oauth_approval: 'true', _csrf: csrf, request_id: idA }, cookie);
    expect(crossed.statusCode).toBe(400);
    expect(crossed.headers.location).toBeUndefined();
    expect(crossed.headers['content-type']).toMatch(/^text\/html/);
    expect(crossed.body).toContain('Sign-in error');
    expect(await codesOf(clientA, clientB)).toEqual([]);
    expect(await db.select().from(oauthApprovals).where(inArray(oauthApprovals.clientId, [clientA, clientB]))).toEqual([]);

    // A form without the id, or with a made-up one, is refused the same way.
    for (const fields of [{}, { request_id: 'x'.repeat(idB.length) }] as Record<string, string>[]) {
      const res = await post('/oauth/authorize', { user_oauth_approval: 'true', _csrf: csrf, ...fields }, cookie);
      expect(res.statusCode).toBe(400);
    }
    expect(await codesOf(clientA, clientB)).toEqual([]);

    // B's own page still answers B: a code for B, at B's redirect URI, with B's state.
    const approveB = await post('/oauth/authorize', { user_oauth_approval: 'true', _csrf: csrf, request_id: idB, 'scope.SUBJECT.READ': 'true', 'scope.PROJECT.READ': 'true' }, cookie);
    expect(approveB.statusCode, approveB.body).toBe(302);
    const location = new URL(approveB.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_B);
    expect(location.searchParams.get('state')).toBe(clientB);
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await codesOf(clientA, clientB)).map((c) => [c.clientId, c.redirectUri])).toEqual([[clientB, REDIRECT_B]]);
    const approvals = await db.select().from(oauthApprovals).where(inArray(oauthApprovals.clientId, [clientA, clientB]));
    expect(approvals.map((a) => [a.clientId, a.scope, a.status]).sort()).toEqual([[clientB, 'PROJECT.READ', 'APPROVED'], [clientB, 'SUBJECT.READ', 'APPROVED']]);

    // Answered: the request is gone, so A's page cannot answer now either.
    expect((await post('/oauth/authorize', { user_oauth_approval: 'true', _csrf: csrf, request_id: idA }, cookie)).statusCode).toBe(400);
    expect(await codesOf(clientA)).toEqual([]);
  });

  it('a denial on a page since replaced is refused too and remembers nothing', async () => {
    const clientA = await aClient(REDIRECT_A);
    const clientB = await aClient(REDIRECT_B);
    const page = await getAuthorize(clientA, REDIRECT_A);
    const signIn = await post('/oauth/login', {
      username: participant.login, password: PASSWORD, _csrf: hidden(page.body, '_csrf')!, request_id: hidden(page.body, 'request_id')!,
    }, sessionCookie(page));
    const cookie = sessionCookie(signIn);
    const idA = hidden(signIn.body, 'request_id')!;
    expect((await getAuthorize(clientB, REDIRECT_B, cookie)).statusCode).toBe(200);
    const res = await post('/oauth/authorize', { user_oauth_approval: 'false', _csrf: hidden(signIn.body, '_csrf')!, request_id: idA }, cookie);
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(await db.select().from(oauthApprovals).where(inArray(oauthApprovals.clientId, [clientA, clientB]))).toEqual([]);
  });

  it('the sign-in form is bound the same way: signing in on A\'s page after B was started is 400 and signs nobody in', async () => {
    // B auto-approves: a sign-in that went on to B would hand B a code at once.
    const clientA = await aClient(REDIRECT_A);
    const clientB = await aClient(REDIRECT_B, ['true']);
    const pageA = await getAuthorize(clientA, REDIRECT_A);
    const cookie = sessionCookie(pageA);
    const csrf = hidden(pageA.body, '_csrf')!;
    const idA = hidden(pageA.body, 'request_id')!;
    const pageB = await getAuthorize(clientB, REDIRECT_B, cookie);
    expect(pageB.statusCode).toBe(200);
    const idB = hidden(pageB.body, 'request_id')!;
    expect(idB).not.toBe(idA);

    const crossed = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: csrf, request_id: idA }, cookie);
    expect(crossed.statusCode).toBe(400);
    expect(crossed.headers.location).toBeUndefined();
    expect(crossed.headers['content-type']).toMatch(/^text\/html/);
    expect([crossed.headers['set-cookie']].flat().filter(Boolean)).toEqual([]); // no signed-in session
    expect(await codesOf(clientA, clientB)).toEqual([]);
    const missing = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: csrf }, cookie);
    expect(missing.statusCode).toBe(400);

    // B's own sign-in page goes on to B.
    const signIn = await post('/oauth/login', { username: participant.login, password: PASSWORD, _csrf: csrf, request_id: idB }, cookie);
    expect(signIn.statusCode, signIn.body).toBe(302);
    expect(new URL(signIn.headers.location as string).origin).toBe(new URL(REDIRECT_B).origin);
    expect((await codesOf(clientA, clientB)).map((c) => c.clientId)).toEqual([clientB]);
  });

  it('CSRF is still checked first: a wrong _csrf with the right request id is 403', async () => {
    const clientA = await aClient(REDIRECT_A);
    const page = await getAuthorize(clientA, REDIRECT_A);
    const res = await post('/oauth/login', {
      username: participant.login, password: PASSWORD, _csrf: 'x'.repeat(43), request_id: hidden(page.body, 'request_id')!,
    }, sessionCookie(page));
    expect(res.statusCode).toBe(403);
    expect(await db.select().from(oauthCodes).where(eq(oauthCodes.clientId, clientA))).toEqual([]);
  });
});
