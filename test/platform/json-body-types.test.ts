/**
 * Issue 17 item 13, "wrong-typed bodies act on the wrong entity": JSON bodies are validated
 * without type coercion (STYLE.md §2.3), so a JSON `true` or `"1"` where an integer belongs is a
 * 400 with the domain's error body, never id 1. Covers every management and app-server route
 * that takes an integer in a JSON body; query strings and paths still coerce ("12" → 12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient, unique, type Json, type Method } from '../helpers/management-api.js';
import { aNotification, aDataMessage, aSubject, aStoredNotification, call, expectStatus, messagingPath, type Subject } from '../fixtures/appserver.js';
import * as mp from '../../src/management/schema.js';
import * as as from '../../src/appserver/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let radar: { id: number; projectName: string };

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  radar = (await t.app.db.db.select().from(mp.projects).where(eq(mp.projects.projectName, 'radar')))[0]!;
});
afterAll(async () => { await t.close(); });

/** The values that AJV's coercion read as the integer 1. */
const WRONG = [true, '1'] as const;

const db = () => t.app.db.db;
const subjectOne = async () => {
  const [row] = await db().select().from(mp.subjects).innerJoin(mp.users, eq(mp.users.id, mp.subjects.userId)).where(eq(mp.subjects.id, 1));
  return row!;
};

