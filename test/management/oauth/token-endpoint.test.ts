/**
 * Black-box: the token endpoint over HTTP, every token verified against /oauth/token_key with an
 * independent verifier (jose on the PEM, re-labelled, and on the JWK). Errors as
 * managementportal.md §3.2; refresh tokens valid once, with reuse detection.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { importJWK, importSPKI, jwtVerify, type JWTPayload, type CryptoKey } from 'jose';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aParticipant, aProject, setActivated } from '../../fixtures/management.js';
import { auditEvents, roles, roleUsers, sources, sourceTypes } from '../../../src/management/schema.js';
import { ensureBuiltInAccounts } from '../../../src/management/account/admin-account.js';
import { rotate } from '../../../src/management/oauth/refresh-tokens.js';
import type { Database } from '../../../src/platform/database.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
type Json = any;

let t: TestApp;
let base: string;
let db: Database;
const verifiers: { pem: CryptoKey; jwk: CryptoKey }[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db;
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}/managementportal`;
  const res = await fetch(`${base}/oauth/token_key`);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  for (const key of ((await res.json()) as Json).keys) {
    const pem = key.value.replace(/-----(BEGIN|END) EC PUBLIC KEY-----/g, '-----$1 PUBLIC KEY-----');
    const { value: _v, ...jwk } = key;
    verifiers.push({ pem: await importSPKI(pem, key.alg), jwk: await importJWK(jwk, key.alg) as CryptoKey });
  }
});
afterAll(async () => { await t.close(); });

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function tokenRequest(form: Record<string, string>, opts: { auth?: string; query?: string } = {}) {
  const res = await fetch(`${base}/oauth/token${opts.query ? `?${opts.query}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(opts.auth ? { authorization: opts.auth } : {}) },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

/** Verifies with every published key form; returns the claims and the header. */
async function verified(token: string) {
  let result: { payload: JWTPayload; protectedHeader: { kid?: string; alg: string } } | undefined;
  for (const v of verifiers) {
    try {
      const viaPem = await jwtVerify(token, v.pem);
      const viaJwk = await jwtVerify(token, v.jwk);
      expect(viaJwk.payload).toEqual(viaPem.payload);
      result = viaPem;
    } catch { /* another key */ }
  }
  if (!result) throw new Error('no published key verifies the token');
  expect(result.protectedHeader.kid).toEqual(expect.any(String));
  return result.payload;
}

const expectNoStore = (headers: Headers) => {
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('pragma')).toBe('no-cache');
};

/** The GRANT_ACCESS_TOKEN events of `principal`, once written (audit events are written in batches). */
async function auditedFor(principal: string) {
  const read = () => db.select().from(auditEvents).where(and(eq(auditEvents.principal, principal), eq(auditEvents.eventType, 'GRANT_ACCESS_TOKEN')));
  try {
    return await vi.waitFor(async () => {
      const rows = await read();
      if (rows.length === 0) throw new Error('not written yet');
      return rows;
    }, { timeout: 30_000, interval: 20 });
  } catch {
    return read();
  }
}

describe('client_credentials', () => {
  it('issues a token for the client: no refresh token, no user claims', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' }, { auth: basic('radar_restapi', 'secret') });
    expect(res.status).toBe(200);
    expectNoStore(res.headers);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'bearer', expires_in: 43200,
      scope: 'SUBJECT.READ PROJECT.READ SOURCE.READ SOURCETYPE.READ',
      iat: expect.any(Number), iss: 'ManagementPortal', grant_type: 'client_credentials', jti: expect.stringMatching(/^[A-Za-z0-9_-]{27}$/),
    });
    const claims = await verified(res.body.access_token);
    expect(claims).toEqual({
      aud: ['res_ManagementPortal'], scope: ['SUBJECT.READ', 'PROJECT.READ', 'SOURCE.READ', 'SOURCETYPE.READ'],
      iss: 'ManagementPortal', iat: res.body.iat, exp: res.body.iat + 43200, grant_type: 'client_credentials',
      client_id: 'radar_restapi', jti: res.body.jti,
    });
    expect((await auditedFor('radar_restapi'))[0]!.data).toMatchObject({ clientId: 'radar_restapi', grantType: 'client_credentials', scope: 'SUBJECT.READ, PROJECT.READ, SOURCE.READ, SOURCETYPE.READ' });
  });

  it('authenticates the client by form fields and by query string too, and narrows to a requested scope', async () => {
    const form = await tokenRequest({ grant_type: 'client_credentials', client_id: 'radar_redcap_integrator', client_secret: 'secret', scope: 'SUBJECT.CREATE' });
    expect(form.status).toBe(200);
    expect(form.body.scope).toBe('SUBJECT.CREATE');
    const query = await tokenRequest({ grant_type: 'client_credentials' }, { query: 'client_id=radar_redcap_integrator&client_secret=secret' });
    expect(query.status).toBe(200);
    expect((await verified(query.body.access_token)).client_id).toBe('radar_redcap_integrator');
  });

  it('the dev app-server client is confidential: its secret gets a token, an empty one does not', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' }, { auth: basic('radar_appserver_client', 'secret') });
    expect(res.status).toBe(200);
    expect((await verified(res.body.access_token)).aud).toEqual(['res_ManagementPortal', 'res_AppServer']);
    expect((await tokenRequest({ grant_type: 'client_credentials' }, { auth: basic('radar_appserver_client', '') })).status).toBe(401);
  });
});

