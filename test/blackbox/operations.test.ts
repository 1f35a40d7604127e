/**
 * The operations features of the real process (`node dist/main.js`): registration with a Spring
 * Boot Admin server stub (register, repeat, deregister on SIGTERM; one WARN while it is down) and
 * Sentry initialised at start, reporting to an envelope stub over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killServices, spawnService, started, waitFor, builtService } from '../helpers/service-process.js';
import { startAdminServerStub, type AdminServerStub } from '../helpers/admin-server-stub.js';
import { startSentryStub, type SentryStub } from '../helpers/sentry-stub.js';
import { pgliteProject, requires } from '../helpers/requires.js';

const stubs: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await killServices();
  for (const stub of stubs.splice(0)) await stub.close();
});

async function adminStub(): Promise<AdminServerStub> {
  const stub = await startAdminServerStub();
  stubs.push(stub);
  return stub;
}

async function sentryStub(): Promise<SentryStub> {
  const stub = await startSentryStub();
  stubs.push(stub);
  return stub;
}

/** The JSON log lines of a process's stdout with this message. */
const logged = (stdout: string, msg: string) => stdout.split('\n').filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === msg);

describe('dist/main.js operations', requires(builtService, pgliteProject), () => {
  it('registers with the admin server, again every period, and deregisters on SIGTERM', async () => {
    const admin = await adminStub();
    const proc = spawnService({
      LOG_FORMAT: 'json',
      // The reference's deployments set it this way.
      SPRING_APPLICATION_JSON: JSON.stringify({ spring: { boot: { admin: { client: { url: admin.url, period: 200 } } } } }),
      SPRING_BOOT_ADMIN_CLIENT_USERNAME: 'admin-user',
      SPRING_BOOT_ADMIN_CLIENT_PASSWORD: 'admin-secret-3c9e',
    });
    const base = await started(proc);
    const port = new URL(base).port;
    await waitFor('three registrations', 20, () => admin.registrations().length >= 3 ? true : undefined);
    const [first, , third] = admin.registrations();
    expect(first!.authorization).toBe(`Basic ${Buffer.from('admin-user:admin-secret-3c9e').toString('base64')}`);
    expect(first!.body).toEqual({
      name: 'radar-appserver',
      managementUrl: expect.stringMatching(new RegExp(`^http://[^/]+:${port}/actuator$`)),
      healthUrl: expect.stringMatching(new RegExp(`^http://[^/]+:${port}/actuator/health$`)),
      serviceUrl: expect.stringMatching(new RegExp(`^http://[^/]+:${port}/$`)),
      metadata: { startup: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
    });
    expect(third!.body).toEqual(first!.body);

    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
    const last = admin.requests.at(-1)!;
    expect(last).toMatchObject({ method: 'DELETE', path: '/instances/id-radar-appserver', authorization: first!.authorization });
    expect(proc.stdout() + proc.stderr()).not.toContain('admin-secret-3c9e');
  });

  it('warns once while the admin server is down, retries, and registers when it is back', async () => {
    const admin = await adminStub();
    admin.down = true;
    const proc = spawnService({
      LOG_FORMAT: 'json',
      SPRING_BOOT_ADMIN_CLIENT_URL: admin.url,
      SPRING_BOOT_ADMIN_CLIENT_PERIOD: '100',
      SPRING_BOOT_ADMIN_CLIENT_INSTANCE_NAME: 'appserver-2',
      SPRING_BOOT_ADMIN_CLIENT_INSTANCE_SERVICE_BASE_URL: 'https://radar.example.org/appserver',
      SPRING_BOOT_ADMIN_CLIENT_AUTO_DEREGISTRATION: 'false',
    });
    await started(proc);
    await waitFor('four attempts', 20, () => admin.registrations().length >= 4 ? true : undefined);
    expect(logged(proc.stdout(), 'admin server registration failed; retrying every period')).toHaveLength(1);
    expect(logged(proc.stdout(), 'admin server registration failed; retrying every period')[0]).toMatchObject({ level: 40, url: `${admin.url}/instances`, problem: 'HTTP 503' });
    admin.down = false;
    await waitFor('the registration', 20, () => logged(proc.stdout(), 'registered with the admin server').length === 1 ? true : undefined);
    expect(admin.registrations().at(-1)!.body).toMatchObject({
      name: 'appserver-2',
      managementUrl: 'https://radar.example.org/appserver/actuator',
      healthUrl: 'https://radar.example.org/appserver/actuator/health',
      serviceUrl: 'https://radar.example.org/appserver/',
    });
    expect(admin.registrations().at(-1)!.authorization).toBeUndefined();
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
    // Auto-deregistration off: no DELETE.
    expect(admin.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('reports to Sentry from the start, with the profile as environment and the release', async () => {
    const sentry = await sentryStub();
    const proc = spawnService({ LOG_FORMAT: 'json', SENTRY_DSN: sentry.dsn, SENTRY_LOG_LEVEL: 'INFO' });
    await started(proc);
    // INFO: the start-up records (migrations applied, started) are events too.
    await waitFor('the started event', 20, () => sentry.events().find((event) => event.message === 'started'));
    const event = sentry.events().find((e) => e.message === 'started')!;
    expect(event).toMatchObject({ level: 'info', environment: 'dev', release: expect.stringMatching(/^radar-platform@\d+\.\d+\.\d+/) });
    expect(event.extra).toMatchObject({ profile: 'dev', database: 'pglite' });
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
    // Flushed at shutdown: the shutdown record reached the stub before the process ended.
    expect(sentry.events().some((e) => e.message === 'shutting down')).toBe(true);
  });
});