describe('management API: an integer in a JSON body must be a JSON integer', () => {
  const sub1 = (id: unknown) => ({ id, login: 'sub-1', project: { id: radar.id, projectName: 'radar' }, externalId: 'changed' });

  it('PUT /api/subjects/discontinue {"id":true} is a 400 and discontinues nobody', async () => {
    const before = await subjectOne();
    expect(before.subjects.removed).toBe(false);
    for (const id of WRONG) {
      const res = await mc.call('PUT', '/api/subjects/discontinue', { bearer: admin, body: sub1(id) });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'body', field: 'id', message: expect.stringMatching(/^type: /) }] },
      });
    }
    expect(await subjectOne()).toEqual(before);
  });

  it('PUT /api/subjects {"id":true} is a 400 and changes nothing', async () => {
    const before = await subjectOne();
    for (const id of WRONG) {
      const res = await mc.call('PUT', '/api/subjects', { bearer: admin, body: sub1(id) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: 'error.validation', fieldErrors: [{ objectName: 'body', field: 'id' }] });
    }
    expect(await subjectOne()).toEqual(before);
  });

  it('the same body with a JSON integer is accepted (the schema is not simply stricter)', async () => {
    const res = await mc.call('GET', '/api/subjects/sub-2', { bearer: admin });
    const put = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...res.body, externalId: unique('ext') } });
    expect(put.status).toBe(200);
  });

  /** Every other management route with an integer in its body: [method, path, body with the wrong value, field]. */
  const cases: [Method, string, (v: unknown) => Json, string][] = [
    ['POST', '/api/subjects', (v) => ({ login: unique('s'), project: { id: v, projectName: 'radar' } }), 'project.id'],
    ['PUT', '/api/subjects', (v) => ({ ...sub1(2), sources: [{ id: v }] }), 'sources.0.id'],
    ['PUT', '/api/subjects/discontinue', (v) => ({ login: 'sub-1', project: { id: v, projectName: 'radar' } }), 'project.id'],
    ['POST', '/api/subjects/sub-1/sources', (v) => ({ sourceTypeId: v }), 'sourceTypeId'],
    ['POST', '/api/subjects/sub-1/sources', (v) => ({ id: v, sourceTypeId: 1 }), 'id'],
    ['PUT', '/api/projects', (v) => ({ id: v, projectName: 'radar', description: 'x', location: 'x', organizationName: 'main' }), 'id'],
    ['POST', '/api/projects', (v) => ({ projectName: unique('p'), description: 'x', location: 'x', organization: { id: v } }), 'organization.id'],
    ['PUT', '/api/projects', (v) => ({ id: radar.id, projectName: 'radar', description: 'x', location: 'x', sourceTypes: [{ id: v }] }), 'sourceTypes.0.id'],
    ['PUT', '/api/organizations', (v) => ({ id: v, name: 'main', description: 'x', location: 'x' }), 'id'],
    ['PUT', '/api/users', (v) => ({ id: v, login: 'admin', email: 'admin@localhost' }), 'id'],
    ['POST', '/api/users', (v) => ({ login: unique('u'), email: 'u@example.org', roles: [{ authorityName: 'ROLE_PROJECT_ADMIN', projectId: v }] }), 'roles.0.projectId'],
    ['PUT', '/api/users/padmin/roles', (v) => [{ authorityName: 'ROLE_PROJECT_ADMIN', projectId: v }], '0.projectId'],
    ['PUT', '/api/users/padmin/roles', (v) => [{ authorityName: 'ROLE_ORGANIZATION_ADMIN', organizationId: v }], '0.organizationId'],
    ['POST', '/api/roles', (v) => ({ authorityName: 'ROLE_PROJECT_ADMIN', projectId: v }), 'projectId'],
    ['PUT', '/api/roles', (v) => ({ id: v, authorityName: 'ROLE_PROJECT_ADMIN', projectId: radar.id }), 'id'],
    ['PUT', '/api/sources', (v) => ({ id: v, sourceName: 'source-1', assigned: true }), 'id'],
    ['POST', '/api/sources', (v) => ({ sourceName: unique('src'), assigned: false, sourceType: { id: v } }), 'sourceType.id'],
    ['POST', '/api/sources', (v) => ({ sourceName: unique('src'), assigned: false, project: { id: v } }), 'project.id'],
    ['PUT', '/api/source-types', (v) => ({ id: v, producer: 'Empatica', model: 'E4', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' }), 'id'],
    ['PUT', '/api/source-types', (v) => ({ producer: 'Empatica', model: 'E4', catalogVersion: 'v1', sourceData: [{ id: v }] }), 'sourceData.0.id'],
    ['PUT', '/api/source-data', (v) => ({ id: v, sourceDataName: 'x' }), 'id'],
    ['POST', '/api/source-data', (v) => ({ sourceDataName: unique('sd'), sourceType: { id: v } }), 'sourceType.id'],
    ['POST', '/api/projects/radar/groups', (v) => ({ id: v, name: unique('g') }), 'id'],
    ['POST', '/api/projects/radar/groups', (v) => ({ projectId: v, name: unique('g') }), 'projectId'],
    ['PATCH', '/api/projects/radar/groups/Test Group A/subjects', (v) => [{ op: 'add', value: [{ id: v }] }], '0.value.0.id'],
    ['PUT', '/api/oauth-clients', (v) => ({ clientId: 'aRMT', accessTokenValiditySeconds: v }), 'accessTokenValiditySeconds'],
    ['POST', '/api/oauth-clients', (v) => ({ clientId: unique('c'), refreshTokenValiditySeconds: v }), 'refreshTokenValiditySeconds'],
  ];

  it.each(cases)('%s %s: true and "1" where an integer belongs are 400 error.validation', async (method, path, body, field) => {
    for (const value of WRONG) {
      const res = await mc.call(method, path, { bearer: admin, body: body(value) });
      expect({ value, status: res.status, body: res.body }).toEqual({
        value, status: 400,
        body: { message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'body', field, message: expect.stringMatching(/^type: /) }] },
      });
    }
  });

  it('keeps the unions real clients send: an enum ordinal for status and projectStatus', async () => {
    const res = await mc.call('GET', '/api/subjects/sub-3', { bearer: admin });
    expect((await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...res.body, status: 1 } })).status).toBe(200);
    const project = await mc.call('GET', '/api/projects/radar', { bearer: admin });
    expect((await mc.call('PUT', '/api/projects', { bearer: admin, body: { ...project.body, projectStatus: 1 } })).status).toBe(200);
  });

  it('still coerces the query string and the path ("12" → 12, "true" → true)', async () => {
    const page = await mc.call('GET', '/api/subjects?page=0&size=2&projectName=radar', { bearer: admin });
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(2);
    const revision = await mc.call('GET', '/api/subjects/sub-1/revisions/0', { bearer: admin });
    expect(revision.status).not.toBe(400);
    const minimized = await mc.call('GET', '/api/projects?minimized=true', { bearer: admin });
    expect(minimized.status).toBe(200);
    expect(Object.keys(minimized.body[0]).sort()).toEqual(['id', 'projectName']);
  });
});

