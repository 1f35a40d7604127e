/**
 * The account endpoints over HTTP (managementportal.md §2.1, AccountResourceIntTest of §14) and
 * the not-activated-users purge (§12): whole bodies of every success and failure, what is stored,
 * the password rules with quirk 8 fixed (`Z`, `z`, `9` count), reset keys that are single-use and
 * expire (400, never 500), and the rate limit of the public reset request. No response carries a
 * reset key, an activation key or a password hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { and, eq, inArray } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type ApiResponse, type Method } from '../../helpers/management-api.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { revisionChanges, revisions, roles, roleUsers, users } from '../../../src/management/schema.js';
import { runMaintenance } from '../../../src/management/maintenance.js';
import { NOT_ACTIVATED_USERS_PURGE } from '../../../src/management/account/purge.js';
import { isWeakPassword } from '../../../src/management/security/password-rules.js';
import { until } from '../../helpers/eventually.js';

let smtp: SmtpStub;
let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ SMTP_URL: smtp.url });
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.app.db.db;

/** Every call goes through here: no body may carry a secret of an account. */
async function call(method: Method, path: string, opts: { bearer?: string; body?: unknown; ip?: string } = {}): Promise<ApiResponse> {
  const res = opts.ip === undefined ? await mp.call(method, path, opts) : await callFrom(opts.ip, method, path, opts.body);
  const text = JSON.stringify(res.body ?? '');
  for (const secret of ['resetKey', 'reset_key', 'activationKey', 'passwordHash', 'password_hash', '$2a$', '$2b$']) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/\d{20}/); // a reset or activation key
  return res;
}

