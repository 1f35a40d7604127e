/**
 * The Spring Boot Admin client with user info in its URL (`SPRING_BOOT_ADMIN_CLIENT_URL=
 * http://user:pass@host`, issue 28 item 4): the user info is sent as Basic auth, and no log line
 * holds it. Through the app as configured, against the admin server stub.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { startAdminServerStub, type AdminServerStub } from '../helpers/admin-server-stub.js';
import { captureLog } from '../helpers/log-capture.js';
import { until } from '../helpers/eventually.js';
import { loggerOptions } from '../../src/platform/logging.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let stub: AdminServerStub | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  await stub?.close();
  t = undefined;
  stub = undefined;
});

/** The app registering with the stub at `url(stub)`, listening; returns its captured log. */
async function registering(url: (stub: AdminServerStub) => string, env: Record<string, string> = {}) {
  stub = await startAdminServerStub();
  const captured = captureLog();
  t = await buildTestApp({ SPRING_BOOT_ADMIN_CLIENT_URL: url(stub), SPRING_BOOT_ADMIN_CLIENT_PERIOD: '100', ...env }, { logger: loggerOptions('info', captured.stream) });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return captured;
}

describe('SPRING_BOOT_ADMIN_CLIENT_URL with user info', () => {
  it('sends the user info as Basic auth to the URL without it, and logs the URL without it', async () => {
    const captured = await registering((s) => s.url.replace('http://', 'http://sba-user:s3cret%3Apw-71c2@'));
    await until(() => expect(captured.text()).toContain('registered with the admin server'));
    const [first] = stub!.registrations();
    expect(first!.authorization).toBe(basic('sba-user', 's3cret:pw-71c2'));
    await t!.close();
    t = undefined;
    expect(stub!.requests.at(-1)).toMatchObject({ method: 'DELETE', authorization: basic('sba-user', 's3cret:pw-71c2') });
    const lines = captured.lines().filter((line) => line.component === 'admin-client');
    expect(lines.map((line) => [line.msg, line.url])).toEqual(expect.arrayContaining([
      ['registered with the admin server', `${stub!.url}/instances`],
    ]));
    expect(captured.text()).not.toContain('s3cret');
    expect(captured.text()).not.toContain('sba-user');
  });

  it('logs the URL without user info while the admin server is down', async () => {
    const captured = await registering((s) => { s.down = true; return s.url.replace('http://', 'http://sba-user:s3cret-88ad@'); });
    await until(() => expect(captured.text()).toContain('admin server registration failed'));
    const [warning] = captured.lines().filter((line) => line.msg === 'admin server registration failed; retrying every period');
    expect(warning).toMatchObject({ url: `${stub!.url}/instances`, problem: 'HTTP 503' });
    expect(captured.text()).not.toContain('s3cret-88ad');
  });

  it('SPRING_BOOT_ADMIN_CLIENT_USERNAME and _PASSWORD win over the user info', async () => {
    const captured = await registering((s) => s.url.replace('http://', 'http://url-user:url-pw@'), {
      SPRING_BOOT_ADMIN_CLIENT_USERNAME: 'setting-user', SPRING_BOOT_ADMIN_CLIENT_PASSWORD: 'setting-pw',
    });
    await until(() => expect(captured.text()).toContain('registered with the admin server'));
    expect(stub!.registrations()[0]!.authorization).toBe(basic('setting-user', 'setting-pw'));
    expect(captured.text()).not.toContain('url-pw');
  });
});
