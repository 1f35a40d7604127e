/**
 * App pairing over HTTP (managementportal.md §2.10, §5, §19 items 1–6; clients.md §1): the
 * questionnaire app's enrolment as it does it (pair → read the meta-token without a token →
 * refresh with Basic `aRMT:` → register its source), one-time reads under concurrency,
 * persistent and expired tokens, who may pair and delete, the client checks, and the purge.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic, managementClient, radarTimestamp, unique, type ApiResponse } from '../../helpers/management-api.js';
import { mainOrganization } from '../../fixtures/management.js';
import {
  auditEvents, metaTokens, oauthClients, projects, projectSourceTypes, refreshTokens, roleUsers, sourceTypes, subjects, users,
} from '../../../src/management/schema.js';
import { runMaintenance } from '../../../src/management/maintenance.js';
import { META_TOKEN_PURGE } from '../../../src/management/pairing/purge.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let study: { id: number; projectName: string };
let other: { id: number; projectName: string };
let projectAdmin: string;
let otherAdmin: string;
const POLICY = 'https://study.example.org/privacy';
const DEFAULT_POLICY = 'http://info.thehyve.nl/radar-cns-privacy-policy';
const ARMT_BODY = { sourceTypeCatalogVersion: '1.5.0', sourceTypeModel: 'aRMT-App', sourceTypeProducer: 'RADAR' };
const ARMT_SCOPE = 'MEASUREMENT.CREATE SUBJECT.READ SUBJECT.UPDATE';
const NAME8 = /^[A-Za-z0-9.-]{8}$/;

beforeAll(async () => {
  t = await buildTestApp({
    // Trailing slashes as in RADAR-Docker: the app must get a bare origin, the QR code a clean URL.
    MANAGEMENTPORTAL_COMMON_BASE_URL: 'https://radar.example.org/',
    MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL: 'https://radar.example.org/managementportal/',
    // Reads are limited per IP; limiter.test.ts covers the limit.
    MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE: '1000000',
  });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  const [armt] = await db.insert(sourceTypes).values({
    producer: 'RADAR', model: 'aRMT-App', catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true,
  }).returning();
  const aProject = async (attributes: Record<string, string>) => {
    const [row] = await db.insert(projects).values({ projectName: unique('study'), description: 'd', location: 'l', organizationId: main.id, attributes }).returning();
    await db.insert(projectSourceTypes).values({ projectId: row!.id, sourceTypeId: armt!.id });
    return { id: row!.id, projectName: row!.projectName };
  };
  study = await aProject({ 'Privacy-policy-url': POLICY });
  other = await aProject({});
  projectAdmin = (await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: study.projectName })).token;
  otherAdmin = (await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: other.projectName })).token;
});
afterAll(async () => { await t.close(); });

async function aSubject(project = study): Promise<string> {
  return (await mc.subjectIn(project, admin)).login as string;
}

const pair = (login: string, opts: { clientId?: string; persistent?: string; bearer?: string } = {}) =>
  mc.call('GET', `/api/oauth-clients/pair?${new URLSearchParams({ login, clientId: opts.clientId ?? 'aRMT', ...(opts.persistent ? { persistent: opts.persistent } : {}) })}`,
    { bearer: opts.bearer ?? projectAdmin });

/** The app's read: the QR code's URL, no headers. */
const read = (tokenName: string) => mc.call('GET', `/api/meta-token/${tokenName}`);

/** The app's token request (clients.md §1.2 E2). */
const refresh = (refreshToken: string, client = 'aRMT') =>
  mc.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, basic(client, ''));

const radarError = (status: number, message: string, entityName: string, errorCode: string, params: Record<string, unknown> = {}) =>
  ({ status, body: { message, entityName, errorCode, params: { timestamp: expect.stringMatching(radarTimestamp), ...params } } });