/** A call from another client address (the rate limit counts per IP). */
async function callFrom(ip: string, method: Method, path: string, body: unknown): Promise<ApiResponse> {
  const raw = typeof body === 'string';
  const res = await t.app.inject({
    method, url: `/managementportal${path}`, remoteAddress: ip,
    headers: { 'content-type': raw ? 'text/plain' : 'application/json' },
    payload: raw ? body as string : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : res.json() };
}

/** Every call of this file comes from its own address unless a test says otherwise. */
let nextIp = 1;
const freshIp = () => `10.1.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

const bodyA = (message: string, errorCode: string, extra: Record<string, string> = {}) =>
  ({ message, entityName: 'userManagement', errorCode, params: { timestamp: expect.stringMatching(radarTimestamp), ...extra } });
const weak = bodyA('Weak password. Use a password with more variety of numeric, alphabetical and symbol characters.', 'error.weakPassword');
const invalidKey = bodyA('Reset key invalid or expired', 'error.invalidResetKey');

async function aUser(opts: { activated?: boolean; password?: string; email?: string | null; createdDate?: Date; resetKey?: string; resetDate?: Date; activationKey?: string } = {}) {
  const login = unique('acct');
  const [row] = await db().insert(users).values({
    login, activated: opts.activated ?? true, email: opts.email === undefined ? `${login}@example.org` : opts.email, langKey: 'en',
    passwordHash: opts.password ? await bcrypt.hash(opts.password, 4) : null,
    ...(opts.createdDate ? { createdDate: opts.createdDate } : {}),
    resetKey: opts.resetKey ?? null, resetDate: opts.resetDate ?? null, activationKey: opts.activationKey ?? null,
  }).returning();
  return row!;
}

async function stored(id: number) {
  return (await db().select().from(users).where(eq(users.id, id)))[0];
}

async function grantRole(userId: number, authorityName: string, projectId: number | null) {
  let [role] = await db().select().from(roles).where(and(eq(roles.authorityName, authorityName), projectId === null ? undefined : eq(roles.projectId, projectId)));
  role ??= (await db().insert(roles).values({ authorityName, projectId }).returning())[0];
  await db().insert(roleUsers).values({ userId, roleId: role!.id });
}

const signIn = (login: string, password: string) =>
  mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password });

const userChanges = (userId: number) => db().select({ type: revisionChanges.revisionType, author: revisions.author, entity: revisionChanges.entity })
  .from(revisionChanges).innerJoin(revisions, eq(revisions.id, revisionChanges.revisionId))
  .where(and(eq(revisionChanges.entityType, 'user'), eq(revisionChanges.entityId, userId)))
  .orderBy(revisionChanges.revisionId);

const newKey = () => Array.from({ length: 20 }, () => String(Math.floor(Math.random() * 10))).join('');

describe('GET /api/account', () => {
  it('returns the signed-in user\'s UserDTO with its roles', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const res = await call('GET', '/api/account', { bearer: u.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: u.userId, login: u.login, firstName: null, lastName: null, email: `${u.login}@example.org`, activated: true, langKey: 'en',
      createdBy: 'system', createdDate: iso, lastModifiedBy: null, lastModifiedDate: null,
      roles: [{ id: expect.any(Number), projectId: project.id, projectName: project.projectName, authorityName: 'ROLE_PROJECT_ADMIN' }],
      authorities: ['ROLE_PROJECT_ADMIN'],
    });
  });

  it('is 403 body A for a client-credentials token and 401 without a token', async () => {
    const client = await mp.clientCredentials(['USER.READ'], admin);
    const res = await call('GET', '/api/account', { bearer: client });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(bodyA('Cannot get account without user', 'error.accessDenied'));
    expect(res.headers['x-managementportalapp-error']).toBe('error.accessDenied');
    expect((await call('GET', '/api/account')).status).toBe(401);
  });
});

describe('POST /api/account', () => {
  it('updates names, e-mail and language of the signed-in user only, ignoring other fields; records a revision', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const email = `${unique('new')}@example.org`;
    const res = await call('POST', '/api/account', {
      bearer: u.token,
      body: { login: 'admin', firstName: 'Grace', lastName: 'Hopper', email, langKey: 'nl', activated: false, roles: [], authorities: ['ROLE_SYS_ADMIN'], id: 1 },
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const account = (await call('GET', '/api/account', { bearer: u.token })).body;
    expect(account).toMatchObject({ login: u.login, firstName: 'Grace', lastName: 'Hopper', email, langKey: 'nl', activated: true, lastModifiedBy: u.login, lastModifiedDate: iso });
    expect(account.authorities).toEqual(['ROLE_PROJECT_ADMIN']);
    expect((await stored(1))).toMatchObject({ login: 'admin', firstName: 'Administrator' });
    const changes = await userChanges(u.userId);
    expect(changes.at(-1)).toMatchObject({ type: 'MOD', author: u.login, entity: { login: u.login, firstName: 'Grace', email } });
  });

  it('keeps its own e-mail address; another user\'s is 409 error.emailexists and nothing changes', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const own = `${u.login}@example.org`;
    expect((await call('POST', '/api/account', { bearer: u.token, body: { firstName: 'Same', email: own } })).status).toBe(204);
    const other = await aUser();
    const res = await call('POST', '/api/account', { bearer: u.token, body: { firstName: 'Changed', email: other.email } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(bodyA(`Email address ${other.email} already in use`, 'error.emailexists', { email: other.email! }));
    expect(await stored(u.userId)).toMatchObject({ firstName: 'Same', email: own });
  });

  it('validates the body (400 error.validation)', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    for (const body of [{ email: 'not-an-address' }, { firstName: 'x'.repeat(51) }, { langKey: 'toolong' }]) {
      const res = await call('POST', '/api/account', { bearer: u.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ message: 'error.validation', fieldErrors: [expect.objectContaining({ objectName: 'body' })] });
    }
  });

  it('needs USER.UPDATE (403 ErrorVM for a project analyst) and a user (403 body A for a client)', async () => {
    const project = await aProject(db());
    const analyst = await mp.userWithRole('ROLE_PROJECT_ANALYST', { project: project.projectName });
    const res = await call('POST', '/api/account', { bearer: analyst.token, body: { firstName: 'No' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: 'error.accessDenied', fieldErrors: null });
    expect(await stored(analyst.userId)).toMatchObject({ firstName: null });
    const client = await mp.clientCredentials(['USER.UPDATE'], admin);
    const byClient = await call('POST', '/api/account', { bearer: client, body: { firstName: 'No' } });
    expect(byClient.status).toBe(403);
    expect(byClient.body).toEqual(bodyA('Cannot get account without user', 'error.accessDenied'));
  });
});

describe('password strength', () => {
  it('needs 8–100 characters with A–Z, a–z and 0–9, where Z, z and 9 count (quirk 8 fixed)', () => {
    expect(isWeakPassword('Zz999999')).toBe(false);
    expect(isWeakPassword('Azzzzzz9')).toBe(false);
    expect(isWeakPassword('Zzzzzzz0')).toBe(false);
    expect(isWeakPassword('Zz99999')).toBe(true); // 7 characters
    expect(isWeakPassword('zzzzzzz9')).toBe(true); // no upper case
    expect(isWeakPassword('ZZZZZZZ9')).toBe(true); // no lower case
    expect(isWeakPassword('Zzzzzzzz')).toBe(true); // no digit
    expect(isWeakPassword('ÄÖÜäöü12')).toBe(true); // only A–Z and a–z count as letters
  });
});

describe('POST /api/account/change_password', () => {
  it('sets the password from a raw text body (Z, z and 9 are enough); the old one stops working', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const res = await call('POST', '/api/account/change_password', { bearer: u.token, body: 'Zzzzzzz9' });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await signIn(u.login, 'Zzzzzzz9')).toMatchObject({ status: 200, token_type: 'bearer' });
    expect(await signIn(u.login, 'Passw0rd')).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect((await stored(u.userId))!.passwordHash).toMatch(/^\$2[ab]\$10\$/);
    expect((await userChanges(u.userId)).at(-1)).toMatchObject({ type: 'MOD', author: u.login });
  });

  it('accepts a JSON string body too', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const res = await t.app.inject({
      method: 'POST', url: '/managementportal/api/account/change_password', payload: JSON.stringify('Json-passw0rd'),
      headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(204);
    expect(await signIn(u.login, 'Json-passw0rd')).toMatchObject({ status: 200 });
  });

  it('refuses weak (400 error.weakPassword) and long (400 error.longPassword) passwords and keeps the old one', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    for (const password of ['Short9z', 'nouppercase9', 'NOLOWERCASE9', 'NoDigitsHere']) {
      const res = await call('POST', '/api/account/change_password', { bearer: u.token, body: password });
      expect(res.status, password).toBe(400);
      expect(res.body).toEqual(weak);
      expect(res.headers['x-managementportalapp-error']).toBe('error.weakPassword');
    }
    const long = await call('POST', '/api/account/change_password', { bearer: u.token, body: `Aa1${'x'.repeat(98)}` });
    expect(long.status).toBe(400);
    expect(long.body).toEqual(bodyA('Password too long', 'error.longPassword'));
    expect((await call('POST', '/api/account/change_password', { bearer: u.token, body: `Aa1${'x'.repeat(97)}` })).status).toBe(204);
    expect(await signIn(u.login, `Aa1${'x'.repeat(97)}`)).toMatchObject({ status: 200 });
  });

  it('needs a body (400), a user (403 body A for a client) and a token (401)', async () => {
    const project = await aProject(db());
    const u = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    expect((await call('POST', '/api/account/change_password', { bearer: u.token, body: '' })).status).toBe(400);
    const client = await mp.clientCredentials(['USER.UPDATE'], admin);
    const res = await call('POST', '/api/account/change_password', { bearer: client, body: 'Passw0rd-new' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(bodyA('Cannot get account without user', 'error.accessDenied'));
    expect((await call('POST', '/api/account/change_password', { body: 'Passw0rd-new' })).status).toBe(401);
  });
});

describe('POST /api/account/reset-activation/init', () => {
  it('gives a user that is not activated a new 20-digit reset key and mails it', async () => {
    const old = newKey();
    const user = await aUser({ activated: false, resetKey: old, resetDate: new Date(Date.now() - 5 * 86_400_000) });
    const res = await call('POST', '/api/account/reset-activation/init', { bearer: admin, body: user.login.toUpperCase() });
    expect(res.status).toBe(204);
    const after = (await stored(user.id))!;
    expect(after.resetKey).toMatch(/^\d{20}$/);
    expect(after.resetKey).not.toBe(old);
    expect(Date.now() - after.resetDate!.getTime()).toBeLessThan(60_000);
    expect(after.lastModifiedBy).toBe('admin');
    await until(() => expect(smtp.mails.some((m) => m.to.includes(user.email!))).toBe(true));
    // The old link is dead, the new one works.
    expect((await call('POST', '/api/account/reset_password/finish', { body: { key: old, newPassword: 'Passw0rd-1' } })).status).toBe(400);
    expect((await call('POST', '/api/account/reset_password/finish', { body: { key: after.resetKey, newPassword: 'Passw0rd-1' } })).status).toBe(204);
  });

  it('is 400 error.emailNotRegistered for an unknown or an activated login, which keeps its key', async () => {
    const unknown = unique('nobody');
    const res = await call('POST', '/api/account/reset-activation/init', { bearer: admin, body: unknown });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(bodyA(`Cannot find a deactivated user with login ${unknown}`, 'error.emailNotRegistered'));
    const active = await aUser({ activated: true });
    const again = await call('POST', '/api/account/reset-activation/init', { bearer: admin, body: active.login });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(bodyA(`Cannot find a deactivated user with login ${active.login}`, 'error.emailNotRegistered'));
    expect((await stored(active.id))!.resetKey).toBeNull();
  });

  it('needs USER.UPDATE on the user: a project admin reaches users of its project only; 401 without a token', async () => {
    const project = await aProject(db());
    const pa = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const inProject = await aUser({ activated: false });
    await grantRole(inProject.id, 'ROLE_PROJECT_AFFILIATE', project.id);
    expect((await call('POST', '/api/account/reset-activation/init', { bearer: pa.token, body: inProject.login })).status).toBe(204);
    const elsewhere = await aUser({ activated: false });
    const res = await call('POST', '/api/account/reset-activation/init', { bearer: pa.token, body: elsewhere.login });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: 'error.accessDenied' });
    expect((await stored(elsewhere.id))!.resetKey).toBeNull();
    expect((await call('POST', '/api/account/reset-activation/init', { body: elsewhere.login })).status).toBe(401);
  });
});

describe('POST /api/account/reset_password/init (public)', () => {
  it('sets a reset key for the activated user with that e-mail address (any case) and mails it', async () => {
    const user = await aUser({ activated: true });
    const res = await call('POST', '/api/account/reset_password/init', { body: ` ${user.email!.toUpperCase()}\n`, ip: freshIp() });
    expect(res.status).toBe(204);
    const after = (await stored(user.id))!;
    expect(after.resetKey).toMatch(/^\d{20}$/);
    expect((await userChanges(user.id)).at(-1)).toMatchObject({ type: 'MOD', author: 'system' });
    await until(() => expect(smtp.mails.some((m) => m.to.includes(user.email!))).toBe(true));
  });

  it('is 400 error.emailNotRegistered for an unknown address or a user not activated', async () => {
    const inactive = await aUser({ activated: false });
    for (const email of [`${unique('nobody')}@example.org`, inactive.email!]) {
      const res = await call('POST', '/api/account/reset_password/init', { body: email, ip: freshIp() });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(bodyA('email address not registered', 'error.emailNotRegistered'));
    }
    expect((await stored(inactive.id))!.resetKey).toBeNull();
    expect((await call('POST', '/api/account/reset_password/init', { body: '', ip: freshIp() })).status).toBe(400);
  });

  it('allows 5 requests a minute per client IP, then 429 with Retry-After (whatever the outcome)', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      expect((await call('POST', '/api/account/reset_password/init', { body: `${unique('x')}@example.org`, ip })).status).toBe(400);
    }
    const user = await aUser({ activated: true });
    const res = await call('POST', '/api/account/reset_password/init', { body: user.email!, ip });
    expect(res.status).toBe(429);
    expect(res.body).toEqual(bodyA('Too many password reset requests; try again later', 'error.tooManyRequests'));
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await stored(user.id))!.resetKey).toBeNull();
    // Another client is not affected.
    expect((await call('POST', '/api/account/reset_password/init', { body: user.email!, ip: freshIp() })).status).toBe(204);
  });

  it('allows 5 requests a minute per e-mail address from any number of clients', async () => {
    const user = await aUser({ activated: true });
    for (let i = 0; i < 5; i++) {
      expect((await call('POST', '/api/account/reset_password/init', { body: user.email!, ip: freshIp() })).status).toBe(204);
    }
    expect((await call('POST', '/api/account/reset_password/init', { body: user.email!, ip: freshIp() })).status).toBe(429);
  });
});

describe('POST /api/account/reset_password/finish (public)', () => {
  it('sets the password, clears the key, activates the account and records a revision; the key works once', async () => {
    const key = newKey();
    const user = await aUser({ activated: false, resetKey: key, resetDate: new Date() });
    const res = await call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'Fresh-passw0rd' } });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await stored(user.id)).toMatchObject({ activated: true, resetKey: null, resetDate: null, lastModifiedBy: 'system' });
    expect(await signIn(user.login, 'Fresh-passw0rd')).toMatchObject({ status: 200 });
    expect((await userChanges(user.id)).at(-1)).toMatchObject({ type: 'MOD', author: 'system', entity: { login: user.login, activated: true } });
    const again = await call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'Other-passw0rd' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(invalidKey);
    expect(await signIn(user.login, 'Fresh-passw0rd')).toMatchObject({ status: 200 });
  });

  it('is 400 error.invalidResetKey for an expired, unknown or malformed key, and nothing changes', async () => {
    const timeout = t.config.managementportalCommonActivationKeyTimeoutInSeconds * 1000;
    const key = newKey();
    const user = await aUser({ activated: false, resetKey: key, resetDate: new Date(Date.now() - timeout - 1000) });
    for (const k of [key, newKey(), 'abc', `${key}0`]) {
      const res = await call('POST', '/api/account/reset_password/finish', { body: { key: k, newPassword: 'Fresh-passw0rd' } });
      expect(res.status, k).toBe(400);
      expect(res.body).toEqual(invalidKey);
      expect(res.headers['x-managementportalapp-error']).toBe('error.invalidResetKey');
    }
    expect(await stored(user.id)).toMatchObject({ activated: false, resetKey: key, passwordHash: null });
  });

  it('checks the password first: a weak one is 400 error.weakPassword and the key stays usable', async () => {
    const key = newKey();
    const user = await aUser({ activated: false, resetKey: key, resetDate: new Date() });
    const res = await call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'weak' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(weak);
    expect((await stored(user.id))!.resetKey).toBe(key);
  });

  it('validates the body (400 error.validation)', async () => {
    for (const body of [{ newPassword: 'Fresh-passw0rd' }, { key: newKey() }, 'Fresh-passw0rd']) {
      const res = await call('POST', '/api/account/reset_password/finish', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ message: 'error.validation' });
    }
  });

  it('of two concurrent uses of one key exactly one succeeds', async () => {
    const key = newKey();
    const user = await aUser({ activated: false, resetKey: key, resetDate: new Date() });
    const results = await Promise.all(['First-passw0rd', 'Second-passw0rd'].map((newPassword) =>
      call('POST', '/api/account/reset_password/finish', { body: { key, newPassword } })));
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
    const winner = results[0]!.status === 204 ? 'First-passw0rd' : 'Second-passw0rd';
    expect(await signIn(user.login, winner)).toMatchObject({ status: 200 });
  });
});

describe('GET /api/activate (public)', () => {
  it('activates the user with the activation key (200, empty body) once; then 404 body A', async () => {
    const key = newKey();
    const user = await aUser({ activated: false, activationKey: key });
    const res = await t.app.inject({ method: 'GET', url: `/managementportal/api/activate?key=${key}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await stored(user.id)).toMatchObject({ activated: true, activationKey: null });
    const again = await call('GET', `/api/activate?key=${key}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ ...bodyA('User with activation key not found', 'error.entityNotFound') });
    expect((await call('GET', '/api/activate')).status).toBe(400);
  });
});

describe('not-activated users purge', () => {
  const days = (n: number) => new Date(Date.now() - n * 86_400_000);

  it('deletes accounts never activated within 3 days, except participants and admin; records DEL revisions; safe to run twice at once', async () => {
    const project = await aProject(db());
    const stale = await aUser({ activated: false, createdDate: days(4) });
    const staleWithRole = await aUser({ activated: false, createdDate: days(4) });
    await grantRole(staleWithRole.id, 'ROLE_PROJECT_ADMIN', project.id);
    const recent = await aUser({ activated: false, createdDate: days(2) });
    const active = await aUser({ activated: true, createdDate: days(30) });
    const participant = await aUser({ activated: false, createdDate: days(4) });
    await grantRole(participant.id, 'ROLE_PARTICIPANT', project.id);
    const inactiveParticipant = await aUser({ activated: false, createdDate: days(4) });
    await grantRole(inactiveParticipant.id, 'ROLE_INACTIVE_PARTICIPANT', project.id);
    const deactivatedSubject = await aParticipant(db(), { project, activated: false });
    await db().update(users).set({ createdDate: days(4) }).where(eq(users.id, deactivatedSubject.user.id));
    await db().update(users).set({ activated: false, createdDate: days(400) }).where(eq(users.login, 'admin'));
    try {
      const now = new Date();
      await Promise.all([
        runMaintenance(db(), [NOT_ACTIVATED_USERS_PURGE], now, t.app.log),
        runMaintenance(db(), [NOT_ACTIVATED_USERS_PURGE], now, t.app.log),
      ]);
    } finally {
      await db().update(users).set({ activated: true }).where(eq(users.login, 'admin'));
    }
    const ids = [stale, staleWithRole, recent, active, participant, inactiveParticipant, deactivatedSubject.user].map((u) => u.id);
    const left = await db().select({ id: users.id }).from(users).where(inArray(users.id, ids));
    expect(left.map((r) => r.id).sort((a, b) => a - b)).toEqual([recent.id, active.id, participant.id, inactiveParticipant.id, deactivatedSubject.user.id].sort((a, b) => a - b));
    expect(await stored(1)).toMatchObject({ login: 'admin' });
    expect(await userChanges(stale.id)).toEqual([{ type: 'DEL', author: 'system', entity: expect.objectContaining({ login: stale.login, activated: false }) }]);
    expect(await userChanges(staleWithRole.id)).toEqual([{
      type: 'DEL', author: 'system',
      entity: expect.objectContaining({ login: staleWithRole.login, authorities: ['ROLE_PROJECT_ADMIN'] }),
    }]);
  });
});
