/**
 * Failed-authentication limiter (issue 9 item 11): per (client id or username, client IP), 429
 * with Retry-After past the limit until the minute ends; successes never counted; bounded memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createFailedAttemptLimiter, TooManyFailedAttempts } from '../../../src/management/oauth/limiter.js';
import { loadConfig } from '../../../src/config.js';

describe('MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE', () => {
  it('defaults to 20 and is read under the reference\'s names', () => {
    expect(loadConfig({}).managementportalOauthFailedAttemptsPerMinute).toBe(20);
    expect(loadConfig({ MANAGEMENTPORTAL_OAUTH_FAILEDATTEMPTSPERMINUTE: '7' }).managementportalOauthFailedAttemptsPerMinute).toBe(7);
    expect(loadConfig({ SPRING_APPLICATION_JSON: '{"managementportal":{"oauth":{"failedAttemptsPerMinute":5}}}' }).managementportalOauthFailedAttemptsPerMinute).toBe(5);
    expect(() => loadConfig({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '0' })).toThrow(/MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE/);
  });
});

describe('createFailedAttemptLimiter', () => {
  it('blocks a name from an IP past the limit until its window ends', () => {
    let now = 1_000_000;
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 2, now: () => now });
    limiter.check('a', 'ip1');
    limiter.recordFailure('a', 'ip1');
    now += 10_000;
    limiter.recordFailure('a', 'ip1');
    let error: unknown;
    try { limiter.check('a', 'ip1'); } catch (err) { error = err; }
    expect(error).toBeInstanceOf(TooManyFailedAttempts);
    expect((error as TooManyFailedAttempts).retryAfterSeconds).toBe(50);
    limiter.check('a', 'ip2');
    limiter.check('b', 'ip1');
    now += 49_999;
    expect(() => limiter.check('a', 'ip1')).toThrow(TooManyFailedAttempts);
    now += 1;
    limiter.check('a', 'ip1');
    limiter.recordFailure('a', 'ip1');
    limiter.check('a', 'ip1');
  });

  it('keeps memory bounded', () => {
    let now = 0;
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 5, now: () => now, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.recordFailure(`n${i}`, 'ip');
    expect(limiter.size()).toBeLessThanOrEqual(100);
    now += 61_000;
    for (let i = 0; i < 1000; i++) limiter.recordFailure(`m${i}`, 'ip');
    expect(limiter.size()).toBeLessThanOrEqual(100);
  });
});

describe('createFailedAttemptLimiter with a per-address limit (issue 17 item 5)', () => {
  it('blocks an IP for every name once its failures over all names reach the limit, until its window ends', () => {
    let now = 2_000_000;
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 20, maxPerAddressPerMinute: 3, now: () => now });
    for (const name of ['a', 'b']) { limiter.check(name, 'ip1'); limiter.recordFailure(name, 'ip1'); }
    now += 15_000;
    limiter.check('c', 'ip1');
    limiter.recordFailure('c', 'ip1');
    let error: unknown;
    try { limiter.check('never-tried', 'ip1'); } catch (err) { error = err; }
    expect(error).toBeInstanceOf(TooManyFailedAttempts);
    expect((error as TooManyFailedAttempts).retryAfterSeconds).toBe(45);
    // Other addresses are unaffected, whatever the name.
    limiter.check('a', 'ip2');
    limiter.check('never-tried', 'ip2');
    now += 44_999;
    expect(() => limiter.check('d', 'ip1')).toThrow(TooManyFailedAttempts);
    now += 1;
    limiter.check('d', 'ip1');
  });

  it('gives the later end when both the name and the address are blocked', () => {
    let now = 0;
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 1, maxPerAddressPerMinute: 2, now: () => now });
    limiter.recordFailure('a', 'ip');
    now += 30_000;
    limiter.recordFailure('b', 'ip'); // the address window began at 0, the name window of b at 30 s
    let error: unknown;
    try { limiter.check('b', 'ip'); } catch (err) { error = err; }
    expect((error as TooManyFailedAttempts).retryAfterSeconds).toBe(60);
  });

  it('counts nothing per address without the setting (the pairing and reset limiters)', () => {
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 2, now: () => 0 });
    for (let i = 0; i < 50; i++) limiter.recordFailure(`n${i}`, 'ip');
    limiter.check('n50', 'ip');
    expect(limiter.size()).toBe(50);
  });

  it('keeps the address counters bounded too', () => {
    let now = 0;
    const limiter = createFailedAttemptLimiter({ maxPerMinute: 5, maxPerAddressPerMinute: 5, now: () => now, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.recordFailure('n', `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size()).toBeLessThanOrEqual(200);
    now += 61_000;
    for (let i = 0; i < 1000; i++) limiter.recordFailure(`m${i}`, `10.1.${i >> 8}.${i & 255}`);
    expect(limiter.size()).toBeLessThanOrEqual(200);
  });
});

describe('the token endpoint behind the limiter', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '3', TRUST_PROXY: 'true' }); });
  afterAll(async () => { await t.close(); });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  async function token(form: Record<string, string>, auth: string | undefined, ip: string, path = '/oauth/token') {
    const res = await t.app.inject({
      method: 'POST', url: `/managementportal${path}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip, ...(auth ? { authorization: auth } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    return { status: res.statusCode, headers: res.headers, body: res.json() };
  }

  it('limits wrong client secrets per (client, IP); the right secret is not counted', async () => {
    for (let i = 0; i < 5; i++) expect((await token({ grant_type: 'client_credentials' }, basic('radar_redcap_integrator', 'secret'), '10.0.0.1')).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await token({ grant_type: 'client_credentials' }, basic('radar_redcap_integrator', 'wrong'), '10.0.0.1')).status).toBe(401);
    }
    const limited = await token({ grant_type: 'client_credentials' }, basic('radar_redcap_integrator', 'secret'), '10.0.0.1');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed authentication attempts; try again later' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['cache-control']).toBe('no-store');
    // Another IP, and another client from the same IP, are not affected.
    expect((await token({ grant_type: 'client_credentials' }, basic('radar_redcap_integrator', 'secret'), '10.0.0.2')).status).toBe(200);
    expect((await token({ grant_type: 'client_credentials' }, basic('radar_restapi', 'secret'), '10.0.0.1')).status).toBe(200);
    // The other client-authenticated endpoints share the counters.
    expect((await token({ token: 'x' }, basic('radar_redcap_integrator', 'secret'), '10.0.0.1', '/oauth/introspect')).status).toBe(429);
  });

  it('limits wrong passwords per (username, IP), not grant errors', async () => {
    const client = basic('radar_restapi', 'secret');
    for (let i = 0; i < 3; i++) {
      const res = await token({ grant_type: 'password', username: 'admin', password: 'wrong' }, client, '10.0.1.1');
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'Bad credentials' } });
    }
    const limited = await token({ grant_type: 'password', username: 'admin', password: 'admin' }, client, '10.0.1.1');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await token({ grant_type: 'password', username: 'admin', password: 'admin' }, client, '10.0.1.2')).status).toBe(200);
    // Grant errors (here a bad refresh token) are not authentication failures.
    for (let i = 0; i < 5; i++) {
      expect((await token({ grant_type: 'refresh_token', refresh_token: 'garbage' }, basic('radar_upload_backend', 'secret'), '10.0.2.1')).status).toBe(401);
    }
    expect((await token({ grant_type: 'client_credentials' }, basic('radar_upload_backend', 'secret'), '10.0.2.1')).status).toBe(200);
  });
});

describe('without TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '2' }); });
  afterAll(async () => { await t.close(); });

  it('counts by the socket address: X-Forwarded-For does not escape the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({
        method: 'POST', url: '/managementportal/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.9.0.${i}`, authorization: `Basic ${Buffer.from('radar_restapi:wrong').toString('base64')}` },
        payload: 'grant_type=client_credentials',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 429, 429]);
  });
});