const accessDenied = () => ({ status: 403, body: { message: 'error.accessDenied', description: expect.any(String), fieldErrors: null } });
const pick = (res: ApiResponse) => ({ status: res.status, body: res.body });
const gone = (name: string) => radarError(410, `Token ${name} already fetched or expired. `, 'meta-token', 'error.TokenCannotBeSent');
const notFound = (name: string) => radarError(404, 'Meta token not found with tokenName', 'meta-token', 'error.tokenNotFound', { tokenName: name });

describe('the questionnaire app enrolment (clients.md §1.2)', () => {
  it('pair → read once → refresh with full claims → 410 → refresh again → register the aRMT source', async () => {
    const login = await aSubject();
    const before = Date.now();
    const paired = await pair(login);
    expect(paired.status).toBe(200);
    const name = paired.body.tokenName as string;
    expect(name).toMatch(NAME8);
    expect(paired.body).toEqual({
      tokenName: name,
      tokenUrl: `https://radar.example.org/managementportal/api/meta-token/${name}`,
      baseUrl: 'https://radar.example.org/managementportal',
      timeout: 3_600_000,
      timesOutAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const timesOutAt = Date.parse(paired.body.timesOutAt);
    expect(timesOutAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(timesOutAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    const db = t.app.db.db;
    const [stored] = await db.select().from(metaTokens).where(eq(metaTokens.tokenName, name));
    expect(stored).toMatchObject({ clientId: 'aRMT', fetched: false, persistent: false, expiryDate: new Date(timesOutAt) });
    // The token's events committed with it: there when the answer is (no batched writer to wait for).
    const requested = await db.select().from(auditEvents).where(eq(auditEvents.eventType, 'PAIR_CLIENT_REQUEST'));
    expect(requested.filter((e) => e.data.subject_login === login))
      .toEqual([expect.objectContaining({ principal: expect.stringMatching(/^user-/), data: { client_id: 'aRMT', subject_login: login } })]);
    const created = await db.select().from(auditEvents).where(eq(auditEvents.eventType, 'META_TOKEN_CREATED'));
    expect(created.filter((e) => e.targetId === login)).toEqual([expect.objectContaining({ targetType: 'subject', actorAddress: expect.any(String) })]);

    // E1: the QR code's URL, no authentication.
    const metaToken = await read(name);
    expect(metaToken.status).toBe(200);
    expect(metaToken.headers['cache-control']).toBe('no-store');
    expect(metaToken.body).toEqual({ refreshToken: expect.any(String), baseUrl: 'https://radar.example.org', privacyPolicyUrl: POLICY });
    const pairingClaims = decodeJwt(metaToken.body.refreshToken);
    expect(pairingClaims).toMatchObject({ user_name: login, client_id: 'aRMT', grant_type: 'authorization_code', ati: expect.any(String) });
    const [fetched] = await db.select().from(metaTokens).where(eq(metaTokens.tokenName, name));
    expect(fetched!.fetched).toBe(true);
    // The audit trail: made by the coordinator, read by the app (issue 31 item 8); never the token's name.
    await vi.waitFor(async () => {
      const events = await db.select().from(auditEvents).where(eq(auditEvents.targetId, login));
      expect(events.filter((e) => e.eventType.startsWith('META_TOKEN')).map((e) => [e.eventType, e.targetType, e.data.clientId])).toEqual([
        ['META_TOKEN_CREATED', 'subject', 'aRMT'], ['META_TOKEN_READ', 'subject', 'aRMT'],
      ]);
      expect(JSON.stringify(events)).not.toContain(name);
    });

    // E2: Basic `aRMT:` with an empty password.
    const first = await refresh(metaToken.body.refreshToken);
    expect(first).toMatchObject({
      status: 200, token_type: 'bearer', scope: ARMT_SCOPE, sub: login, roles: [`${study.projectName}:ROLE_PARTICIPANT`], sources: [],
      grant_type: 'authorization_code', iat: expect.any(Number), expires_in: 43_200, refresh_token: expect.any(String),
    });
    expect(decodeJwt(first.access_token)).toMatchObject({
      sub: login, user_name: login, roles: [`${study.projectName}:ROLE_PARTICIPANT`], sources: [], authorities: ['ROLE_PARTICIPANT'],
      aud: ['res_ManagementPortal', 'res_gateway', 'res_AppServer'], scope: ARMT_SCOPE.split(' '), client_id: 'aRMT', grant_type: 'authorization_code',
    });

    expect(pick(await read(name))).toEqual(gone(name));

    // E3: the app registers its source with the access token; E4: the next refresh carries it.
    const source = await mc.call('POST', `/api/subjects/${login}/sources`, { bearer: first.access_token, body: ARMT_BODY });
    expect(source.status).toBe(201);
    const second = await refresh(first.refresh_token);
    expect(second).toMatchObject({ status: 200, scope: ARMT_SCOPE, sub: login, sources: [source.body.sourceId] });
    expect(decodeJwt(second.access_token).sources).toEqual([source.body.sourceId]);

    // The meta-token's refresh token is valid once, like every refresh token.
    expect(await refresh(metaToken.body.refreshToken)).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('gives exactly one of 50 concurrent reads the refresh token; the rest get 410', async () => {
    const login = await aSubject();
    const name = (await pair(login)).body.tokenName as string;
    const results = await Promise.all(Array.from({ length: 50 }, () => read(name)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((res) => res.status !== 200)) expect(pick(r)).toEqual(gone(name));
    // One chain minted, and it works.
    const chains = await t.app.db.db.select().from(refreshTokens).where(and(eq(refreshTokens.userLogin, login), eq(refreshTokens.clientId, 'aRMT')));
    expect(chains).toHaveLength(1);
    expect((await refresh(ok[0]!.body.refreshToken)).status).toBe(200);
  });

  it('refuses the refresh once the subject is discontinued (401 unauthorized)', async () => {
    const login = await aSubject();
    const refreshToken = (await read((await pair(login)).body.tokenName)).body.refreshToken as string;
    const subject = (await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).body;
    expect((await mc.call('PUT', '/api/subjects/discontinue', { bearer: admin, body: subject })).status).toBe(200);
    expect(await refresh(refreshToken)).toMatchObject({ status: 401, error: 'unauthorized' });
  });

  it('refuses the refresh token presented by another client (400 invalid_grant)', async () => {
    const login = await aSubject();
    const refreshToken = (await read((await pair(login)).body.tokenName)).body.refreshToken as string;
    expect(await refresh(refreshToken, 'pRMT')).toMatchObject({ status: 400, error: 'invalid_grant', error_description: 'Wrong client for this refresh token' });
  });

  it('sends the configured privacy policy when the project has none', async () => {
    const login = await aSubject(other);
    const name = (await pair(login, { bearer: admin })).body.tokenName as string;
    expect((await read(name)).body).toEqual({ refreshToken: expect.any(String), baseUrl: 'https://radar.example.org', privacyPolicyUrl: DEFAULT_POLICY });
  });
});

describe('GET /api/meta-token/{tokenName}', () => {
  it('reads a persistent token (16 characters, 31 days) again and again, a new refresh token each time', async () => {
    const login = await aSubject();
    for (const persistent of ['true', 'True', 'TRUE']) {
      const paired = await pair(login, { persistent });
      expect(paired.status).toBe(200);
      expect(paired.body.tokenName).toMatch(/^[A-Za-z0-9.-]{16}$/);
      expect(paired.body.timeout).toBe(2_678_400_000);
    }
    const name = (await pair(login, { persistent: 'True' })).body.tokenName as string;
    const one = await read(name);
    const two = await read(name);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(one.body.refreshToken).not.toBe(two.body.refreshToken);
    expect((await refresh(one.body.refreshToken)).status).toBe(200);
    expect((await refresh(two.body.refreshToken)).status).toBe(200);
    const [stored] = await t.app.db.db.select().from(metaTokens).where(eq(metaTokens.tokenName, name));
    expect(stored).toMatchObject({ persistent: true, fetched: true });
  });

  it('answers 410 for an expired token, one-time or persistent', async () => {
    const login = await aSubject();
    const once = (await pair(login)).body.tokenName as string;
    const persistent = (await pair(login, { persistent: 'true' })).body.tokenName as string;
    await t.app.db.db.update(metaTokens).set({ expiryDate: new Date(Date.now() - 1000) }).where(eq(metaTokens.subjectId,
      (await t.app.db.db.select({ id: subjects.id }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).where(eq(users.login, login)))[0]!.id));
    expect(pick(await read(once))).toEqual(gone(once));
    expect(pick(await read(persistent))).toEqual(gone(persistent));
  });

  it('answers 404 for an unknown name and for a name outside [A-Za-z0-9.-]', async () => {
    expect(pick(await read('Zz9.-Zz9'))).toEqual(notFound('Zz9.-Zz9'));
    expect((await read('abc_defg')).status).toBe(404);
    expect((await read('abc%20def')).status).toBe(404);
  });

  it('leaves the token readable when the refresh token cannot be minted', async () => {
    const login = await aSubject();
    const clientId = unique('app');
    const created = await mc.call('POST', '/api/oauth-clients', { bearer: admin, body: {
      clientId, scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['refresh_token', 'authorization_code'],
      additionalInformation: { dynamic_registration: 'true' },
    } });
    expect(created.status).toBe(201);
    const name = (await pair(login, { clientId })).body.tokenName as string;
    await t.app.db.db.update(oauthClients).set({ authorizedGrantTypes: ['authorization_code'] }).where(eq(oauthClients.clientId, clientId));
    expect(pick(await read(name))).toEqual(radarError(400, `OAuth client ${clientId} does not have the refresh_token grant`, 'oauthClient', 'error.invalidClient', { clientId }));
    await t.app.db.db.update(oauthClients).set({ authorizedGrantTypes: ['refresh_token', 'authorization_code'] }).where(eq(oauthClients.clientId, clientId));
    const again = await read(name);
    expect(again.status).toBe(200);
    expect(await refresh(again.body.refreshToken, clientId)).toMatchObject({ status: 200, scope: 'SUBJECT.READ', sub: login });
  });
});

describe('GET /api/oauth-clients/pair', () => {
  it('is not taken for a client id, and the client lookup still works', async () => {
    const noParams = await mc.call('GET', '/api/oauth-clients/pair', { bearer: admin });
    expect(noParams.status).toBe(400);
    expect(noParams.body.message).toBe('error.validation');
    const client = await mc.call('GET', '/api/oauth-clients/aRMT', { bearer: admin });
    expect(client.status).toBe(200);
    expect(client.body.clientId).toBe('aRMT');
  });

  it('refuses a client-credentials token and an admin of another project (403), and a missing scope', async () => {
    const login = await aSubject();
    const machine = await mc.clientCredentials(['SUBJECT.UPDATE'], admin);
    expect(pick(await pair(login, { bearer: machine }))).toEqual(accessDenied());
    expect(pick(await pair(login, { bearer: otherAdmin }))).toEqual(accessDenied());
    const participant = await mc.userWithRole('ROLE_PARTICIPANT', { project: other.projectName });
    expect(pick(await pair(login, { bearer: participant.token }))).toEqual(accessDenied());
    expect(await t.app.db.db.select().from(metaTokens).where(eq(metaTokens.subjectId,
      (await t.app.db.db.select({ id: subjects.id }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).where(eq(users.login, login)))[0]!.id))).toEqual([]);
  });

  it('answers 404 error.subjectNotFound for an unknown subject and one without an active project', async () => {
    expect(pick(await pair('nobody-here', { bearer: admin }))).toEqual(radarError(404, 'Subject not found with login', 'subject', 'error.subjectNotFound'));
    const login = await aSubject();
    const db = t.app.db.db;
    const [user] = await db.select().from(users).where(eq(users.login, login));
    await db.delete(roleUsers).where(eq(roleUsers.userId, user!.id));
    expect(pick(await pair(login, { bearer: admin }))).toEqual(radarError(404, `Project for subject ${login} not found`, 'subject', 'error.subjectNotFound'));
  });

  it('answers 400 error.invalidClient for an unknown client, one without dynamic registration and one without the refresh_token grant', async () => {
    const login = await aSubject();
    const invalid = (clientId: string, why: string) => radarError(400, `OAuth client ${clientId} ${why}`, 'oauthClient', 'error.invalidClient', { clientId });
    expect(pick(await pair(login, { clientId: 'no-such-client' }))).toEqual(invalid('no-such-client', 'does not exist'));
    expect(pick(await pair(login, { clientId: 'radar_dashboard' }))).toEqual(invalid('radar_dashboard', 'does not allow dynamic registration'));
    const clientId = unique('app');
    await mc.call('POST', '/api/oauth-clients', { bearer: admin, body: {
      clientId, scope: ['SUBJECT.READ'], authorizedGrantTypes: ['authorization_code'], additionalInformation: { dynamic_registration: true },
    } });
    expect(pick(await pair(login, { clientId }))).toEqual(invalid(clientId, 'does not have the refresh_token grant'));
  });

  it('answers 400 for a persistent flag that is not a boolean', async () => {
    const res = await pair(await aSubject(), { persistent: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('error.validation');
  });
});

describe('DELETE /api/meta-token/{tokenName}', () => {
  it('lets an admin of the subject\'s project delete a token (204; then 404), not an admin of another project', async () => {
    const login = await aSubject();
    const name = (await pair(login)).body.tokenName as string;
    expect(pick(await mc.call('DELETE', `/api/meta-token/${name}`, { bearer: otherAdmin }))).toEqual(accessDenied());
    expect((await mc.call('DELETE', `/api/meta-token/${name}`)).status).toBe(401);
    const deleted = await mc.call('DELETE', `/api/meta-token/${name}`, { bearer: projectAdmin });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(pick(await read(name))).toEqual(notFound(name));
    expect(pick(await mc.call('DELETE', `/api/meta-token/${name}`, { bearer: projectAdmin }))).toEqual(notFound(name));
  });
});

describe('the meta-token purge', () => {
  it('deletes read one-time tokens and expired tokens; keeps the readable ones', async () => {
    const login = await aSubject();
    const db = t.app.db.db;
    const [subject] = await db.select({ id: subjects.id }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).where(eq(users.login, login));
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    const earlier = new Date(now.getTime() - 1000);
    const rows: Record<string, { fetched: boolean; persistent: boolean; expiryDate: Date }> = {
      readOnce: { fetched: true, persistent: false, expiryDate: later },
      unread: { fetched: false, persistent: false, expiryDate: later },
      readPersistent: { fetched: true, persistent: true, expiryDate: later },
      expired: { fetched: false, persistent: false, expiryDate: earlier },
      expiredPersistent: { fetched: true, persistent: true, expiryDate: earlier },
    };
    const names = Object.fromEntries(Object.keys(rows).map((k) => [k, unique('p').replace('-', '.')]));
    await db.insert(metaTokens).values(Object.entries(rows).map(([k, r]) => ({ ...r, tokenName: names[k]!, subjectId: subject!.id, clientId: 'aRMT' })));

    await Promise.all([runMaintenance(db, [META_TOKEN_PURGE], now, t.app.log), runMaintenance(db, [META_TOKEN_PURGE], now, t.app.log)]);

    const left = await db.select({ tokenName: metaTokens.tokenName }).from(metaTokens).where(eq(metaTokens.subjectId, subject!.id));
    expect(left.map((r) => r.tokenName).sort()).toEqual([names.unread, names.readPersistent].sort());
  });
});
