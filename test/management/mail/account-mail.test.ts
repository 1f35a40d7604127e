/**
 * The account e-mails (managementportal.md §11) through nodemailer to a real SMTP server on
 * loopback: the creation mail (activation link) and the password-reset mail, each plain text plus
 * an HTML alternative with the link on MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL. The
 * tests follow the link's key to `reset_password/finish` and sign in with the new password. A
 * refused mail is retried without touching the account change. No reset key or password ever
 * reaches the log or a response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { startSmtpServer, type ReceivedMail, type SmtpStub } from '../../helpers/smtp.js';
import { loggerOptions } from '../../../src/platform/logging.js';
import { users } from '../../../src/management/schema.js';
import { createAccountMail } from '../../../src/management/mail/account-mail.js';
import { managementSettings } from '../../../src/management/settings.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { until } from '../../helpers/eventually.js';

const BASE_URL = 'https://mp.example.org/managementportal';
const FROM = 'accounts@example.org';

const captured = captureLog();

let smtp: SmtpStub;
let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
/** Every reset key and password the tests saw: none may be captured.text(). */
const secrets: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  const options = loggerOptions('debug'); // the production redaction, every level
  if (typeof options !== 'object') throw new Error('loggerOptions must return pino options');
  t = await buildTestApp({
    SMTP_URL: smtp.url,
    MANAGEMENTPORTAL_MAIL_FROM: FROM,
    MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL: `${BASE_URL}/`,
  }, { logger: { ...options, stream: captured.stream } });
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.app.db.db;

async function aUser(opts: { activated: boolean; password?: string }) {
  const login = unique('acct');
  const [row] = await db().insert(users).values({
    login, activated: opts.activated, email: `${login}@example.org`, firstName: 'Ada', langKey: 'en',
    passwordHash: opts.password ? await bcrypt.hash(opts.password, 4) : null,
  }).returning();
  return row!;
}

async function mailTo(address: string, count = 1): Promise<ReceivedMail> {
  await until(() => expect(smtp.mails.filter((m) => m.to.includes(address))).toHaveLength(count));
  return smtp.mails.filter((m) => m.to.includes(address))[count - 1]!;
}

const linkPattern = new RegExp(`${BASE_URL.replace(/[.]/g, '\\.')}/account/reset/finish\\?key=(\\d{20})`);

/** The text and HTML parts of a mail; both must carry the same link. Returns the key. */
function keyOf(mail: ReceivedMail): { key: string; text: string; html: string } {
  const parts = mimeParts(mail.raw);
  const text = parts.find((p) => p.type === 'text/plain')?.body ?? '';
  const html = parts.find((p) => p.type === 'text/html')?.body ?? '';
  const key = linkPattern.exec(text)?.[1];
  expect(key, text).toBeDefined();
  expect(html).toContain(`<a href="${BASE_URL}/account/reset/finish?key=${key}">`);
  secrets.push(key!);
  return { key: key!, text, html };
}

async function signIn(login: string, password: string) {
  return mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password });
}

