/**
 * Bearer authentication of /api/* and the /api/oauth-clients REST API (managementportal.md §1,
 * §2.10): statuses, whole bodies, alert headers, protected clients, secrets never returned, and the
 * token endpoint seeing changes at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { randomBytes } from 'node:crypto';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { findClient } from '../../../../src/management/oauth/clients/queries.js';
import { aProject } from '../../../fixtures/management.js';
import { roles, roleUsers, users } from '../../../../src/management/schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await buildTestApp();
  admin = (await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin' })).access_token;
});
afterAll(async () => { await t.close(); });

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
async function token(form: Record<string, string>, auth?: string) {
  const res = await t.app.inject({
    method: 'POST', url: '/managementportal/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    payload: new URLSearchParams(form).toString(),
  });
  return { status: res.statusCode, ...res.json() } as Json;
}
async function api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, opts: { bearer?: string; auth?: string; body?: unknown } = {}) {
  const authorization = opts.auth ?? (opts.bearer !== undefined ? `Bearer ${opts.bearer}` : undefined);
  const res = await t.app.inject({
    method, url: `/managementportal/api${path}`,
    headers: { ...(authorization ? { authorization } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : res.json() as Json };
}
const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
const uniqueId = () => `client-${randomBytes(4).toString('hex')}`;

describe('bearer authentication of /api/*', () => {
  it('no token: 401, WWW-Authenticate Bearer, ErrorVM body', async () => {
    const res = await api('GET', '/oauth-clients');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="ManagementPortal"');
    expect(res.body).toEqual({ message: 'error.unauthorized', description: 'No token provided', fieldErrors: null });
    expect((await api('GET', '/oauth-clients', { auth: basic('a', 'b') })).status).toBe(401);
  });

  it('a value that is no JWT, a tampered token, a refresh token, a foreign audience: 401, never 500', async () => {
    const invalid = { message: 'error.unauthorized', description: 'No registered validator could authenticate this token', fieldErrors: null };
    for (const bad of ['garbage', 'a.b.c', `${admin.slice(0, -4)}AAAA`, '%%%.%%%.%%%']) {
      const res = await api('GET', '/oauth-clients', { bearer: bad });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(invalid);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="ManagementPortal", error="invalid_token", error_description="No registered validator could authenticate this token"');
    }
    const pair = await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin' });
    expect((await api('GET', '/oauth-clients', { bearer: pair.refresh_token })).body).toEqual({ ...invalid, description: 'Encoded token is a refresh token' });
    // A token whose audience lacks res_ManagementPortal.
    const created = await api('POST', '/oauth-clients', { bearer: admin, body: { clientId: uniqueId(), clientSecret: 's3cret', resourceIds: ['res_gateway'], scope: ['OAUTHCLIENTS.READ'], authorizedGrantTypes: ['client_credentials'] } });
    const foreign = await token({ grant_type: 'client_credentials' }, basic(created.body.clientId, 's3cret'));
    expect((await api('GET', '/oauth-clients', { bearer: foreign.access_token })).body).toEqual(invalid);
  });

  it('a token of a deleted user is refused', async () => {
    const login = `user-${randomBytes(4).toString('hex')}`;
    const db = t.app.db.db;
    const [user] = await db.insert(users).values({ login, activated: true, passwordHash: await bcrypt.hash('pw', 4) }).returning();
    const pair = await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'pw' });
    expect((await api('GET', '/oauth-clients', { bearer: pair.access_token })).status).toBe(403); // no role holds OAUTHCLIENTS.READ
    const { eq } = await import('drizzle-orm');
    await db.delete(users).where(eq(users.id, user!.id));
    expect((await api('GET', '/oauth-clients', { bearer: pair.access_token })).body).toEqual({ message: 'error.unauthorized', description: 'User not found', fieldErrors: null });
  });
});

describe('/api/oauth-clients', () => {
  it('lists clients without secrets, additionalInformation values as strings', async () => {
    const res = await api('GET', '/oauth-clients', { bearer: admin });
    expect(res.status).toBe(200);
    const armt = res.body.find((c: Json) => c.clientId === 'aRMT');
    expect(armt).toEqual({
      clientId: 'aRMT', clientSecret: null,
      scope: ['MEASUREMENT.CREATE', 'SUBJECT.UPDATE', 'SUBJECT.READ', 'PROJECT.READ', 'SOURCETYPE.READ', 'SOURCE.READ', 'SOURCEDATA.READ', 'USER.READ', 'ROLE.READ'],
      resourceIds: ['res_ManagementPortal', 'res_gateway', 'res_AppServer'], authorizedGrantTypes: ['refresh_token', 'authorization_code'],
      autoApproveScopes: [], accessTokenValiditySeconds: 43200, refreshTokenValiditySeconds: 7948800, authorities: [],
      registeredRedirectUri: expect.any(Array), additionalInformation: { dynamic_registration: 'true' },
    });
    const frontend = res.body.find((c: Json) => c.clientId === 'ManagementPortalapp');
    expect(frontend.additionalInformation).toEqual({ protected: 'true' });
    expect(frontend.autoApproveScopes).toEqual(frontend.scope);
    expect(res.body.every((c: Json) => c.clientSecret === null)).toBe(true);
  });

  it('create 201 → get → duplicate 409 → update → protect → 403 → the token endpoint sees each change', async () => {
    const clientId = uniqueId();
    const input = {
      clientId, clientSecret: 'TEST_SECRET', scope: ['scope-1', 'scope-2'], resourceIds: ['res-1', 'res-2'], autoApproveScopes: ['scope-1'],
      authorizedGrantTypes: ['password', 'refresh_token', 'client_credentials'], accessTokenValiditySeconds: 3600, refreshTokenValiditySeconds: 7200,
      authorities: ['AUTHORITY-1'], registeredRedirectUri: [], additionalInformation: { dynamic_registration: true }, unknownField: 'ignored',
    };
    const expected = {
      clientId, clientSecret: null, scope: ['scope-1', 'scope-2'], resourceIds: ['res-1', 'res-2'], autoApproveScopes: ['scope-1'],
      authorizedGrantTypes: ['password', 'refresh_token', 'client_credentials'], accessTokenValiditySeconds: 3600, refreshTokenValiditySeconds: 7200,
      authorities: ['AUTHORITY-1'], registeredRedirectUri: [], additionalInformation: { dynamic_registration: 'true' },
    };
    const created = await api('POST', '/oauth-clients', { bearer: admin, body: input });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expected);
    expect(created.headers.location).toBe(`/api/oauth-clients/${clientId}`);
    expect(created.headers['x-managementportalapp-alert']).toBe('managementPortalApp.oauthClient.created');
    expect(created.headers['x-managementportalapp-params']).toBe(clientId);
    expect((await findClient(t.app.db.db, clientId))!.clientSecret).toMatch(/^\$2[ab]\$10\$/);
    expect(await api('GET', `/oauth-clients/${clientId}`, { bearer: admin })).toMatchObject({ status: 200, body: expected });
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'TEST_SECRET'))).status).toBe(200);

    const duplicate = await api('POST', '/oauth-clients', { bearer: admin, body: input });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ message: 'OAuth client already exists with this id', entityName: 'oauthClient', errorCode: 'error.clientIdExists', params: { timestamp, client_id: clientId } });
    expect(duplicate.headers['x-managementportalapp-error']).toBe('error.clientIdExists');

    // Update without a secret keeps it; with one replaces it (and the cache forgets the old one).
    const updated = await api('PUT', '/oauth-clients', { bearer: admin, body: { ...input, clientSecret: null, refreshTokenValiditySeconds: 20 } });
    expect(updated).toMatchObject({ status: 200, body: { ...expected, refreshTokenValiditySeconds: 20 } });
    expect(updated.headers['x-managementportalapp-alert']).toBe('managementPortalApp.oauthClient.updated');
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'TEST_SECRET'))).status).toBe(200);
    await api('PUT', '/oauth-clients', { bearer: admin, body: { ...input, clientSecret: 'NEW_SECRET', authorizedGrantTypes: ['client_credentials'] } });
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'TEST_SECRET'))).status).toBe(401);
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'NEW_SECRET'))).status).toBe(200);

    const protect = await api('PUT', '/oauth-clients', { bearer: admin, body: { ...input, clientSecret: null, additionalInformation: { protected: true } } });
    expect(protect).toMatchObject({ status: 200, body: { additionalInformation: { protected: 'true' } } });
    const forbidden = { message: `Cannot change the protected client ${clientId}`, entityName: 'oauthClient', errorCode: 'error.oAuthClientProtected', params: { timestamp, clientId } };
    expect(await api('DELETE', `/oauth-clients/${clientId}`, { bearer: admin })).toMatchObject({ status: 403, body: forbidden });
    expect(await api('PUT', '/oauth-clients', { bearer: admin, body: input })).toMatchObject({ status: 403, body: forbidden });
    expect((await api('DELETE', '/oauth-clients/ManagementPortalapp', { bearer: admin })).status).toBe(403);
  });

  it('delete 200 with an empty body, then 404; the deleted client can no longer get tokens', async () => {
    const clientId = uniqueId();
    await api('POST', '/oauth-clients', { bearer: admin, body: { clientId, clientSecret: 'x', authorizedGrantTypes: ['client_credentials'] } });
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'x'))).status).toBe(200);
    const deleted = await api('DELETE', `/oauth-clients/${clientId}`, { bearer: admin });
    expect(deleted).toMatchObject({ status: 200, body: undefined });
    expect(deleted.headers['x-managementportalapp-alert']).toBe('managementPortalApp.oauthClient.deleted');
    expect((await token({ grant_type: 'client_credentials' }, basic(clientId, 'x'))).status).toBe(401);
    const notFound = { message: 'Client not found for client-id', entityName: 'oauthClient', errorCode: 'error.oAuthClientIdNotFound', params: { timestamp, clientId } };
    expect(await api('GET', `/oauth-clients/${clientId}`, { bearer: admin })).toMatchObject({ status: 404, body: notFound });
    expect(await api('DELETE', `/oauth-clients/${clientId}`, { bearer: admin })).toMatchObject({ status: 404, body: notFound });
    expect(await api('PUT', '/oauth-clients', { bearer: admin, body: { clientId } })).toMatchObject({ status: 404, body: notFound });
  });

  it('bad input is 400 ErrorVM', async () => {
    const res = await api('POST', '/oauth-clients', { bearer: admin, body: { scope: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: 'error.validation', fieldErrors: expect.any(Array) });
    expect((await api('POST', '/oauth-clients', { bearer: admin, body: { clientId: 'bad/id' } })).status).toBe(400);
  });

  it('guards: scopes and roles as the reference', async () => {
    // A token without OAUTHCLIENTS scopes.
    const narrow = (await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin', scope: 'SUBJECT.READ' })).access_token;
    const denied = await api('GET', '/oauth-clients', { bearer: narrow });
    expect(denied).toMatchObject({ status: 403, body: { message: 'error.accessDenied', description: 'User admin with client ManagementPortalapp does not have permission Permission{entity=OAUTHCLIENTS, operation=READ}', fieldErrors: null } });
    // A project admin may read clients (pairing dialog; the reference refused one client, §15.6) but not change them.
    const db = t.app.db.db;
    const project = await aProject(db);
    const login = `padmin-${randomBytes(4).toString('hex')}`;
    const [user] = await db.insert(users).values({ login, activated: true, passwordHash: await bcrypt.hash('pw', 4) }).returning();
    const [role] = await db.insert(roles).values({ authorityName: 'ROLE_PROJECT_ADMIN', projectId: project.id }).returning();
    await db.insert(roleUsers).values({ userId: user!.id, roleId: role!.id });
    const padmin = (await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'pw' })).access_token;
    expect((await api('GET', '/oauth-clients', { bearer: padmin })).status).toBe(200);
    expect((await api('GET', '/oauth-clients/aRMT', { bearer: padmin })).status).toBe(200);
    expect((await api('POST', '/oauth-clients', { bearer: padmin, body: { clientId: uniqueId() } })).status).toBe(403);
    // A client-credentials token with the scope passes.
    const clientId = uniqueId();
    await api('POST', '/oauth-clients', { bearer: admin, body: { clientId, clientSecret: 'x', resourceIds: ['res_ManagementPortal'], scope: ['OAUTHCLIENTS.READ'], authorizedGrantTypes: ['client_credentials'] } });
    const cc = (await token({ grant_type: 'client_credentials' }, basic(clientId, 'x'))).access_token;
    expect((await api('GET', '/oauth-clients/aRMT', { bearer: cc })).status).toBe(200);
    expect((await api('DELETE', '/oauth-clients/aRMT', { bearer: cc })).status).toBe(403);
  });
});
