import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { captureLog } from '../helpers/log-capture.js';
import { loggerOptions } from '../../src/platform/logging.js';

/** Everything the app logs, as text. */
const captured = captureLog();

let t: TestApp;
beforeAll(async () => {
  const options = loggerOptions('info'); // the production redaction and serializers
  if (typeof options !== 'object') throw new Error('loggerOptions must return pino options');
  t = await buildTestApp({}, { logger: { ...options, stream: captured.stream } });
});
afterAll(async () => { await t.close(); });

/** Unique values that must never reach the log. */
const secrets = {
  bearer: 'bearer-4f1d9c2e-token',
  basicPassword: 'basic-pw-8a7b6c',
  cookie: 'cookie-session-3e5f7a',
  clientSecret: 'client-secret-91b2c3',
  password: 'query-password-0d4e5f',
  refreshToken: 'refresh-token-6a7b8c',
  code: 'auth-code-2c3d4e',
  accessToken: 'access-token-5e6f70',
  resetKey: '48151623420815162342',
  codeVerifier: 'pkce-verifier-9a8b7c6d5e4f',
  token: 'checked-token-7d8e9f0a',
  csrf: 'csrf-token-1b2c3d4e',
  xsrf: 'xsrf-token-5f6a7b8c',
  proxyAuth: 'proxy-auth-3c4d5e6f',
};

/** The request log lines (`incoming request`) of one URL path. */
function requestLines(path: string): { req: { url: string; headers: Record<string, unknown> } }[] {
  return (captured.lines() as unknown as { msg?: string; req: { url: string; headers: Record<string, unknown> } }[])
    .filter((entry) => entry.msg === 'incoming request' && entry.req.url.split('?')[0] === path);
}

describe('request logs', () => {
  it('redact the Authorization, Cookie and CSRF headers and secret query parameters', async () => {
    const query = new URLSearchParams({
      page: '2',
      client_secret: secrets.clientSecret,
      password: secrets.password,
      refresh_token: secrets.refreshToken,
      code: secrets.code,
      access_token: secrets.accessToken,
      key: secrets.resetKey,
      code_verifier: secrets.codeVerifier,
      token: secrets.token,
    });
    const res = await t.app.inject({
      method: 'GET',
      url: `/projects/p-logging?${query}`,
      headers: {
        authorization: `Bearer ${secrets.bearer}`, cookie: `SESSION=${secrets.cookie}`, 'x-request-note': 'kept',
        'x-csrf-token': secrets.csrf, 'x-xsrf-token': secrets.xsrf, 'proxy-authorization': `Basic ${secrets.proxyAuth}`,
      },
    });
    expect(res.statusCode).toBe(404);

    const basic = await t.app.inject({
      method: 'GET',
      url: '/actuator/prometheus',
      headers: { authorization: `Basic ${Buffer.from(`radar:${secrets.basicPassword}`).toString('base64')}` },
    });
    expect(basic.statusCode).toBe(401);

    for (const [name, value] of Object.entries(secrets)) expect(captured.text(), name).not.toContain(value);
    // Nor in the encodings a logger might produce.
    expect(captured.text()).not.toContain(Buffer.from(`radar:${secrets.basicPassword}`).toString('base64'));
    expect(captured.text()).not.toContain(encodeURIComponent(secrets.clientSecret));

    const [line] = requestLines('/projects/p-logging');
    expect(line).toBeDefined();
    expect(line!.req.headers.authorization).toBe('[Redacted]');
    expect(line!.req.headers.cookie).toBe('[Redacted]');
    expect(line!.req.headers['x-csrf-token']).toBe('[Redacted]');
    expect(line!.req.headers['x-xsrf-token']).toBe('[Redacted]');
    expect(line!.req.headers['proxy-authorization']).toBe('[Redacted]');
    expect(line!.req.headers['x-request-note']).toBe('kept');
    const loggedQuery = new URLSearchParams(line!.req.url.split('?')[1]);
    expect(Object.fromEntries(loggedQuery)).toEqual({
      page: '2',
      client_secret: '[Redacted]',
      password: '[Redacted]',
      refresh_token: '[Redacted]',
      code: '[Redacted]',
      access_token: '[Redacted]',
      key: '[Redacted]',
      code_verifier: '[Redacted]',
      token: '[Redacted]',
    });

    const [actuatorLine] = requestLines('/actuator/prometheus');
    expect(actuatorLine!.req.headers.authorization).toBe('[Redacted]');
  });

  it('redact a meta-token name in the path (it hands out a refresh token)', async () => {
    await t.app.inject({ method: 'GET', url: '/managementportal/api/meta-token/Sec.ret-1?x=1' });
    expect(captured.text()).not.toContain('Sec.ret-1');
    const [line] = requestLines('/managementportal/api/meta-token/[Redacted]');
    expect(line!.req.url).toBe('/managementportal/api/meta-token/[Redacted]?x=1');
  });

  it('redact secret query parameters in messages and errors (Fastify quotes raw URLs in some)', async () => {
    t.app.log.info(`Route GET:/managementportal/oauth/check_token?token=${secrets.token}&x=1 not found`);
    t.app.log.error({ err: new Error(`failed: /oauth/token?grant_type=password&password=${secrets.password}`) }, 'boom');
    expect(captured.text()).not.toContain(secrets.token);
    expect(captured.text()).not.toContain(secrets.password);
    expect(captured.text()).toContain('check_token?token=[Redacted]&x=1 not found');
    expect(captured.text()).toContain('failed: /oauth/token?grant_type=password&password=[Redacted]');
  });

  it('leave URLs without secret parameters as they are', async () => {
    await t.app.inject({ method: 'GET', url: '/projects/p-plain?page=3&sort=name' });
    const [line] = requestLines('/projects/p-plain');
    expect(line!.req.url).toBe('/projects/p-plain?page=3&sort=name');
  });
});
