/**
 * Error reporting to Sentry (platform/sentry.ts) through the real @sentry/node SDK to a local
 * envelope stub over HTTP: a route that throws, log records at or above SENTRY_LOG_LEVEL, and
 * nothing secret in what is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createErrorHandler } from '../../src/platform/errors.js';
import { eventOf } from '../../src/platform/sentry.js';
import { buildApp } from '../../src/app.js';
import { testDatabase } from '../helpers/build-test-app.js';
import { until } from '../helpers/eventually.js';
import { startSentryStub, type SentryStub } from '../helpers/sentry-stub.js';

/** The parts of a received event these tests read. */
interface SentryEventPayload {
  level: string;
  environment: string;
  release: string;
  logger: string;
  tags: Record<string, string>;
  extra: Record<string, unknown>;
  exception?: { values: { type: string; value: string; stacktrace: { frames: unknown[] } }[] };
}

const SECRETS = ['bearer-secret-6d1f', 'cookie-secret-2a7c', 'query-secret-9e3b'];

/** A scope with the platform's error handler and a route that throws, as a domain's would be. */
function mountThrowingRoute(app: FastifyInstance): void {
  void app.register(async (scope) => {
    scope.setErrorHandler(createErrorHandler({ body: (status, message) => ({ status, message }) }));
    scope.get('/boom/:id', async () => { throw new TypeError('cannot read the widget'); });
  }, { prefix: '/test' });
}

describe('SENTRY_* settings', () => {
  it('are off by default and report errors when on', () => {
    expect(loadConfig({}).sentryDsn).toBeUndefined();
    expect(loadConfig({}).sentryLogLevel).toBe('error');
    expect(loadConfig({ SENTRY_LOG_LEVEL: 'WARN' }).sentryLogLevel).toBe('warn');
  });

  it('refuse a DSN the SDK would ignore, naming the variable', () => {
    expect(loadConfig({ SENTRY_DSN: 'https://abc123@o1.ingest.sentry.io/4506' }).sentryDsn).toBe('https://abc123@o1.ingest.sentry.io/4506');
    expect(() => loadConfig({ SENTRY_DSN: 'https://sentry.example.org/1' })).toThrow('SENTRY_DSN: must be a Sentry DSN such as https://<public key>@<host>/<project id>');
    expect(() => loadConfig({ SENTRY_DSN: 'http://key@host/project' })).toThrow('SENTRY_DSN');
  });

  it('refuse another level, naming the variable', () => {
    expect(() => loadConfig({ SENTRY_LOG_LEVEL: 'FATAL' })).toThrow(ConfigError);
    expect(() => loadConfig({ SENTRY_LOG_LEVEL: 'FATAL' })).toThrow('SENTRY_LOG_LEVEL: must be one of trace, debug, info, warn, error, got "FATAL"');
  });
});

describe('with SENTRY_DSN', () => {
  let stub: SentryStub;
  let app: FastifyInstance;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  beforeAll(async () => {
    stub = await startSentryStub();
    database = await testDatabase();
    const config = loadConfig({ SCHEDULER_ENABLED: 'false', SENTRY_DSN: stub.dsn, LOG_LEVEL: 'info', SENTRY_LOG_LEVEL: 'WARN', LOG_FORMAT: 'json', ...database.env }, '0.0.0-test');
    // The app's own logger (not a test logger), so its destinations include Sentry.
    app = await buildApp(config, { demoData: false, pgliteDataDir: database.pgliteDataDir });
    mountThrowingRoute(app);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
    await stub.close();
  });

  it('reports an unhandled 5xx with its method and route, without headers, cookies or tokens', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/test/boom/17?token=${SECRETS[2]}`,
      headers: { authorization: `Bearer ${SECRETS[0]}`, cookie: `SESSION=${SECRETS[1]}` },
    });
    expect(res.statusCode).toBe(500);
    await until(() => expect(stub.events().some((event) => event.message === 'unhandled error')).toBe(true));
    const item = stub.items.find((i) => i.type === 'event' && i.payload.message === 'unhandled error')!;
    const event = item.payload as unknown as SentryEventPayload;
    expect(item.project).toBe('1');
    expect(event.level).toBe('error');
    expect(event.environment).toBe('dev');
    expect(event.release).toBe('radar-platform@0.0.0-test');
    expect(event.tags).toMatchObject({ method: 'GET', route: '/test/boom/:id' });
    expect(event.exception!.values[0]).toMatchObject({ type: 'TypeError', value: 'cannot read the widget' });
    expect(event.exception!.values[0]!.stacktrace.frames.length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(item.raw).not.toContain(secret);
    expect(item.raw).not.toMatch(/authorization|cookie/i);
  });

  it('reports each log record at or above SENTRY_LOG_LEVEL as one event, and none below', async () => {
    app.log.info('an info line for the console only');
    app.log.warn({ component: 'scheduler', notificationId: 42 }, 'fcm send failed, retrying');
    await until(() => expect(stub.events().some((event) => event.message === 'fcm send failed, retrying')).toBe(true));
    const event = stub.events().find((e) => e.message === 'fcm send failed, retrying') as unknown as SentryEventPayload;
    expect(event.level).toBe('warning');
    expect(event.logger).toBe('scheduler');
    expect(event.extra).toMatchObject({ notificationId: 42 });
    expect(event.exception).toBeUndefined();
    expect(stub.items.find((i) => i.payload.message === 'fcm send failed, retrying')!.type).toBe('event');
    expect(stub.events().some((e) => e.message === 'an info line for the console only')).toBe(false);
  });
});

describe('a log record as a Sentry event', () => {
  it('keeps the message, level, error and fields, and drops a request\'s headers', () => {
    const event = eventOf({
      level: 50, time: 1_700_000_000_000, pid: 1, hostname: 'h', msg: 'database error', method: 'POST', route: '/users',
      sqlState: '23505', req: { method: 'POST', url: '/users', headers: { authorization: '[Redacted]', host: 'x' } },
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at handler (/app/dist/x.js:1:2)' },
    });
    expect(event).toMatchObject({
      message: 'database error', level: 'error', timestamp: 1_700_000_000, tags: { method: 'POST', route: '/users' },
      extra: { sqlState: '23505', req: { method: 'POST', url: '/users' } },
      exception: { values: [{ type: 'Error', value: 'boom' }] },
    });
    expect(JSON.stringify(event)).not.toContain('headers');
    expect(eventOf({ level: 60, msg: 'x' }).level).toBe('fatal');
    expect(eventOf({ level: 30, msg: 'x' }).level).toBe('info');
    expect(eventOf({ level: 20, msg: 'x' }).level).toBe('debug');
  });
});
