/**
 * `/management/audits` over HTTP (managementportal.md §2.11, AuditResourceIntTest of §14): the
 * AuditEvent shape, date ranges with both days included, paging, 404, and the global
 * `AUDIT.READ` permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { auditEvents, projects } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const principal = unique('SAMPLE_PRINCIPAL');
let sample: { id: number };

async function anEvent(eventDate: string, who = principal, data: Record<string, string> = {}) {
  const [row] = await t.app.db.db.insert(auditEvents).values({ principal: who, eventType: 'SAMPLE_TYPE', eventDate: new Date(eventDate), data }).returning();
  return row!;
}

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  sample = await anEvent('2015-08-04T10:11:30Z', principal, { remoteAddress: '127.0.0.1' });
  await anEvent('2015-08-05T00:00:00Z');
  await anEvent('2015-08-06T23:59:59.500Z');
  await anEvent('2015-08-07T00:00:00Z');
});
afterAll(async () => { await t?.close(); });

const ofSample = (list: Json[]) => list.filter((e) => e.principal === principal).map((e) => e.timestamp);

describe('GET /management/audits', () => {
  it('lists AuditEvents {timestamp, principal, type, data}, 20 to a page by default', async () => {
    const res = await mp.call('GET', '/management/audits?size=2000', { bearer: admin });
    expect(res.status).toBe(200);
    expect((res.body as Json[]).find((e) => e.timestamp === '2015-08-04T10:11:30.000Z' && e.principal === principal))
      .toEqual({ timestamp: '2015-08-04T10:11:30.000Z', principal, type: 'SAMPLE_TYPE', data: { remoteAddress: '127.0.0.1' } });
    // The admin's own token request is there (written in the background, read after it).
    expect(res.body).toContainEqual(expect.objectContaining({ principal: 'admin', type: 'GRANT_ACCESS_TOKEN', data: expect.objectContaining({ clientId: 'ManagementPortalapp', grantType: 'password' }) }));
    const total = Number(res.headers['x-total-count']);
    expect(res.body).toHaveLength(total);
    const first = await mp.call('GET', '/management/audits', { bearer: admin });
    expect(first.body).toHaveLength(Math.min(20, total));
    expect(first.headers.link).toContain('size=20');
  });

  it('selects the days fromDate to toDate, both included', async () => {
    const range = async (from: string, to: string) => {
      const res = await mp.call('GET', `/management/audits?fromDate=${from}&toDate=${to}&size=100`, { bearer: admin });
      expect(res.status).toBe(200);
      return res;
    };
    expect(ofSample((await range('2015-08-03', '2015-08-05')).body)).toEqual(['2015-08-04T10:11:30.000Z', '2015-08-05T00:00:00.000Z']);
    expect(ofSample((await range('2015-08-05', '2015-08-06')).body)).toEqual(['2015-08-05T00:00:00.000Z', '2015-08-06T23:59:59.500Z']);
    expect(ofSample((await range('2015-08-04', '2015-08-04')).body)).toEqual(['2015-08-04T10:11:30.000Z']);
    const none = await range('2015-08-02', '2015-08-03');
    expect(none.body).toEqual([]);
    expect(none.headers['x-total-count']).toBe('0');
    expect(ofSample((await mp.call('GET', '/management/audits?fromDate=2015-08-06&sort=timestamp,desc&size=2000', { bearer: admin })).body))
      .toEqual(['2015-08-07T00:00:00.000Z', '2015-08-06T23:59:59.500Z']);
  });

  it('answers 400 error.validation for a malformed date or sort', async () => {
    for (const query of ['fromDate=2015-13-01&toDate=2015-08-05', 'fromDate=yesterday', 'toDate=2015-08-05T00:00:00Z', 'sort=data,asc']) {
      const res = await mp.call('GET', `/management/audits?${query}`, { bearer: admin });
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toBe('error.validation');
    }
  });
});

describe('GET /management/audits/{id}', () => {
  it('answers one event, or 404', async () => {
    const res = await mp.call('GET', `/management/audits/${sample.id}`, { bearer: admin });
    expect(res).toMatchObject({ status: 200, body: { timestamp: '2015-08-04T10:11:30.000Z', principal, type: 'SAMPLE_TYPE', data: { remoteAddress: '127.0.0.1' } } });
    const unknown = await mp.call('GET', `/management/audits/${Number.MAX_SAFE_INTEGER}`, { bearer: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      message: 'Audit event not found with id', entityName: 'audit', errorCode: 'error.entityNotFound',
      params: { timestamp: expect.stringMatching(radarTimestamp), id: String(Number.MAX_SAFE_INTEGER) },
    });
    expect((await mp.call('GET', '/management/audits/abc', { bearer: admin })).status).toBe(400);
  });
});

describe('who may read audits', () => {
  it('the global AUDIT.READ permission: system admins and clients with the scope', async () => {
    const cc = await mp.clientCredentials(['AUDIT.READ'], admin);
    expect((await mp.call('GET', `/management/audits/${sample.id}`, { bearer: cc })).status).toBe(200);
    expect((await mp.call('GET', '/management/audits', { bearer: cc })).status).toBe(200);
    const project = unique('proj');
    await t.app.db.db.insert(projects).values({ projectName: project, description: 'd', location: 'l' });
    const pa = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project });
    const oa = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
    const ccOther = await mp.clientCredentials(['USER.READ', 'ROLE.READ'], admin);
    for (const token of [pa.token, oa.token, ccOther]) {
      for (const path of ['/management/audits', `/management/audits/${sample.id}`]) {
        const res = await mp.call('GET', path, { bearer: token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'error.accessDenied', description: expect.any(String), fieldErrors: null });
      }
    }
    expect((await mp.call('GET', '/management/audits')).status).toBe(401);
  });
});
