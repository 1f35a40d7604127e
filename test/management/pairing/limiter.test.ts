/**
 * The per-IP limit on meta-token reads (issue 11 item 3): every read counts, whatever its
 * outcome; past the limit 429 with `Retry-After` until the minute ends; other IPs unaffected;
 * `X-Forwarded-For` counts only with TRUST_PROXY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { radarTimestamp } from '../../helpers/management-api.js';
import { createMetaTokenReadLimiter, TooManyMetaTokenReads } from '../../../src/management/pairing/limiter.js';

let plain: TestApp;
let proxied: TestApp;
beforeAll(async () => {
  // The default limit (60) on one app; a small one behind a trusted proxy on the other.
  [plain, proxied] = await Promise.all([
    buildTestApp(),
    buildTestApp({ TRUST_PROXY: 'true', MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE: '2' }),
  ]);
});
afterAll(async () => { await Promise.all([plain?.close(), proxied?.close()]); });

const read = (t: TestApp, name: string, opts: { ip?: string; forwardedFor?: string } = {}) => t.app.inject({
  method: 'GET', url: `/managementportal/api/meta-token/${name}`,
  remoteAddress: opts.ip ?? '192.0.2.1',
  headers: opts.forwardedFor ? { 'x-forwarded-for': opts.forwardedFor } : {},
});

const tooMany = {
  message: 'Too many meta-token requests; try again later', entityName: 'meta-token', errorCode: 'error.tooManyRequests',
  params: { timestamp: expect.stringMatching(radarTimestamp) },
};

describe('meta-token reads per client IP', () => {
  it('serves 60 reads in a minute, answers the 61st with 429 and Retry-After; another IP is served', async () => {
    for (let i = 0; i < 60; i++) expect((await read(plain, `unknown${i}`)).statusCode).toBe(404);
    const limited = await read(plain, 'unknown60');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual(tooMany);
    expect(limited.headers['x-managementportalapp-error']).toBe('error.tooManyRequests');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Without TRUST_PROXY a forwarded address does not change who is counted.
    expect((await read(plain, 'unknown61', { forwardedFor: '198.51.100.7' })).statusCode).toBe(429);
    expect((await read(plain, 'unknown62', { ip: '192.0.2.2' })).statusCode).toBe(404);
  });

  it('counts the forwarded client address behind a trusted proxy', async () => {
    const viaProxy = (client: string) => read(proxied, 'unknown', { ip: '10.0.0.1', forwardedFor: client });
    expect((await viaProxy('198.51.100.1')).statusCode).toBe(404);
    expect((await viaProxy('198.51.100.1')).statusCode).toBe(404);
    expect((await viaProxy('198.51.100.1')).statusCode).toBe(429);
    expect((await viaProxy('198.51.100.2')).statusCode).toBe(404);
  });

  it('opens again when the minute ends', () => {
    let now = 1_000_000;
    const limiter = createMetaTokenReadLimiter({ maxPerMinute: 2, now: () => now });
    limiter.hit('192.0.2.9');
    limiter.hit('192.0.2.9');
    now += 59_000;
    try {
      limiter.hit('192.0.2.9');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TooManyMetaTokenReads);
      expect((err as TooManyMetaTokenReads).retryAfterSeconds).toBe(1);
    }
    now += 1000;
    expect(() => limiter.hit('192.0.2.9')).not.toThrow();
  });
});
