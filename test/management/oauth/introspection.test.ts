/**
 * check_token (reference shape), RFC 7662 introspection, RFC 7009 revocation of refresh tokens,
 * and their entries in the RFC 8414 metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const UPLOAD = basic('radar_upload_backend', 'secret');
const REST = basic('radar_restapi', 'secret');

async function post(path: string, form: Record<string, string>, auth?: string) {
  const res = await t.app.inject({
    method: 'POST', url: `/managementportal${path}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    payload: new URLSearchParams(form).toString(),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : res.json() as Json };
}

const adminTokens = async () =>
  (await post('/oauth/token', { grant_type: 'password', username: 'admin', password: 'admin' }, UPLOAD)).body;
const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

describe('POST /oauth/check_token', () => {
  it('answers the access token\'s claims with active: true', async () => {
    const tokens = await adminTokens();
    const res = await post('/oauth/check_token', { token: tokens.access_token }, REST);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ ...decode(tokens.access_token), active: true });
    expect(res.body).toMatchObject({ user_name: 'admin', client_id: 'radar_upload_backend', aud: ['res_ManagementPortal', 'res_upload'], scope: expect.any(Array) });
  });

  it('refuses a refresh token, an invalid token and a missing token', async () => {
    const tokens = await adminTokens();
    expect(await post('/oauth/check_token', { token: tokens.refresh_token }, REST)).toMatchObject({
      status: 400, body: { error: 'invalid_token', error_description: 'Encoded token is a refresh token' },
    });
    expect(await post('/oauth/check_token', { token: 'not-a-jwt' }, REST)).toMatchObject({
      status: 400, body: { error: 'invalid_token', error_description: 'Token was not recognised' },
    });
    const [h, p, s] = tokens.access_token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decode(tokens.access_token), sub: 'x' })).toString('base64url')}.${s}`;
    expect(p).not.toBe(tampered.split('.')[1]);
    expect((await post('/oauth/check_token', { token: tampered }, REST)).body).toEqual({ error: 'invalid_token', error_description: 'Token was not recognised' });
    expect((await post('/oauth/check_token', {}, REST)).body).toEqual({ error: 'invalid_request', error_description: 'Missing token' });
  });

  it('needs client authentication', async () => {
    const tokens = await adminTokens();
    const none = await post('/oauth/check_token', { token: tokens.access_token });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication is required' });
    expect(none.headers['www-authenticate']).toBe('Basic realm="oauth2/client"');
    const wrong = await post('/oauth/check_token', { token: tokens.access_token }, basic('radar_restapi', 'wrong'));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client', error_description: 'Bad client credentials' } });
  });
});

describe('POST /oauth/introspect (RFC 7662)', () => {
  it('describes an active access token', async () => {
    const tokens = await adminTokens();
    const claims = decode(tokens.access_token);
    const res = await post('/oauth/introspect', { token: tokens.access_token }, REST);
    expect(res.status).toBe(200);
    const { scope, ...rest } = claims;
    expect(res.body).toEqual({ ...rest, active: true, scope: scope.join(' '), username: 'admin', token_type: 'bearer' });
  });

  it('a refresh token is active for its own client until used, then inactive', async () => {
    const tokens = await adminTokens();
    const active = await post('/oauth/introspect', { token: tokens.refresh_token, token_type_hint: 'refresh_token' }, UPLOAD);
    expect(active.body).toMatchObject({ active: true, token_type: 'refresh_token', client_id: 'radar_upload_backend', username: 'admin' });
    expect(active.body).not.toHaveProperty('ati');
    expect((await post('/oauth/introspect', { token: tokens.refresh_token }, REST)).body).toEqual({ active: false });

    const refreshed = await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, UPLOAD);
    expect(refreshed.status).toBe(200);
    expect((await post('/oauth/introspect', { token: tokens.refresh_token }, UPLOAD)).body).toEqual({ active: false });
    expect((await post('/oauth/introspect', { token: refreshed.body.refresh_token }, UPLOAD)).body).toMatchObject({ active: true });
  });

  it('anything that does not verify is inactive; errors for a missing token and bad client', async () => {
    for (const token of ['garbage', 'a.b.c', '']) {
      const res = await post('/oauth/introspect', { token }, REST);
      if (token === '') expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'Missing token' } });
      else expect(res).toMatchObject({ status: 200, body: { active: false } });
    }
    expect((await post('/oauth/introspect', { token: 'x' }, basic('nobody', 'x'))).status).toBe(401);
  });
});

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes a refresh token and what descends from it', async () => {
    const first = await adminTokens();
    const second = (await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token }, UPLOAD)).body;
    const res = await post('/oauth/revoke', { token: first.refresh_token }, UPLOAD);
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await post('/oauth/introspect', { token: second.refresh_token }, UPLOAD)).body).toEqual({ active: false });
    expect(await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: second.refresh_token }, UPLOAD)).toMatchObject({
      status: 400, body: { error: 'invalid_grant', error_description: 'Refresh token was revoked' },
    });
    // Revoking again, or an unknown token, is still 200.
    expect((await post('/oauth/revoke', { token: second.refresh_token }, UPLOAD)).status).toBe(200);
    expect((await post('/oauth/revoke', { token: 'unknown' }, UPLOAD)).status).toBe(200);
  });

  it('refuses access tokens and other clients\' refresh tokens, and leaves them alone', async () => {
    const tokens = await adminTokens();
    expect(await post('/oauth/revoke', { token: tokens.access_token }, UPLOAD)).toMatchObject({
      status: 400, body: { error: 'unsupported_token_type', error_description: 'Only refresh tokens can be revoked' },
    });
    expect(await post('/oauth/revoke', { token: tokens.refresh_token }, REST)).toMatchObject({
      status: 400, body: { error: 'invalid_request', error_description: 'client is not authorized to revoke the presented token' },
    });
    expect((await post('/oauth/introspect', { token: tokens.refresh_token }, UPLOAD)).body).toMatchObject({ active: true });
    expect((await post('/oauth/revoke', { token: tokens.refresh_token })).status).toBe(401);
  });
});

describe('RFC 8414 metadata', () => {
  it('lists the introspection and revocation endpoints', async () => {
    const res = await t.app.inject('/managementportal/.well-known/oauth-authorization-server');
    const base = 'http://localhost:80/managementportal';
    expect(res.json()).toMatchObject({
      introspection_endpoint: `${base}/oauth/introspect`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    });
  });
});
