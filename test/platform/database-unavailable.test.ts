/**
 * A database that cannot be reached is an outage, answered 503 in the domain's error body, not a
 * bug answered 500 (issue 22 item 6; the end-to-end version is test/faults/postgres-restart.test.ts).
 */
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/database.js';
import { createErrorHandler } from '../../src/platform/errors.js';
import { appserverErrorFormat } from '../../src/appserver/errors.js';
import { managementErrorFormat } from '../../src/management/errors.js';
import { oauthErrorHandler } from '../../src/management/oauth/error-handler.js';

/** The error postgres.js gives for a server that refuses connections (nothing listens on port 1). */
async function refused(): Promise<unknown> {
  const { default: postgres } = await import('postgres');
  const client = postgres('postgres://postgres@127.0.0.1:1/x', { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await client`select 1`;
    throw new Error('connected to port 1');
  } catch (err) {
    return err;
  } finally {
    await client.end({ timeout: 0 });
  }
}

const sqlError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });
/** Drizzle wraps the driver's error as the cause of its own. */
const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: select 1'), { cause });

describe('isDatabaseUnavailable', () => {
  it('is true for a refused connection, also behind a wrapper, and for the shutdown and connection SQLSTATEs', async () => {
    const err = await refused();
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable(wrapped(err))).toBe(true);
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300']) expect(isDatabaseUnavailable(wrapped(sqlError(code))), code).toBe(true);
  });

  it('is false for query errors and other failures', () => {
    for (const code of ['23505', '22P02', '42P01', '40001']) expect(isDatabaseUnavailable(wrapped(sqlError(code))), code).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('the error handlers answer an unreachable database with 503', () => {
  const app = Fastify();
  afterAll(() => app.close());

  it('in each domain\'s body, with Retry-After and no stack', async () => {
    const err = wrapped(await refused());
    await app.register(async (scope) => {
      scope.setErrorHandler(createErrorHandler(appserverErrorFormat));
      scope.get('/appserver', async () => { throw err; });
    });
    await app.register(async (scope) => {
      scope.setErrorHandler(createErrorHandler(managementErrorFormat));
      scope.get('/management', async () => { throw err; });
    });
    await app.register(async (scope) => {
      scope.setErrorHandler(oauthErrorHandler);
      scope.get('/oauth', async () => { throw err; });
    });

    const appserver = await app.inject('/appserver');
    expect(appserver.statusCode).toBe(503);
    expect(appserver.headers['retry-after']).toBe('5');
    expect(appserver.json()).toEqual({ timestamp: expect.any(Number), status: 503, message: expect.stringMatching(/database cannot be reached/), path: 'uri=/appserver' });

    const management = await app.inject('/management');
    expect(management.statusCode).toBe(503);
    expect(management.json()).toEqual({ message: 'error.http.503', description: expect.stringMatching(/database cannot be reached/), fieldErrors: null });

    const oauth = await app.inject('/oauth');
    expect(oauth.statusCode).toBe(503);
    expect(oauth.headers['cache-control']).toBe('no-store');
    expect(oauth.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });

    for (const res of [appserver, management, oauth]) expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.js/);
  });

  it('a query error is still a 500', async () => {
    const other = Fastify();
    other.setErrorHandler(createErrorHandler(appserverErrorFormat));
    other.get('/q', async () => { throw wrapped(sqlError('42P01')); });
    try {
      const res = await other.inject('/q');
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ status: 500, message: 'Internal server error' });
    } finally {
      await other.close();
    }
  });
});
