/** The clean-up of expired OAuth rows: expired refresh-token records, sessions, codes and consent approvals go; live ones stay. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { unique } from '../helpers/management-api.js';
import { OAUTH_CLEANUP_JOBS, runMaintenance } from '../../src/management/maintenance.js';
import { oauthApprovals, oauthCodes, oauthSessions, refreshTokens, users } from '../../src/management/schema.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

it('deletes expired refresh tokens, sessions, codes and approvals, keeps live ones, and is safe to run twice at once', async () => {
  const db = t.app.db.db;
  const now = new Date();
  const past = new Date(now.getTime() - 60_000);
  const future = new Date(now.getTime() + 60_000);
  const [oldJti, liveJti, oldSession, liveSession, oldCode, liveCode] = ['a', 'b', 'c', 'd', 'e', 'f'].map(unique) as [string, string, string, string, string, string];
  await db.insert(refreshTokens).values([
    { jti: oldJti, familyId: oldJti, clientId: 'aRMT', expiresAt: past },
    { jti: liveJti, familyId: liveJti, clientId: 'aRMT', expiresAt: future },
  ]);
  await db.insert(oauthSessions).values([
    { id: oldSession, csrfToken: 'x', expiresAt: past },
    { id: liveSession, csrfToken: 'x', expiresAt: future },
  ]);
  await db.insert(oauthCodes).values([
    { codeHash: oldCode, clientId: 'aRMT', userLogin: 'admin', redirectUri: 'x', redirectUriGiven: false, expiresAt: past },
    { codeHash: liveCode, clientId: 'aRMT', userLogin: 'admin', redirectUri: 'x', redirectUriGiven: false, expiresAt: future },
  ]);
  const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.login, 'admin'));
  await db.insert(oauthApprovals).values([
    { userId: admin!.id, clientId: 'aRMT', scope: oldCode, status: 'APPROVED', expiresAt: past },
    { userId: admin!.id, clientId: 'aRMT', scope: liveCode, status: 'APPROVED', expiresAt: future },
  ]);

  await Promise.all([runMaintenance(db, OAUTH_CLEANUP_JOBS, now, t.app.log), runMaintenance(db, OAUTH_CLEANUP_JOBS, now, t.app.log)]);

  const jtis = await db.select({ jti: refreshTokens.jti }).from(refreshTokens).where(inArray(refreshTokens.jti, [oldJti, liveJti]));
  expect(jtis.map((r) => r.jti)).toEqual([liveJti]);
  const sessions = await db.select({ id: oauthSessions.id }).from(oauthSessions).where(inArray(oauthSessions.id, [oldSession, liveSession]));
  expect(sessions.map((r) => r.id)).toEqual([liveSession]);
  const codes = await db.select({ c: oauthCodes.codeHash }).from(oauthCodes).where(inArray(oauthCodes.codeHash, [oldCode, liveCode]));
  expect(codes.map((r) => r.c)).toEqual([liveCode]);
  const approvals = await db.select({ s: oauthApprovals.scope }).from(oauthApprovals).where(inArray(oauthApprovals.scope, [oldCode, liveCode]));
  expect(approvals.map((r) => r.s)).toEqual([liveCode]);
});
