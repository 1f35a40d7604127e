/**
 * Issue 32 item 4: after a switch-over, a refresh token the reference ManagementPortal issued
 * (signed with the same keystore key, never recorded here; a pairing token carries `user_name`
 * and no `sub`) is accepted once within its expiry, and a second use is reuse. Those signed before
 * the user's credentials were ended here, and those issued after
 * MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL, are refused.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { eq } from 'drizzle-orm';
import { users } from '../../../src/management/schema.js';
import { loadKeySet, type SigningKey } from '../../../src/management/oauth/keystore.js';
import { endCredentialsOfUser } from '../../../src/management/oauth/user-credentials.js';
import type { Database } from '../../../src/platform/database.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aParticipant, aProject } from '../../fixtures/management.js';

const KEYSTORE = fileURLToPath(new URL('../../fixtures/keystores/keytool-ec.p12', import.meta.url));
const now = () => Math.floor(Date.now() / 1000);
/** Reference-issued tokens with `iat` after this are refused (set on the app below). */
const until = now() - 30;

let t: TestApp;
let db: Database;
let key: SigningKey;
beforeAll(async () => {
  t = await buildTestApp({
    MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE,
    MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL: new Date(until * 1000).toISOString(),
  });
  db = t.app.db.db as Database;
  key = (await loadKeySet({ profile: 'dev', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} })).signing;
});
afterAll(async () => { await t.close(); });

/** A refresh token as the reference's pairing gave the app: `user_name`, `ati`, no `sub`. */
function referenceRefreshToken(login: string, iat: number, jti = randomUUID()) {
  return new SignJWT({
    aud: ['res_ManagementPortal', 'res_gateway', 'res_AppServer'], user_name: login, scope: ['SUBJECT.READ', 'MEASUREMENT.CREATE'],
    ati: randomUUID(), iss: 'ManagementPortal', authorities: ['ROLE_PARTICIPANT'], roles: [], sources: [], jti, client_id: 'aRMT',
    iat, exp: iat + 3 * 30 * 86400,
  }).setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid }).sign(key.privateKey);
}

async function refresh(token: string) {
  const res = await t.app.inject({
    method: 'POST', url: '/managementportal/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('aRMT:').toString('base64')}` },
    payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function aPairedParticipant() {
  const project = await aProject(db);
  return aParticipant(db, { project });
}

describe('a refresh token the reference issued', () => {
  it('works once: the answer is a new pair of this service, and a second use is refused as reuse', async () => {
    const { login } = await aPairedParticipant();
    const legacy = await referenceRefreshToken(login, until - 3600);

    const first = await refresh(legacy);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ sub: login, token_type: 'bearer' });
    expect(first.body.refresh_token).toEqual(expect.any(String));

    const again = await refresh(legacy);
    expect(again).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Refresh token was already used; its token chain is revoked' } });
    // Reuse revokes the chain, as for any token of this service.
    expect((await refresh(first.body.refresh_token as string)).body).toEqual({ error: 'invalid_grant', error_description: 'Refresh token was revoked' });
  });

  it('goes on as a chain of this service once used', async () => {
    const { login } = await aPairedParticipant();
    const first = await refresh(await referenceRefreshToken(login, until - 60));
    const second = await refresh(first.body.refresh_token as string);
    expect(second.status).toBe(200);
    expect(second.body.sub).toBe(login);
  });

  it('is refused when the user\'s credentials were ended here after it was issued (password change, deactivation, role removal)', async () => {
    const { login } = await aPairedParticipant();
    const before = await referenceRefreshToken(login, until - 3600);
    await endCredentialsOfUser(db, login, new Date((until - 1800) * 1000));
    expect(await refresh(before)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } });
    // One issued after the credentials ended works.
    expect((await refresh(await referenceRefreshToken(login, until - 60))).status).toBe(200);
  });

  it('is refused when issued after MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL', async () => {
    const { login } = await aPairedParticipant();
    expect(await refresh(await referenceRefreshToken(login, until + 10))).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } });
  });

  it('is refused when signed by another key, or for a user not activated', async () => {
    const { login, user } = await aPairedParticipant();
    const otherKey = await new SignJWT({ user_name: login, ati: randomUUID(), jti: randomUUID(), client_id: 'aRMT', iat: until - 60, exp: now() + 3600 })
      .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('not the keystore key, long enough for HS256'));
    expect((await refresh(otherKey)).status).toBe(401);
    await db.update(users).set({ activated: false }).where(eq(users.id, user.id));
    expect((await refresh(await referenceRefreshToken(login, until - 60))).status).toBe(401);
  });
});
