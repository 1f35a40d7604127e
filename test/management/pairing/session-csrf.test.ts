/**
 * `GET /api/oauth-clients/pair` creates a meta-token, so a session cookie alone must not do it
 * (issue 28 item 5): another site's link or `<img>` would pair an app of its choosing with the
 * signed-in admin's cookie. With the session's CSRF token in a header, or with a bearer token, it
 * works as before. The admin UI pairs through its own form (POST with `_csrf`), covered by
 * ui/projects.test.ts with JavaScript on and off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { aProject, aSubjectIn } from '../../fixtures/management.js';
import { metaTokens } from '../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let project: { id: number; projectName: string };
/** The admin's admin UI session: its cookie and the CSRF token its pages carry. */
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  project = await aProject(t.app.db.db);
  const ui = uiClient(t.app);
  expect((await ui.signIn()).status).toBe(303);
  const home = await ui.get('/managementportal/');
  session = { cookie: `mp_oauth_session=${ui.jar.get('mp_oauth_session')}`, csrf: csrfOf(home.body) };
  expect(session.csrf).not.toBe('');
});
afterAll(async () => t?.close());

const pairPath = (login: string) => `/api/oauth-clients/pair?${new URLSearchParams({ login, clientId: 'aRMT' })}`;
const tokensOf = (subjectId: number) => t.app.db.db.select().from(metaTokens).where(eq(metaTokens.subjectId, subjectId));

describe('GET /api/oauth-clients/pair under a session cookie', () => {
  it('with the cookie alone: 403, and no meta-token is created', async () => {
    const subject = await aSubjectIn(t.app.db.db, project.id);
    const res = await mp.call('GET', pairPath(subject.login), { headers: { cookie: session.cookie } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'error.accessDenied', description: 'Invalid or missing CSRF token', fieldErrors: null });
    expect(await tokensOf(subject.id)).toEqual([]);
    // A wrong token is no better.
    const forged = await mp.call('GET', pairPath(subject.login), { headers: { cookie: session.cookie, 'x-csrf-token': 'forged' } });
    expect(forged.status).toBe(403);
    expect(await tokensOf(subject.id)).toEqual([]);
  });

  it.each(['x-csrf-token', 'x-xsrf-token'])('with the session\'s CSRF token in %s: 200 and the meta-token is stored', async (header) => {
    const subject = await aSubjectIn(t.app.db.db, project.id);
    const res = await mp.call('GET', pairPath(subject.login), { headers: { cookie: session.cookie, [header]: session.csrf } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await tokensOf(subject.id);
    expect(stored.map((row) => row.tokenName)).toEqual([res.body.tokenName]);
  });

  it('with a bearer token (no cookie, no CSRF header): 200', async () => {
    const subject = await aSubjectIn(t.app.db.db, project.id);
    const res = await mp.call('GET', pairPath(subject.login), { bearer: await mp.tokenOf('admin', 'admin') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await tokensOf(subject.id)).map((row) => row.tokenName)).toEqual([res.body.tokenName]);
  });

  it('other GETs still need no CSRF token under the session', async () => {
    const res = await mp.call('GET', '/api/account', { headers: { cookie: session.cookie } });
    expect(res.status).toBe(200);
    expect(res.body.login).toBe('admin');
  });
});
