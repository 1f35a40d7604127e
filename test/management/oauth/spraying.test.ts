/**
 * Password spraying (issue 17 item 5): besides the per-(name, IP) limit, one IP gets at most
 * MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE failed attempts a minute over all
 * names, then 429 with `Retry-After`. Wrong passwords (password grant, sign-in page) and failed
 * client authentications (token endpoint, introspection) all count; other IPs are unaffected.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const MP = '/managementportal';
const PER_ADDRESS = 6;
const SPRAYER = '198.51.100.10';
const BYSTANDER = '198.51.100.11';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS) });
});
afterAll(async () => { await t?.close(); });

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const someone = () => `user-${randomBytes(4).toString('hex')}`;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function post(path: string, ip: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url: `${MP}${path}`, remoteAddress: ip, payload: form(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

const passwordGrant = (ip: string, username: string, password = 'wrong') =>
  post('/oauth/token', ip, { grant_type: 'password', username, password }, { authorization: basic('radar_restapi', 'secret') });

/** The sign-in page of a code-flow authorization: its session cookie and every hidden form field. */
async function signInPage(ip: string) {
  const res = await t.app.inject({ url: `${MP}/oauth/authorize?client_id=radar_dashboard&response_type=code`, remoteAddress: ip });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = [res.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='))!.split(';')[0]!;
  const hidden = Object.fromEntries([...res.body.matchAll(/<input[^>]*type="hidden"[^>]*>/g)].map(([input]) => [
    /name="([^"]+)"/.exec(input)?.[1] ?? '', /value="([^"]*)"/.exec(input)?.[1] ?? '',
  ]));
  return { cookie, hidden };
}

async function signIn(ip: string, username: string, password = 'wrong') {
  const page = await signInPage(ip);
  return post('/oauth/login', ip, { ...page.hidden, username, password }, { cookie: page.cookie });
}

describe('failed attempts per address over all names', () => {
  it('answers 429 with Retry-After once one address has sprayed the limit, on every authenticating route', async () => {
    // Six failures from one address, no name more than once: under the per-name limit (20) each time.
    for (let i = 0; i < 3; i++) {
      const res = await passwordGrant(SPRAYER, someone());
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_grant', error_description: 'Bad credentials' });
    }
    expect((await post('/oauth/token', SPRAYER, { grant_type: 'client_credentials' }, { authorization: basic('radar_redcap_integrator', 'wrong') })).statusCode).toBe(401);
    for (let i = 0; i < 2; i++) {
      const res = await signIn(SPRAYER, someone());
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('Wrong user name or password.');
    }

    const limited = await passwordGrant(SPRAYER, someone());
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed authentication attempts; try again later' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The address is blocked for every name and every route, even with the right credentials.
    const page = await signIn(SPRAYER, someone());
    expect(page.statusCode).toBe(429);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect((await passwordGrant(SPRAYER, 'admin', 'admin')).statusCode).toBe(429);
    expect((await post('/oauth/token', SPRAYER, { grant_type: 'client_credentials' }, { authorization: basic('radar_redcap_integrator', 'secret') })).statusCode).toBe(429);
    expect((await post('/oauth/introspect', SPRAYER, { token: 'x' }, { authorization: basic('radar_redcap_integrator', 'secret') })).statusCode).toBe(429);
  });

  it('leaves other addresses alone: a wrong password elsewhere is a normal invalid_grant', async () => {
    const res = await passwordGrant(BYSTANDER, someone());
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_grant', error_description: 'Bad credentials' });
    expect((await post('/oauth/token', BYSTANDER, { grant_type: 'client_credentials' }, { authorization: basic('radar_redcap_integrator', 'secret') })).statusCode).toBe(200);
  });
});
