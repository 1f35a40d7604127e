/**
 * Issue 21 "Done means": with app-server security on (dev profile, the dev clients file), a
 * questionnaire app paired through the management domain works end to end against the app
 * server, calling it as aRMT does (clients.md §1.2, §2.1): its participant token from the
 * refresh-token grant of `aRMT`, then project and user registration, notifications and their
 * state events; and it reaches nobody else.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic, managementClient } from '../../helpers/management-api.js';
import { mainOrganization } from '../../fixtures/management.js';
import { aNotification, aUserBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { projects, projectSourceTypes, sourceTypes } from '../../../src/management/schema.js';

let t: TestApp;
afterAll(async () => t?.close());
beforeAll(async () => {
  t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE: '1000' });
});

it('pairs, registers itself, schedules a notification and reports its states; other subjects stay closed', async () => {
  const mc = managementClient(t.app);
  const admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  const [armt] = await db.insert(sourceTypes).values({ producer: 'RADAR', model: unique('aRMT-App'), catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true }).returning();
  const [study] = await db.insert(projects).values({ projectName: unique('study'), description: 'd', location: 'l', organizationId: main.id }).returning();
  await db.insert(projectSourceTypes).values({ projectId: study!.id, sourceTypeId: armt!.id });
  const subjectId = (await mc.subjectIn({ id: study!.id, projectName: study!.projectName }, admin)).login as string;
  const projectId = study!.projectName;

  // Pairing: the QR code's meta-token, read without a token, then the app's refresh (HTTP Basic aRMT, empty secret).
  const paired = await mc.call('GET', `/api/oauth-clients/pair?${new URLSearchParams({ login: subjectId, clientId: 'aRMT' })}`, { bearer: admin });
  expect(paired.status).toBe(200);
  const tokenName = String(paired.body.tokenUrl).split('/').pop()!;
  const meta = await mc.call('GET', `/api/meta-token/${tokenName}`);
  const refreshed = await mc.token({ grant_type: 'refresh_token', refresh_token: meta.body.refreshToken }, basic('aRMT', ''));
  expect(refreshed.status).toBe(200);
  const headers = { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json' };
  const app = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) });

  // addProjectIfMissing, addSubjectIfMissing (clients.md §2.1 init sequence).
  expect((await app('GET', `/projects/${projectId}`)).statusCode).toBe(404);
  expectStatus(await app('POST', '/projects', { projectId }), 201);
  expect((await app('GET', `/projects/${projectId}/users/${subjectId}`)).statusCode).toBe(404);
  const created = expectStatus(await app('POST', `/projects/${projectId}/users?forceFcmToken=true`, aUserBody({ subjectId, projectId })), 201);
  const user = expectStatus(await app('GET', `/projects/${projectId}/users/${subjectId}`), 200);
  expect(user.id).toBe(created.id);
  expectStatus(await app('PUT', `/projects/${projectId}/users/${subjectId}?forceFcmToken=true`, { ...user, fcmToken: unique('tok'), lastOpened: new Date().toISOString() }), 200);

  // Publish a notification, list it, report DELIVERED (no associatedInfo, as the app sends it), delete it.
  const base = `/projects/${projectId}/users/${subjectId}/messaging/notifications`;
  const n = expectStatus(await app('POST', base, aNotification()), 201);
  expect(expectStatus(await app('GET', base), 200).notifications.map((x: { id: number }) => x.id)).toEqual([n.id]);
  expectStatus(await app('POST', `${base}/${n.id}/state_events`, { notificationId: n.id, state: 'DELIVERED', time: new Date().toISOString() }), 200);
  expectStatus(await app('DELETE', `${base}/${n.id}`), 200);

  // Another subject of the same project, and the project-wide lists, stay closed to the participant.
  const other = `/projects/${projectId}/users/${unique('someone')}`;
  expect((await app('GET', other)).statusCode).toBe(403);
  expect((await app('GET', '/messaging/notifications')).statusCode).toBe(403);
  expect((await app('GET', '/projects')).statusCode).toBe(403);
  // And without its token nothing opens.
  expect((await t.app.inject({ method: 'GET', url: `/projects/${projectId}/users/${subjectId}` })).statusCode).toBe(401);
}, 60_000);
