/**
 * Keys in page URLs never reach the log or another site (issue 28 item 4): the pages a mailed link
 * opens (`/account/reset/finish?key=`, `/activate?key=`) send `Referrer-Policy: no-referrer`, and a
 * `Referer` that still carries a key (an older browser, a page elsewhere) is logged redacted, on
 * the console stream and in the log file alike, through a whole password reset.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { LevelWithSilent, StreamEntry } from 'pino';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { managementClient } from '../../helpers/management-api.js';
import { closeLogDestinations, loggerOptions, logStream } from '../../../src/platform/logging.js';
import { logFileDestinations } from '../../../src/platform/log-files.js';
import { users } from '../../../src/management/schema.js';

const captured = captureLog();
const dir = mkdtempSync(join(tmpdir(), 'radar-key-pages-'));
let files: StreamEntry<LevelWithSilent>[] = [];
let t: TestApp;

beforeAll(async () => {
  // As buildApp wires the logger with LOGS_DIR (the production options and the two log files), plus a capture.
  files = await logFileDestinations({ logsDir: dir, logsMaxFileSize: 10 * 1024 * 1024, logsMaxHistory: 5 }, 'info');
  const stream = logStream([...files, { level: 'info', stream: captured.stream }], 'info');
  t = await buildTestApp({ LOG_LEVEL: 'info' }, { logger: loggerOptions('info', stream) });
});
afterAll(async () => {
  await t?.close();
  await closeLogDestinations(files);
  rmSync(dir, { recursive: true, force: true });
});

/** Every log file's text. */
const fileText = () => readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8')).join('');

/** The reset key the service stored for `login` (as the mailed link carries it). */
async function resetKeyOf(login: string): Promise<string> {
  const [row] = await t.app.db.db.select({ resetKey: users.resetKey }).from(users).where(eq(users.login, login));
  if (!row?.resetKey) throw new Error(`no reset key for ${login}`);
  return row.resetKey;
}

describe('pages with a key in their URL', () => {
  it.each([
    '/managementportal/account/reset/finish?key=00000000000000000001',
    '/managementportal/activate?key=00000000000000000002',
  ])('send Referrer-Policy: no-referrer (%s)', async (url) => {
    const res = await uiClient(t.app).get(url);
    expect(res.status).toBe(200);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('other pages keep same-origin', async () => {
    const res = await uiClient(t.app).get('/managementportal/account/reset/request');
    expect(res.status).toBe(200);
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });
});

describe('a password reset with the key in the Referer', () => {
  it('logs no key, neither in the log stream nor in the log file', async () => {
    const { login } = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN');
    const ui = uiClient(t.app);
    const asked = await ui.submit('/account/reset/request', '/account/reset/request', { email: `${login}@example.org` });
    expect(asked.status).toBe(303);
    const key = await resetKeyOf(login);
    const pageUrl = `http://localhost/managementportal/account/reset/finish?key=${key}`;

    const page = await ui.get(`/managementportal/account/reset/finish?key=${key}`);
    expect(page.status).toBe(200);
    // What the page loads and posts, each sent with the page as Referer.
    const referer = { referer: pageUrl };
    expect((await ui.get('/managementportal/content/ui.css', referer)).status).toBe(200);
    const done = await ui.post('/managementportal/account/reset/finish', {
      _csrf: csrfOf(page.body), key, newPassword: 'N3w-passw0rd!', confirmPassword: 'N3w-passw0rd!',
    }, referer);
    expect(done.status).toBe(303);
    expect(done.location).toBe('/managementportal/account/reset/done');
    // Referers of other shapes: the OAuth redirect's code, a check_token URL.
    await ui.get('/managementportal/account/reset/done', { referer: `https://app.example.org/callback?code=${key}&state=x` });
    await ui.get('/managementportal/login', { referer: `http://localhost/managementportal/oauth/check_token?token=${key}` });

    await closeLogDestinations(files.splice(0));
    const logged = captured.text();
    const file = fileText();
    // The requests were logged, their Referer with them, redacted.
    for (const text of [logged, file]) {
      expect(text).toContain('/managementportal/content/ui.css');
      expect(text).toContain('"referer":"http://localhost/managementportal/account/reset/finish?key=%5BRedacted%5D"');
      expect(text).not.toContain(key);
    }
    // The new password works: the reset went through.
    expect(await managementClient(t.app).tokenOf(login, 'N3w-passw0rd!')).toBeTruthy();
  });
});