describe('password', () => {
  it('the admin signs in through the frontend client with every scope', async () => {
    const res = await tokenRequest({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 14400, sub: 'admin', sources: [], roles: ['ROLE_SYS_ADMIN'], grant_type: 'password', iss: 'ManagementPortal' });
    expect(res.body.scope.split(' ')).toHaveLength(40);
    const claims = await verified(res.body.access_token);
    expect(claims).toMatchObject({
      aud: ['res_ManagementPortal', 'res_appconfig', 'res_upload', 'res_restAuthorizer'], sub: 'admin', user_name: 'admin',
      roles: ['ROLE_SYS_ADMIN'], authorities: ['ROLE_SYS_ADMIN'], sources: [], client_id: 'ManagementPortalapp', grant_type: 'password',
      exp: res.body.iat + 14400, jti: res.body.jti,
    });
    expect(claims.ati).toBeUndefined();
    const refresh = await verified(res.body.refresh_token);
    expect(refresh).toMatchObject({ ati: res.body.jti, sub: 'admin', exp: res.body.iat + 259200 });
    expect(refresh.jti).not.toBe(res.body.jti);
  });

  it('a participant gets its project role, its sources and the scopes its role allows', async () => {
    const project = await aProject(db);
    const p = await aParticipant(db, { project, password: 'pw' });
    const res = await tokenRequest({ grant_type: 'password', username: p.login.toUpperCase(), password: 'pw' }, { auth: basic('radar_upload_backend', 'secret') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sub: p.login, roles: [`${project.projectName}:ROLE_PARTICIPANT`], sources: [p.sourceId], scope: 'SUBJECT.READ' });
    const claims = await verified(res.body.access_token);
    expect(claims).toMatchObject({ sub: p.login, user_name: p.login, authorities: ['ROLE_PARTICIPANT'], scope: ['SUBJECT.READ'], sources: [p.sourceId] });
    expect((await auditedFor(p.login))[0]!.data).toMatchObject({ grantType: 'password', clientId: 'radar_upload_backend' });
  });
});

