/**
 * Issue 28 item 3: a password change or reset ends every other credential of the user. A change
 * on the account page, through the API, by reset link, an admin's deactivation and a role taken
 * away delete the user's other sign-in sessions and revoke every refresh-token chain (400
 * `invalid_grant` from then on, re-activation included). The admin UI session that changed its own
 * password survives; a change through the API with a bearer token revokes the caller's chain too.
 * Revoking a remembered consent revokes the chains of that user and client only. Access tokens
 * already issued stay valid until they expire (stateless JWTs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { until } from '../../helpers/eventually.js';
import { aProject } from '../../fixtures/management.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { findRefreshToken } from '../../../src/management/oauth/queries.js';
import { refreshTokens } from '../../../src/management/schema.js';
import { rememberDecision } from '../../../src/management/oauth/authorize/approvals.js';
import type { Database } from '../../../src/platform/database.js';

const PASSWORD = 'Passw0rd';
let t: TestApp;
let db: Database;
let mp: ReturnType<typeof managementClient>;
let smtp: SmtpStub;
let admin: string;
let project: { id: number; projectName: string };

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ SMTP_URL: smtp.url });
  db = t.app.db.db;
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  project = await aProject(db);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** A project admin of the test project (password `Passw0rd`): may use the admin UI. */
const aProjectAdmin = () => mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });

/** A password grant of `login` through `clientId` (a public client): its access and refresh token. */
async function tokensOf(login: string, password = PASSWORD, clientId = 'ManagementPortalapp'): Promise<{ access: string; refresh: string }> {
  const res = await mp.token({ grant_type: 'password', client_id: clientId, username: login, password });
  expect(res.status, JSON.stringify(res)).toBe(200);
  return { access: res.access_token as string, refresh: res.refresh_token as string };
}

const refresh = (refreshToken: string, clientId = 'ManagementPortalapp'): Promise<Json> =>
  mp.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });

function expectRevoked(res: Json): void {
  expect(res).toEqual({ status: 400, error: 'invalid_grant', error_description: 'Refresh token was revoked' });
}

/** A public client that may use the password and refresh-token grants. */
async function aPasswordClient(): Promise<string> {
  const clientId = unique('app');
  await upsertClient(db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['PROJECT.READ'],
    authorizedGrantTypes: ['password', 'refresh_token'],
  });
  return clientId;
}

/** An admin UI client signed in as `login`. */
async function signedIn(login: string, password = PASSWORD) {
  const ui = uiClient(t.app);
  expect((await ui.signIn(login, password)).status).toBe(303);
  return ui;
}
const cookieOf = (ui: ReturnType<typeof uiClient>) => [...ui.jar].map(([k, v]) => `${k}=${v}`).join('; ');
/** `GET /api/account` with the session cookie of `ui`. */
const accountWithCookie = async (ui: ReturnType<typeof uiClient>) => (await mp.call('GET', '/api/account', { headers: { cookie: cookieOf(ui) } })).status;
/** An admin UI page: 200 when signed in, a redirect to sign in when not. */
async function expectSignedIn(ui: ReturnType<typeof uiClient>, signedIn: boolean): Promise<void> {
  const page = await ui.get('/account/settings');
  if (signedIn) {
    expect(page.status).toBe(200);
    expect(await accountWithCookie(ui)).toBe(200);
  } else {
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/\/login\?next=/);
    expect(await accountWithCookie(ui)).toBe(401);
  }
}

