/**
 * Issue 17 item 1: no user token with `sub == client_id`. radar-auth (the gateway and every other
 * resource server) counts such a token as the client's own and skips the user's roles, so a user
 * whose login is a client id, signing in through that client, would read every project.
 *
 * Covered: the API refuses such logins and such client ids (400); a twin made in the database
 * gets no token from any user grant (invalid_grant), a refresh token of one is refused without
 * being consumed; and the management API's verifier treats a token as the client's own only when
 * its grant type is `client_credentials`.
 *
 * The app signs with the fixture keystore, so the test can sign tokens the app accepts (tokens
 * minted before the fix, or by hand).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import bcrypt from '@node-rs/bcrypt';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic, managementClient, unique } from '../../helpers/management-api.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { loadKeySet } from '../../../src/management/oauth/keystore.js';
import { createTokenSigning, type TokenSigning } from '../../../src/management/oauth/token-signing.js';
import { insertCode } from '../../../src/management/oauth/authorize/codes.js';
import { findRefreshToken, recordRefreshToken } from '../../../src/management/oauth/queries.js';
import { findClient, upsertClient } from '../../../src/management/oauth/clients/queries.js';
import { oauthClients, roles, roleUsers, users, type PendingAuthorization } from '../../../src/management/schema.js';
import type { Database } from '../../../src/platform/database.js';

const KEYSTORE = fileURLToPath(new URL('../../fixtures/keystores/keytool-ec.p12', import.meta.url));
const DASHBOARD_REDIRECT = 'http://localhost:3000/login';

let t: TestApp;
let db: Database;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let signing: TokenSigning;
let project: { id: number; projectName: string };
let projectAdmin: { login: string; token: string };

beforeAll(async () => {
  t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE });
  db = t.app.db.db;
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  const keys = await loadKeySet({ profile: 'dev', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} });
  signing = createTokenSigning(keys);
  project = await aProject(db);
  projectAdmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
});
afterAll(async () => {
  await signing.close();
  await t.close();
});

/** A user made in the database (bypassing the API's checks), activated, with a password and a participant role in the test project. */
async function twinUser(login: string, password = 'Passw0rd') {
  const [user] = await db.insert(users).values({ login, activated: true, passwordHash: await bcrypt.hash(password, 4), langKey: 'en' }).returning();
  const [role] = await db.insert(roles).values({ authorityName: 'ROLE_PARTICIPANT', projectId: project.id })
    .onConflictDoUpdate({ target: [roles.projectId, roles.authorityName], set: { authorityName: 'ROLE_PARTICIPANT' } }).returning();
  await db.insert(roleUsers).values({ userId: user!.id, roleId: role!.id });
  return user!;
}

const userExists = async (login: string) => (await db.select().from(users).where(eq(users.login, login))).length > 0;