describe('refresh_token', () => {
  async function adminTokens() {
    return (await tokenRequest({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin' })).body;
  }
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    tokenRequest({ grant_type: 'refresh_token', refresh_token: token, ...extra }, { auth: basic('ManagementPortalapp', '') });

  it('rotates: a new pair, the chain keeps its grant type; the used token is refused and its chain revoked', async () => {
    const first = await adminTokens();
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expectNoStore(second.headers);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body).toMatchObject({ sub: 'admin', grant_type: 'password' });
    expect(await verified(second.body.refresh_token)).toMatchObject({ ati: second.body.jti, grant_type: 'password' });

    const reused = await refresh(first.refresh_token);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') } });
    const descendant = await refresh(second.body.refresh_token);
    expect(descendant).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'Refresh token was revoked' } });
  });

  it('of 50 concurrent requests with one refresh token exactly one succeeds', async () => {
    const first = await adminTokens();
    const results = await Promise.all(Array.from({ length: 50 }, () => refresh(first.refresh_token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const failures = results.filter((r) => r.status !== 200);
    expect(failures).toHaveLength(49);
    for (const f of failures) expect(f.body.error).toBe('invalid_grant');
  });

  it('a repeat within the reuse grace period is accepted (MANAGEMENTPORTAL_OAUTH_REFRESH_REUSE_GRACE_SECONDS)', async () => {
    const first = await adminTokens();
    const claims = await verified(first.refresh_token);
    const now = new Date();
    const successor = (jti: string) => ({ jti, clientId: 'ManagementPortalapp', userLogin: 'admin', expiresAt: new Date(now.getTime() + 60_000) });
    const admin = expect.objectContaining({ login: 'admin', activated: true, roles: [expect.objectContaining({ authority: 'ROLE_SYS_ADMIN' })] });
    expect(await rotate(db, claims.jti!, successor(`${claims.jti}-a`), now, 60)).toEqual({ outcome: 'rotated', user: admin });
    expect(await rotate(db, claims.jti!, successor(`${claims.jti}-b`), new Date(now.getTime() + 30_000), 60)).toEqual({ outcome: 'grace', user: admin });
    expect(await rotate(db, claims.jti!, successor(`${claims.jti}-c`), new Date(now.getTime() + 61_000), 60)).toEqual({ outcome: 'reused', user: admin });
  });

  it('each pair carries the user\'s current roles and sources: a change since the last refresh shows in the next pair, and stays', async () => {
    const project = await aProject(db);
    const other = await aProject(db);
    const p = await aParticipant(db, { project, password: 'pw' });
    const auth = basic('radar_upload_backend', 'secret');
    const refreshOf = async (token: string) => {
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: token }, { auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const expectClaims = async (body: Json, roleNames: string[], sourceIds: string[]) => {
      expect(body).toMatchObject({ sub: p.login, roles: roleNames, sources: sourceIds });
      for (const token of [body.access_token, body.refresh_token]) {
        expect(await verified(token)).toMatchObject({ user_name: p.login, roles: roleNames, sources: sourceIds, authorities: ['ROLE_PARTICIPANT'], scope: ['SUBJECT.READ'] });
      }
    };
    const first = (await tokenRequest({ grant_type: 'password', username: p.login, password: 'pw' }, { auth })).body;
    const unchanged = await refreshOf(first.refresh_token);
    await expectClaims(unchanged, [`${project.projectName}:ROLE_PARTICIPANT`], [p.sourceId]);

    // A second project role and a second source, added between two refreshes.
    const [role] = await db.insert(roles).values({ authorityName: 'ROLE_PARTICIPANT', projectId: other.id }).returning();
    await db.insert(roleUsers).values({ userId: p.user.id, roleId: role!.id });
    const [type] = await db.insert(sourceTypes).values({ producer: 'RADAR', model: `model-${p.login}`, catalogVersion: '1.0.0', sourceTypeScope: 'ACTIVE' }).returning();
    const [added] = await db.insert(sources).values({ sourceName: `source-${p.login}`, sourceTypeId: type!.id, projectId: project.id, subjectId: p.subjectId, assigned: true }).returning();
    const changed = await refreshOf(unchanged.refresh_token);
    const now = [`${project.projectName}:ROLE_PARTICIPANT`, `${other.projectName}:ROLE_PARTICIPANT`];
    await expectClaims(changed, now, [p.sourceId, added!.sourceId]);
    await expectClaims(await refreshOf(changed.refresh_token), now, [p.sourceId, added!.sourceId]);
  });

  it('narrows scope on request, refuses widening, and refuses deactivated users', async () => {
    const project = await aProject(db);
    const p = await aParticipant(db, { project, password: 'pw' });
    const auth = basic('radar_upload_backend', 'secret');
    const first = (await tokenRequest({ grant_type: 'password', username: p.login, password: 'pw' }, { auth })).body;
    const widened = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'PROJECT.READ' }, { auth });
    expect(widened).toMatchObject({ status: 400, body: { error: 'invalid_scope', error_description: 'Unable to narrow the scope of the client authentication' } });
    const wrongClient = await refresh(first.refresh_token);
    expect(wrongClient).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'Wrong client for this refresh token' } });
    await setActivated(db, p.user.id, false);
    const inactive = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, { auth });
    expect(inactive).toMatchObject({ status: 401, body: { error: 'unauthorized', error_description: `User ${p.login} was not activated` } });
    expect(inactive.headers.get('www-authenticate')).toMatch(/^Bearer error="unauthorized"/);
  });
});