describe('creation mail', () => {
  it('reset-activation/init mails the activation link; following it sets the password and activates the account', async () => {
    const user = await aUser({ activated: false });
    const res = await mp.call('POST', '/api/account/reset-activation/init', { bearer: admin, body: user.login });
    expect(res.status).toBe(204);

    const mail = await mailTo(user.email!);
    expect(mail).toMatchObject({ from: FROM, to: [user.email], subject: 'Your account has been created in ManagementPortal from RADAR-Base.' });
    expect(mail.raw).toMatch(/^Content-Type: multipart\/alternative/im);
    const { key, text, html } = keyOf(mail);
    expect(text).toContain('Dear Ada,');
    expect(text).toContain(`Your username is: ${user.login}`);
    expect(text).toContain('this link will expire in 24 hours');
    expect(html).toContain(`Your username is: ${user.login}`);
    const [stored] = await db().select().from(users).where(eq(users.id, user.id));
    expect(stored!.resetKey).toBe(key);

    const password = 'Zebra-crossing9';
    secrets.push(password);
    expect((await mp.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: password } })).status).toBe(204);
    const token = await signIn(user.login, password);
    expect(token).toMatchObject({ status: 200, token_type: 'bearer' });
    expect((await mp.call('GET', '/api/account', { bearer: token.access_token })).body).toMatchObject({ login: user.login, activated: true });
  });

  it('POST /api/users sends the creation mail with the stored reset key', async () => {
    const login = unique('created');
    const email = `${login}@example.org`;
    const res = await mp.call('POST', '/api/users', { bearer: admin, body: { login, email, firstName: 'New', lastName: 'User', roles: [] } });
    expect(res.status).toBe(201);
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Your account has been created in ManagementPortal from RADAR-Base.');
    const [stored] = await t.app.db.db.select().from(users).where(eq(users.login, login));
    expect(keyOf(mail).key).toBe(stored!.resetKey);
  });

  it('is skipped without an e-mail address', async () => {
    const before = smtp.mails.length;
    const accountMail = createAccountMail({ mail: t.app.mail, settings: managementSettings(t.config).mail, log: t.app.log });
    accountMail.creation({ login: unique('nomail'), email: null, langKey: 'en', resetKey: '1'.repeat(20) });
    // A marker mail sent afterwards arrives alone.
    const marker = await aUser({ activated: false });
    accountMail.creation({ login: marker.login, email: marker.email, resetKey: '2'.repeat(20) });
    await mailTo(marker.email!);
    expect(smtp.mails.length).toBe(before + 1);
    await accountMail.close();
  });
});

describe('password-reset mail', () => {
  it('reset_password/init mails the reset link; following it replaces the password', async () => {
    const oldPassword = 'Old-passw0rd';
    const user = await aUser({ activated: true, password: oldPassword });
    const res = await mp.call('POST', '/api/account/reset_password/init', { body: user.email!.toUpperCase() });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();

    const mail = await mailTo(user.email!);
    expect(mail).toMatchObject({ from: FROM, subject: 'ManagementPortal password reset' });
    const { key, text } = keyOf(mail);
    expect(text).toContain('a password reset was requested');

    const password = 'New-passw0rd';
    secrets.push(password);
    expect((await mp.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: password } })).status).toBe(204);
    expect(await signIn(user.login, password)).toMatchObject({ status: 200 });
    expect(await signIn(user.login, oldPassword)).toMatchObject({ status: 400, error: 'invalid_grant' });
    // The link works once.
    const again = await mp.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'Other-passw0rd' } });
    expect(again.status).toBe(400);
    expect(again.body.errorCode).toBe('error.invalidResetKey');
  });

  it('a refused mail is retried; the reset key stands meanwhile and the mail then arrives', async () => {
    const user = await aUser({ activated: true, password: 'Old-passw0rd' });
    smtp.refuse = 'mailbox unavailable';
    try {
      const res = await mp.call('POST', '/api/account/reset_password/init', { body: user.email! });
      expect(res.status).toBe(204);
      await until(() => expect(captured.text()).toMatch(new RegExp(`"login":"${user.login}".*"account mail failed, retrying"`)));
      const [stored] = await db().select().from(users).where(eq(users.id, user.id));
      expect(stored!.resetKey).toMatch(/^\d{20}$/);
    } finally {
      smtp.refuse = undefined;
    }
    const mail = await mailTo(user.email!);
    const { key } = keyOf(mail);
    const [stored] = await db().select().from(users).where(eq(users.id, user.id));
    expect(stored!.resetKey).toBe(key);
    // The outbox logs after the server accepted the mail, which may be after the test saw it arrive.
    await until(() => expect(captured.text()).toMatch(new RegExp(`"login":"${user.login}","attempt":2.*"account mail sent"`)));
  });
});

describe('logs', () => {
  it('never hold a reset key or a password', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    for (const secret of secrets) expect(captured.text()).not.toContain(secret);
    // The mail log lines name the kind and the login only.
    const mailLines = captured.text().split('\n').filter((l) => l.includes('account mail'));
    expect(mailLines.length).toBeGreaterThan(0);
    for (const line of mailLines) expect(Object.keys(JSON.parse(line))).not.toContain('message');
  });
});
