/**
 * `/api/revisions` over HTTP (managementportal.md §2.11): who changed what and when, grouped by
 * kind of change and entity type, for system admins only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { aProjectIn, mainOrganization } from '../../../fixtures/management.js';
import { recordRevision } from '../../../../src/management/api/revisions/queries.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  project = await aProjectIn(db, main);
});
afterAll(async () => { await t?.close(); });

/** Creates, updates and deletes a user through the API; returns the three DTOs. */
async function userLifecycle() {
  const login = unique('rev');
  const created = await mp.call('POST', '/api/users', { bearer: admin, body: { login, email: `${login}@example.org`, roles: [{ authorityName: 'ROLE_PROJECT_ADMIN', projectId: project.id }] } });
  expect(created.status).toBe(201);
  const updated = await mp.call('PUT', '/api/users', { bearer: admin, body: { ...created.body, firstName: 'Changed' } });
  expect(updated.status).toBe(200);
  expect((await mp.call('DELETE', `/api/users/${login}`, { bearer: admin })).status).toBe(200);
  return { created: created.body as Json, updated: updated.body as Json };
}

describe('GET /api/revisions', () => {
  it('lists revisions with author, time and the changed DTOs by kind and entity type', async () => {
    const before = Date.now();
    const { created, updated } = await userLifecycle();
    const res = await mp.call('GET', '/api/revisions?sort=id,desc&size=3', { bearer: admin });
    expect(res.status).toBe(200);
    const [deleted, modified, added] = res.body as Json[];
    const revision = (changes: Json) => ({ id: expect.any(Number), timestamp: expect.stringMatching(/Z$/), author: 'admin', changes });
    expect(added).toEqual(revision({
      ADD: { user: [created], role: [{ id: created.roles[0].id, projectId: project.id, projectName: project.projectName, authorityName: 'ROLE_PROJECT_ADMIN' }] },
      MOD: {}, DEL: {},
    }));
    expect(modified).toEqual(revision({ ADD: {}, MOD: { user: [updated] }, DEL: {} }));
    expect(deleted).toEqual(revision({ ADD: {}, MOD: {}, DEL: { user: [updated] } }));
    expect(added.id).toBeLessThan(modified.id);
    expect(new Date(added.timestamp).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('pages with X-Total-Count and Link, and sorts by id, timestamp or author', async () => {
    await userLifecycle();
    const all = await mp.call('GET', '/api/revisions', { bearer: admin });
    const total = Number(all.headers['x-total-count']);
    expect(all.body).toHaveLength(total);
    expect((all.body as Json[]).map((r) => r.id)).toEqual([...(all.body as Json[]).map((r) => r.id)].sort((a, b) => a - b));
    const page = await mp.call('GET', '/api/revisions?page=1&size=2&sort=auditor,asc', { bearer: admin });
    expect(page.body).toHaveLength(2);
    expect(page.headers['x-total-count']).toBe(String(total));
    expect(page.headers.link).toContain('rel="prev"');
    expect((await mp.call('GET', '/api/revisions?sort=secret,asc', { bearer: admin })).status).toBe(400);
  });

  it('groups entity types as the reference names them (DTO class, lower-cased)', async () => {
    const id = await recordRevision(t.app.db.db, 'someone', [
      { entityType: 'sourceType', entityId: 1, revisionType: 'ADD', entity: { id: 1, model: 'M' } },
      { entityType: 'sourceType', entityId: 2, revisionType: 'ADD', entity: { id: 2, model: 'N' } },
    ]);
    const res = await mp.call('GET', `/api/revisions/${id}`, { bearer: admin });
    expect(res.body).toMatchObject({ id, author: 'someone', changes: { ADD: { sourcetype: [{ id: 1, model: 'M' }, { id: 2, model: 'N' }] }, MOD: {}, DEL: {} } });
  });
});

describe('GET /api/revisions/{id}', () => {
  it('answers one revision, 404 error.revisionsNotFound for an unknown one', async () => {
    const list = await mp.call('GET', '/api/revisions?sort=id,desc&size=1', { bearer: admin });
    const [latest] = list.body as Json[];
    expect(await mp.call('GET', `/api/revisions/${latest.id}`, { bearer: admin })).toMatchObject({ status: 200, body: latest });
    const unknown = await mp.call('GET', '/api/revisions/987654321', { bearer: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['x-managementportalapp-error']).toBe('error.revisionsNotFound');
    expect(unknown.body).toEqual({
      message: 'Revision not found with revision id', entityName: 'revision', errorCode: 'error.revisionsNotFound',
      params: { timestamp: expect.stringMatching(radarTimestamp), 'revision-id': '987654321' },
    });
    expect((await mp.call('GET', '/api/revisions/abc', { bearer: admin })).status).toBe(400);
  });
});

describe('who may read revisions', () => {
  it('system admins only: not project or organization admins, nor clients with every scope', async () => {
    const pa = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    const oa = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
    const cc = await mp.clientCredentials(['PROJECT.READ', 'SUBJECT.READ', 'AUDIT.READ', 'USER.READ', 'ROLE.READ'], admin);
    for (const token of [pa.token, oa.token, cc]) {
      for (const path of ['/api/revisions', '/api/revisions/1']) {
        const res = await mp.call('GET', path, { bearer: token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'error.accessDenied', description: 'Access is denied', fieldErrors: null });
      }
    }
    expect((await mp.call('GET', '/api/revisions')).status).toBe(401);
  });
});