describe('errors (managementportal.md §3.2)', () => {
  const cases: [string, Record<string, string>, { auth?: string; query?: string }, number, Record<string, string>][] = [
    ['no client authentication', { grant_type: 'client_credentials' }, {}, 401, { error: 'invalid_client', error_description: 'Client authentication is required' }],
    ['wrong secret by Basic', { grant_type: 'client_credentials' }, { auth: basic('radar_restapi', 'nope') }, 401, { error: 'invalid_client', error_description: 'Bad client credentials' }],
    ['unknown client by Basic', { grant_type: 'client_credentials' }, { auth: basic('nobody', 'x') }, 401, { error: 'invalid_client', error_description: 'Bad client credentials' }],
    ['wrong secret by form', { grant_type: 'client_credentials', client_id: 'radar_restapi', client_secret: 'nope' }, {}, 401, { error: 'invalid_client', error_description: 'Bad client credentials' }],
    ['a secret for a public client', { grant_type: 'authorization_code', code: 'x' }, { auth: basic('radar_dashboard', 'x') }, 401, { error: 'invalid_client', error_description: 'Bad client credentials' }],
    ['no secret for a confidential client', { grant_type: 'client_credentials' }, { auth: basic('radar_restapi', '') }, 401, { error: 'invalid_client', error_description: 'Bad client credentials' }],
    ['grant not allowed for the client', { grant_type: 'password', username: 'admin', password: 'admin' }, { auth: basic('radar_redcap_integrator', 'secret') }, 401, { error: 'invalid_client', error_description: 'Unauthorized grant type' }],
    ['unknown grant type', { grant_type: 'magic' }, { auth: basic('radar_restapi', 'secret') }, 400, { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' }],
    ['missing grant type', {}, { auth: basic('radar_restapi', 'secret') }, 400, { error: 'invalid_request', error_description: 'Missing grant type' }],
    ['bad password', { grant_type: 'password', username: 'admin', password: 'wrong' }, { auth: basic('radar_restapi', 'secret') }, 400, { error: 'invalid_grant', error_description: 'Bad credentials' }],
    ['unknown user', { grant_type: 'password', username: 'nobody-here', password: 'x' }, { auth: basic('radar_restapi', 'secret') }, 400, { error: 'invalid_grant', error_description: 'Bad credentials' }],
    ['scope beyond the client', { grant_type: 'client_credentials', scope: 'SUBJECT.DELETE' }, { auth: basic('radar_restapi', 'secret') }, 400,
      { error: 'invalid_scope', error_description: 'Invalid scope', scope: 'SUBJECT.READ PROJECT.READ SOURCE.READ SOURCETYPE.READ' }],
    ['refresh without a token', { grant_type: 'refresh_token' }, { auth: basic('ManagementPortalapp', '') }, 400, { error: 'invalid_request', error_description: 'refresh_token parameter not provided' }],
    ['refresh with garbage', { grant_type: 'refresh_token', refresh_token: 'not-a-jwt' }, { auth: basic('ManagementPortalapp', '') }, 401,
      { error: 'invalid_token', error_description: 'No registered validator could authenticate this token' }],
  ];

  it.each(cases)('%s', async (_name, form, opts, status, body) => {
    const res = await tokenRequest(form, opts);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    expectNoStore(res.headers);
    if (body.error === 'invalid_client') expect(res.headers.get('www-authenticate')).toBe('Basic realm="oauth2/client"');
  });

  it('an access token presented as refresh token is invalid_token', async () => {
    const access = (await tokenRequest({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'admin' })).body.access_token;
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: access }, { auth: basic('ManagementPortalapp', '') });
    expect(res).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'Encoded token is not a refresh token' } });
  });

  it('an inactive user gets 401 unauthorized', async () => {
    const project = await aProject(db);
    const p = await aParticipant(db, { project, password: 'pw', activated: false });
    const res = await tokenRequest({ grant_type: 'password', username: p.login, password: 'pw' }, { auth: basic('radar_restapi', 'secret') });
    expect(res).toMatchObject({ status: 401, body: { error: 'unauthorized', error_description: `User ${p.login} was not activated` } });
  });

  it('GET /oauth/token is 405 method_not_allowed', async () => {
    const res = await fetch(`${base}/oauth/token`);
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: 'method_not_allowed', error_description: "Request method 'GET' not supported" });
  });
});

describe('keys and metadata', () => {
  it('publishes the keys in the radar-auth shape with JWK members, the JWK set and RFC 8414 metadata', async () => {
    const keys = ((await (await fetch(`${base}/oauth/token_key`)).json()) as Json).keys;
    expect(keys[0]).toEqual({
      alg: 'ES256', kty: 'EC', use: 'sig', crv: 'P-256', kid: expect.any(String), x: expect.any(String), y: expect.any(String),
      value: expect.stringMatching(/^-----BEGIN EC PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END EC PUBLIC KEY-----$/),
    });
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as Json;
    expect(jwks.keys[0]).toEqual({ alg: 'ES256', kty: 'EC', use: 'sig', crv: 'P-256', kid: keys[0].kid, x: keys[0].x, y: keys[0].y });
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(meta).toMatchObject({
      issuer: 'ManagementPortal', token_endpoint: `${base}/oauth/token`, jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: ['authorization_code', 'client_credentials', 'password', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    });
    expect(meta.scopes_supported).toHaveLength(40);
  });
});

describe('admin account', () => {
  it('prod refuses to start while the admin still has the password admin, naming the setting', async () => {
    const silent = t.app.log;
    await expect(ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: undefined }, silent))
      .rejects.toThrow(/^MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: the admin account still has the default password/);
    await ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: 'n3w-secret' }, silent);
    await ensureBuiltInAccounts(db, { profile: 'prod', adminPassword: undefined }, silent);
    const res = await tokenRequest({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: 'n3w-secret' });
    expect(res.status).toBe(200);
    await ensureBuiltInAccounts(db, { profile: 'dev', adminPassword: undefined }, silent);
  });
});