describe('app server: an integer in a JSON body must be a JSON integer', () => {
  let s: Subject;
  let notificationId: number;
  beforeAll(async () => {
    s = await aSubject(t.app);
    notificationId = (await aStoredNotification(t.app, s)).id;
    // A well-typed data message is accepted, so the 400s below are about the field's type alone.
    expectStatus(await call(t.app, 'POST', messagingPath(s, 'data'), aDataMessage()), 201);
  });

  it('PUT /projects/radar {"id":true,"projectId":true} is a 400 and renames nothing', async () => {
    const before = (await db().select().from(as.projects).orderBy(as.projects.id));
    for (const id of WRONG) {
      const res = await call(t.app, 'PUT', '/projects/radar', { id, projectId: id });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ timestamp: expect.any(Number), status: 400, message: expect.stringContaining('body/id'), path: 'uri=/projects/radar' });
    }
    expect(await db().select().from(as.projects).orderBy(as.projects.id)).toEqual(before);
    expect((await t.app.inject('/projects/radar')).statusCode).toBe(200);
  });

  /** `{user}` is the subject's path, `{n}` its notification's id. */
  const cases: ['POST' | 'PUT', string, (v: unknown) => Record<string, unknown>, string][] = [
    ['POST', '/projects', (v) => ({ id: v, projectId: unique('p') }), 'id'],
    ['PUT', '{user}', (v) => ({ id: v, subjectId: s.subjectId, enrolmentDate: '2024-05-01T00:00:00Z', timezone: 'UTC' }), 'id'],
    ['PUT', '{user}/messaging/notifications', (v) => aNotification({ id: v }), 'id'],
    ['PUT', '{user}/messaging/data', (v) => aDataMessage({ id: v }), 'id'],
    ['POST', '{user}/messaging/notifications', (v) => aNotification({ ttlSeconds: v }), 'ttlSeconds'],
    ['POST', '{user}/messaging/notifications/batch', (v) => ({ notifications: [aNotification({ ttlSeconds: v })] }), 'notifications/0/ttlSeconds'],
    ['POST', '{user}/messaging/data/batch', (v) => ({ dataMessages: [aDataMessage({ id: v })] }), 'dataMessages/0/id'],
    ['POST', '{user}/messaging/notifications/{n}/state_events', (v) => ({ notificationId: v, state: 'DELIVERED' }), 'notificationId'],
  ];

  it.each(cases)('%s %s: true and "1" where an integer belongs are 400 ErrorDetails', async (method, template, body, field) => {
    const path = template.replace('{user}', `/projects/${s.projectId}/users/${s.subjectId}`).replace('{n}', String(notificationId));
    for (const value of WRONG) {
      const res = await call(t.app, method, path, body(value));
      expect({ value, status: res.statusCode, body: res.json() }).toEqual({
        value, status: 400,
        body: { timestamp: expect.any(Number), status: 400, message: expect.stringContaining(`body/${field}`), path: `uri=${path}` },
      });
    }
  });

  it('keeps the unions real clients send: an integer time zone, epoch-second instants', async () => {
    const res = await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, { enrolmentDate: 1714521600, timezone: 7200 });
    expect(expectStatus(res, 200)).toMatchObject({ enrolmentDate: 1714521600 });
  });

  it('still coerces the query string and the path', async () => {
    expect(expectStatus(await t.app.inject(`/messaging/notifications/${notificationId}`), 200)).toMatchObject({ id: notificationId });
    const project = expectStatus(await t.app.inject('/projects/radar'), 200) as { id: number };
    expect(expectStatus(await t.app.inject(`/projects/project?id=${project.id}`), 200)).toMatchObject({ projectId: 'radar' });
    expectStatus(await call(t.app, 'POST', `${messagingPath(s)}?schedule=false`, aNotification()), 201);
  });
});
