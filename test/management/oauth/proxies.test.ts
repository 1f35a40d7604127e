/**
 * TRUST_PROXY over HTTP (issue 17 item 4): which address the failed-attempt limit of
 * /oauth/token counts. The proxy appends the address it received the request from to
 * `X-Forwarded-For`; everything before that entry is whatever the client sent.
 *  - a hop count trusts exactly that many proxies, so the client is the appended address and a
 *    rotating, client-chosen first entry does not escape the limit;
 *  - `true` trusts every entry, so the client is the first one: its own choice;
 *  - a list of addresses/CIDRs trusts only proxies there; a direct client is its socket address.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const PROXY = '10.0.0.2';
const LIMIT = 3;

let hops: TestApp;
let all: TestApp;
let list: TestApp;
let native: TestApp;
beforeAll(async () => {
  const limit = { MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: String(LIMIT) };
  // One after another: four databases starting at once can outlast the plugin timeout on a busy machine.
  hops = await buildTestApp({ ...limit, TRUST_PROXY: '1' });
  all = await buildTestApp({ ...limit, TRUST_PROXY: 'true' });
  list = await buildTestApp({ ...limit, TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32' });
  native = await buildTestApp({ ...limit, SERVER_FORWARD_HEADERS_STRATEGY: 'native' });
}, 120_000);
afterAll(async () => { await Promise.all([hops?.close(), all?.close(), list?.close(), native?.close()]); });

/** A wrong password for `username`, sent from `from` (the socket) with an optional `X-Forwarded-For`. */
async function wrongPassword(t: TestApp, username: string, from: string, forwardedFor?: string) {
  const res = await t.app.inject({
    method: 'POST', url: '/managementportal/oauth/token', remoteAddress: from,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    payload: new URLSearchParams({ grant_type: 'password', client_id: 'radar_restapi', client_secret: 'secret', username, password: 'wrong' }).toString(),
  });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() as unknown };
}

const spoof = (i: number) => `198.18.${i}.${i + 1}`;
const badCredentials = { error: 'invalid_grant', error_description: 'Bad credentials' };

describe('TRUST_PROXY=1 (one reverse proxy in front)', () => {
  it('counts the address the proxy appended: rotating the first X-Forwarded-For entries does not escape the limit', async () => {
    const user = `victim-${randomBytes(4).toString('hex')}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      statuses.push((await wrongPassword(hops, user, PROXY, `${spoof(i)}, ${spoof(i + 50)}, 203.0.113.7`)).status);
    }
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
    // The client is 203.0.113.7: connecting directly from there it is blocked too...
    const direct = await wrongPassword(hops, user, '203.0.113.7');
    expect(direct.status).toBe(429);
    expect(Number(direct.retryAfter)).toBeGreaterThan(0);
    // ...while another client behind the same proxy is not.
    expect(await wrongPassword(hops, user, PROXY, '203.0.113.8')).toEqual({ status: 400, retryAfter: undefined, body: badCredentials });
  });

  it('takes X-Forwarded-Proto from the proxy: the sign-in cookie is Secure', async () => {
    const res = await hops.app.inject({
      url: '/managementportal/oauth/authorize?client_id=radar_dashboard&response_type=code', remoteAddress: PROXY,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' },
    });
    expect(res.statusCode).toBe(200);
    expect(String([res.headers['set-cookie']].flat().find((c) => String(c).startsWith('mp_oauth_session=')))).toMatch(/; Secure/);
  });
});

describe('TRUST_PROXY=true (every sender trusted)', () => {
  it('lets the client choose its own address with the first X-Forwarded-For entry, so rotating it escapes the limit', async () => {
    const user = `victim-${randomBytes(4).toString('hex')}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await wrongPassword(all, user, PROXY, `${spoof(i)}, 203.0.113.7`)).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    // Each spoofed first entry got its own counter: the one used three times is blocked, wherever it comes from.
    for (let i = 0; i < LIMIT - 1; i++) await wrongPassword(all, user, PROXY, `${spoof(0)}, 203.0.113.7`);
    expect((await wrongPassword(all, user, '192.0.2.200', spoof(0))).status).toBe(429);
  });
});

describe('TRUST_PROXY as a list of addresses and CIDR ranges', () => {
  it('trusts proxies in the list: the client is the last untrusted entry, whichever listed proxy it came through', async () => {
    const user = `victim-${randomBytes(4).toString('hex')}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await wrongPassword(list, user, `10.${i}.0.9`, `${spoof(i)}, 203.0.113.9`)).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    // Through a chain of two listed proxies, and over IPv6.
    expect((await wrongPassword(list, user, '2001:db8::1', `${spoof(9)}, 203.0.113.9, 10.7.7.7`)).status).toBe(429);
    expect((await wrongPassword(list, user, PROXY, '203.0.113.10')).status).toBe(400);
  });

  it('ignores X-Forwarded-For from a sender outside the list: a direct client is its socket address', async () => {
    const user = `victim-${randomBytes(4).toString('hex')}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await wrongPassword(list, user, '198.51.100.4', spoof(i))).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});

describe('SERVER_FORWARD_HEADERS_STRATEGY=native (the reference\'s Spring setting)', () => {
  it('trusts Tomcat\'s internal proxies (private, loopback, link-local ranges) and nothing else', async () => {
    const user = `victim-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < LIMIT; i++) {
      const proxy = ['172.20.0.3', '192.168.5.5', '127.0.0.1'][i]!;
      expect((await wrongPassword(native, user, proxy, `${spoof(i)}, 203.0.113.11`)).status).toBe(400);
    }
    expect((await wrongPassword(native, user, '100.64.0.1', '203.0.113.11')).status).toBe(429);
    // A public sender's X-Forwarded-For is not believed.
    expect((await wrongPassword(native, user, '203.0.113.50', '203.0.113.11')).status).toBe(400);
  });
});