describe('the API refuses twins', () => {
  it('a project admin creating a user whose login is a client id (radar_dashboard): 400, nothing stored', async () => {
    const res = await mp.call('POST', '/api/users', {
      bearer: projectAdmin.token,
      body: { login: 'radar_dashboard', email: 'dash@example.org', roles: [{ authorityName: 'ROLE_PROJECT_ADMIN', projectId: project.id }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ entityName: 'userManagement', errorCode: 'error.loginisclientid' });
    expect(await userExists('radar_dashboard')).toBe(false);
  });

  it('every client of the dev clients file is refused as a login, in any case (logins are lower-cased)', async () => {
    for (const clientId of ['radar_restapi', 'radar_upload_backend', 'radar_appserver_client', 'RADAR_Dashboard']) {
      const res = await mp.call('POST', '/api/users', { bearer: admin, body: { login: clientId, email: `${unique('u')}@example.org` } });
      expect(res.status, clientId).toBe(400);
      expect(res.body.errorCode).toBe('error.loginisclientid');
    }
  });

  it('a subject whose login is a client id: 400, nothing stored', async () => {
    const res = await mp.call('POST', '/api/subjects', {
      bearer: projectAdmin.token, body: { login: 'radar_upload_backend', project: { id: project.id, projectName: project.projectName } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'error.loginisclientid' });
    expect(await userExists('radar_upload_backend')).toBe(false);
  });

  it('a client whose id is a user\'s login: 400, nothing stored; a client id differing in case is no twin', async () => {
    const res = await mp.call('POST', '/api/oauth-clients', {
      bearer: admin, body: { clientId: projectAdmin.login, clientSecret: 'x', resourceIds: ['res_ManagementPortal'], scope: ['PROJECT.READ'], authorizedGrantTypes: ['password'] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error.clientIdIsLogin', description: `A user has the login ${projectAdmin.login}; a client may not share it`, fieldErrors: null });
    expect(await findClient(db, projectAdmin.login)).toBeUndefined();
    const upper = await mp.call('POST', '/api/oauth-clients', { bearer: admin, body: { clientId: projectAdmin.login.toUpperCase(), clientSecret: 'x' } });
    expect(upper.status).toBe(201);
  });
});

describe('a twin made in the database gets no token', () => {
  it('password grant through the client of its name: invalid_grant, no token, nothing recorded', async () => {
    await twinUser('radar_upload_backend');
    const res = await mp.token({ grant_type: 'password', username: 'radar_upload_backend', password: 'Passw0rd' }, basic('radar_upload_backend', 'secret'));
    expect(res).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(res.access_token).toBeUndefined();
    // The same user through another client is a plain user token.
    const other = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'radar_upload_backend', password: 'Passw0rd' });
    expect(other).toMatchObject({ status: 200, sub: 'radar_upload_backend', roles: [`${project.projectName}:ROLE_PARTICIPANT`] });
  });

  it('authorization code of the twin for the client of its name: invalid_grant', async () => {
    await twinUser('radar_dashboard');
    const pending = {
      requestId: 'r', clientId: 'radar_dashboard', redirectUri: DASHBOARD_REDIRECT, redirectUriGiven: true, state: null,
      scope: ['PROJECT.READ'], codeChallenge: null, codeChallengeMethod: null,
    } as PendingAuthorization;
    const code = await insertCode(db, pending, 'radar_dashboard', new Date());
    const res = await mp.token({ grant_type: 'authorization_code', client_id: 'radar_dashboard', code, redirect_uri: DASHBOARD_REDIRECT });
    expect(res).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(res.access_token).toBeUndefined();
  });

  it('a refresh token minted for a twin before the fix: invalid_grant, and it is not consumed', async () => {
    const clientId = unique('twin');
    await upsertClient(db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['PROJECT.READ'],
      authorizedGrantTypes: ['password', 'refresh_token'], redirectUris: [], authorities: [],
    });
    await twinUser(clientId);
    const iat = Math.floor(Date.now() / 1000);
    const jti = unique('jti');
    const refreshToken = await signing.sign({
      aud: ['res_ManagementPortal'], sub: clientId, user_name: clientId, roles: [], authorities: ['ROLE_PARTICIPANT'], sources: [],
      scope: ['PROJECT.READ'], iss: 'ManagementPortal', iat, exp: iat + 3600, grant_type: 'password', client_id: clientId, jti, ati: unique('ati'),
    });
    await recordRefreshToken(db, { jti, familyId: jti, parentJti: null, clientId, userLogin: clientId, expiresAt: new Date((iat + 3600) * 1000) });
    const res = await mp.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
    expect(res).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await findRefreshToken(db, jti)).toMatchObject({ usedAt: null, revokedAt: null });
    await db.delete(oauthClients).where(eq(oauthClients.clientId, clientId));
  });
});

describe('pairing a twin', () => {
  it('a meta-token of a subject for the client of its name: 400 error.invalidClient (not 500), no token, the meta-token left unread', async () => {
    const subject = await aParticipant(db, { project });
    await upsertClient(db, {
      clientId: subject.login, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'],
      authorizedGrantTypes: ['refresh_token', 'authorization_code'], additionalInformation: { dynamic_registration: true },
    });
    const pair = await mp.call('GET', `/api/oauth-clients/pair?${new URLSearchParams({ login: subject.login, clientId: subject.login })}`, { bearer: admin });
    expect(pair.status).toBe(200);
    const read = await mp.call('GET', `/api/meta-token/${pair.body.tokenName}`);
    expect(read.status).toBe(400);
    expect(read.body).toMatchObject({ entityName: 'oauthClient', errorCode: 'error.invalidClient' });
    expect(JSON.stringify(read.body)).not.toContain('refreshToken');
    expect((await mp.call('GET', `/api/meta-token/${pair.body.tokenName}`)).status).toBe(400);
  });
});

describe('the management API counts a token as the client\'s own only for grant_type client_credentials', () => {
  /** A token signed with the app's key: `sub`, `user_name` and `client_id` all `login`. */
  async function handMade(login: string, grantType: string) {
    const iat = Math.floor(Date.now() / 1000);
    return signing.sign({
      aud: ['res_ManagementPortal'], sub: login, user_name: login, client_id: login, scope: ['OAUTHCLIENTS.READ', 'PROJECT.READ'],
      iss: 'ManagementPortal', iat, exp: iat + 600, grant_type: grantType, jti: unique('jti'),
    });
  }

  it('sub == client_id with grant_type password gets the user\'s roles only (a participant: 403 on the client list)', async () => {
    const login = unique('twin');
    await twinUser(login);
    expect((await mp.call('GET', '/api/oauth-clients', { bearer: await handMade(login, 'password') })).status).toBe(403);
    // The same claims as a client-credentials token pass on scope alone: the token is accepted, only the rule differs.
    expect((await mp.call('GET', '/api/oauth-clients', { bearer: await handMade(login, 'client_credentials') })).status).toBe(200);
  });
});