async function userDto(login: string): Promise<Json> {
  const res = await mp.call('GET', `/api/users/${login}`, { bearer: admin });
  expect(res.status).toBe(200);
  return res.body;
}
async function putUser(body: Json): Promise<void> {
  const res = await mp.call('PUT', '/api/users', { bearer: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('password change', () => {
  it('on the account page: the other session is signed out and every refresh token revoked; the page\'s own session goes on', async () => {
    const pa = await aProjectAdmin();
    const a = await signedIn(pa.login);
    const b = await signedIn(pa.login);
    const tokens = await tokensOf(pa.login);
    await expectSignedIn(b, true);

    const changed = await a.submit('/account/password', '/account/password', { currentPassword: PASSWORD, newPassword: 'Brand-new-1', confirmPassword: 'Brand-new-1' });
    expect(changed.status).toBe(303);
    expect(changed.location).toMatch(/\/account\/password\?saved=1$/);

    await expectSignedIn(b, false);
    await expectSignedIn(a, true);
    expectRevoked(await refresh(tokens.refresh));
    // Access tokens are stateless JWTs: valid until they expire.
    expect((await mp.call('GET', `/api/projects/${project.projectName}`, { bearer: tokens.access })).status).toBe(200);
    // The new password works for new tokens, which refresh.
    expect((await refresh((await tokensOf(pa.login, 'Brand-new-1')).refresh)).status).toBe(200);
  });

  it('through the API with a bearer token: the caller\'s own refresh token is revoked too, and every session signed out; its access token still works', async () => {
    const pa = await aProjectAdmin();
    const ui = await signedIn(pa.login);
    const caller = await tokensOf(pa.login);
    const other = await tokensOf(pa.login);

    const res = await mp.call('POST', '/api/account/change_password', { bearer: caller.access, body: 'Brand-new-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(204);

    expectRevoked(await refresh(caller.refresh));
    expectRevoked(await refresh(other.refresh));
    await expectSignedIn(ui, false);
    expect((await mp.call('GET', '/api/account', { bearer: caller.access })).status).toBe(200);
  });

  it('through the API with the admin UI\'s session cookie: that session goes on, the other one is signed out', async () => {
    const pa = await aProjectAdmin();
    const a = await signedIn(pa.login);
    const b = await signedIn(pa.login);
    const csrf = csrfOf((await a.get('/account/password')).body);
    const res = await mp.call('POST', '/api/account/change_password', { body: 'Brand-new-1', headers: { cookie: cookieOf(a), 'x-csrf-token': csrf } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    await expectSignedIn(b, false);
    await expectSignedIn(a, true);
  });

  it('a refused change (weak password) ends nothing', async () => {
    const pa = await aProjectAdmin();
    const ui = await signedIn(pa.login);
    const tokens = await tokensOf(pa.login);
    expect((await mp.call('POST', '/api/account/change_password', { bearer: tokens.access, body: 'weak' })).status).toBe(400);
    await expectSignedIn(ui, true);
    expect((await refresh(tokens.refresh)).status).toBe(200);
  });
});

describe('password reset', () => {
  it('with the mailed key: the old refresh token is revoked and the sessions are signed out', async () => {
    const pa = await aProjectAdmin();
    const email = `${pa.login}@example.org`;
    const ui = await signedIn(pa.login);
    const tokens = await tokensOf(pa.login);

    expect((await mp.call('POST', '/api/account/reset_password/init', { body: email })).status).toBe(204);
    await until(() => expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1), 30_000);
    const text = mimeParts(smtp.mails.find((m) => m.to.includes(email))!.raw).find((p) => p.type === 'text/plain')?.body ?? '';
    const key = /reset\/finish\?key=(\d{20})/.exec(text)?.[1];
    expect(key, text).toBeDefined();
    const res = await mp.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'Brand-new-1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);

    expectRevoked(await refresh(tokens.refresh));
    await expectSignedIn(ui, false);
    expect((await refresh((await tokensOf(pa.login, 'Brand-new-1')).refresh)).status).toBe(200);
  });
});

describe('deactivation', () => {
  it('by an admin: the refresh token is revoked (400 invalid_grant) and stays revoked after re-activation', async () => {
    const pa = await aProjectAdmin();
    const tokens = await tokensOf(pa.login);
    const dto = await userDto(pa.login);
    await putUser({ ...dto, activated: false });
    expectRevoked(await refresh(tokens.refresh));
    await putUser({ ...dto, activated: true });
    expectRevoked(await refresh(tokens.refresh));
    // The user signs in again and gets a chain that works.
    expect((await refresh((await tokensOf(pa.login)).refresh)).status).toBe(200);
  });
});

describe('role changes', () => {
  /** A user with a project-admin role in the test project and one in another project. */
  async function twoRoleUser() {
    const pa = await aProjectAdmin();
    const other = await aProject(db);
    const roles = [
      { projectName: project.projectName, authorityName: 'ROLE_PROJECT_ADMIN' },
      { projectName: other.projectName, authorityName: 'ROLE_PROJECT_ADMIN' },
    ];
    expect((await mp.call('PUT', `/api/users/${pa.login}/roles`, { bearer: admin, body: roles })).status).toBe(204);
    return { ...pa, roles };
  }

  it('PUT /api/users/{login}/roles taking a role away: every refresh token revoked, every session signed out', async () => {
    const pa = await twoRoleUser();
    const ui = await signedIn(pa.login);
    const tokens = await tokensOf(pa.login);
    const res = await mp.call('PUT', `/api/users/${pa.login}/roles`, { bearer: admin, body: [pa.roles[0]] });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expectRevoked(await refresh(tokens.refresh));
    await expectSignedIn(ui, false);
  });

  it('PUT /api/users with a role taken away: every refresh token revoked', async () => {
    const pa = await twoRoleUser();
    const tokens = await tokensOf(pa.login);
    const dto = await userDto(pa.login);
    await putUser({ ...dto, roles: dto.roles.filter((r: Json) => r.projectName === project.projectName) });
    expectRevoked(await refresh(tokens.refresh));
  });

  it('a role only added ends nothing: the next refresh carries it', async () => {
    const pa = await aProjectAdmin();
    const ui = await signedIn(pa.login);
    const tokens = await tokensOf(pa.login);
    const other = await aProject(db);
    const roles = [
      { projectName: project.projectName, authorityName: 'ROLE_PROJECT_ADMIN' },
      { projectName: other.projectName, authorityName: 'ROLE_PROJECT_ADMIN' },
    ];
    expect((await mp.call('PUT', `/api/users/${pa.login}/roles`, { bearer: admin, body: roles })).status).toBe(204);
    const refreshed = await refresh(tokens.refresh);
    expect(refreshed.status).toBe(200);
    expect((await mp.call('GET', `/api/projects/${other.projectName}`, { bearer: refreshed.access_token })).status).toBe(200);
    await expectSignedIn(ui, true);
  });
});

describe('remembered consents', () => {
  it('revoking one revokes the refresh tokens of that user and client; other clients\' and other users\' stay', async () => {
    const pa = await aProjectAdmin();
    const someone = await aProjectAdmin();
    const [revokedClient, otherClient] = [await aPasswordClient(), await aPasswordClient()];
    const mine = await tokensOf(pa.login, PASSWORD, revokedClient);
    const mineToo = await tokensOf(pa.login, PASSWORD, revokedClient);
    const elsewhere = await tokensOf(pa.login, PASSWORD, otherClient);
    const theirs = await tokensOf(someone.login, PASSWORD, revokedClient);
    await rememberDecision(db, pa.login, revokedClient, ['PROJECT.READ'], true, new Date());

    const ui = await signedIn(pa.login);
    const res = await ui.submit('/account/approvals', '/account/approvals/revoke', { clientId: revokedClient });
    expect(res.status).toBe(303);
    expect((await ui.get('/account/approvals')).body).not.toContain(revokedClient);

    expectRevoked(await refresh(mine.refresh, revokedClient));
    expectRevoked(await refresh(mineToo.refresh, revokedClient));
    expect((await refresh(elsewhere.refresh, otherClient)).status).toBe(200);
    expect((await refresh(theirs.refresh, revokedClient)).status).toBe(200);
    // The access token stays valid until it expires.
    expect((await mp.call('GET', `/api/projects/${project.projectName}`, { bearer: mine.access })).status).toBe(200);
    await expectSignedIn(ui, true);
  });
});

describe('a revocation racing a rotation', () => {
  it('a successor the revoking statement missed (its parent revoked, itself not) is refused, and its chain revoked', async () => {
    const pa = await aProjectAdmin();
    const first = await tokensOf(pa.login);
    const second = await refresh(first.refresh);
    expect(second.status).toBe(200);
    // On PostgreSQL a rotation committing during the revoking UPDATE leaves this state: the used
    // parent revoked, the successor (not in the UPDATE's snapshot) not.
    await db.update(refreshTokens).set({ revokedAt: new Date() }).where(eq(refreshTokens.jti, decodeJwt(first.refresh).jti as string));

    expectRevoked(await refresh(second.refresh_token as string));
    expect(await findRefreshToken(db, decodeJwt(second.refresh_token as string).jti as string)).toMatchObject({ usedAt: null, revokedAt: expect.any(Date) });
  });
});
