/** The clean-up of expired OAuth rows: expired refresh-token records, sessions, codes and consent approvals go; live ones stay. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { pino } from 'pino';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { captureLog } from '../helpers/log-capture.js';
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

it('logs how many rows each job removed (PostgreSQL too, whose driver reports the count beside an empty row list)', async () => {
  const db = t.app.db.db;
  // Rows expired before 2000 and a run "at" 2000-01-01: no other row of this database qualifies.
  const now = new Date('2000-01-01T00:00:00Z');
  const past = new Date('1999-06-01T00:00:00Z');
  const [jti1, jti2, session, code, scope] = ['a', 'b', 'c', 'd', 'e'].map(unique) as [string, string, string, string, string];
  await db.insert(refreshTokens).values([
    { jti: jti1, familyId: jti1, clientId: 'aRMT', expiresAt: past },
    { jti: jti2, familyId: jti2, clientId: 'aRMT', expiresAt: past },
  ]);
  await db.insert(oauthSessions).values({ id: session, csrfToken: 'x', expiresAt: past });
  await db.insert(oauthCodes).values({ codeHash: code, clientId: 'aRMT', userLogin: 'admin', redirectUri: 'x', redirectUriGiven: false, expiresAt: past });
  const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.login, 'admin'));
  await db.insert(oauthApprovals).values({ userId: admin!.id, clientId: 'aRMT', scope, status: 'APPROVED', expiresAt: past });

  const log = captureLog();
  await runMaintenance(db, OAUTH_CLEANUP_JOBS, now, pino({ level: 'info' }, log.stream));

  const removed = log.lines().filter((line) => line.msg === 'maintenance').map(({ job, removed: n }) => ({ job, removed: n }));
  expect(removed).toEqual([
    { job: 'expired refresh tokens', removed: 2 },
    { job: 'expired sign-in sessions', removed: 1 },
    { job: 'expired authorization codes', removed: 1 },
    { job: 'expired consent approvals', removed: 1 },
  ]);
});
