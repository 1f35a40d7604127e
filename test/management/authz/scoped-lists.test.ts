/**
 * What the management API's lists show each principal, and what a refusal says, on the dev
 * profile's demo data (managementportal.md §4, §9; the fixes of §15: 6, admins read the
 * global lists; 7, USER.* only within the admin's projects).
 *
 * Principals: `admin` (SYS_ADMIN), `oadmin` (ORGANIZATION_ADMIN of `main`), `padmin` (PROJECT_ADMIN
 * of `radar`), `padmin2` (PROJECT_ADMIN of `Radar-Pilot-01`, another project of `main`), the
 * PROJECT_ADMIN of a project in another organization, and client-credentials tokens with every
 * scope and with every READ scope.
 *
 * Which principal may call which endpoint is stated once, for both domains, in
 * test/security/permission-matrix.test.ts; the resource files (api/<resource>/routes.test.ts)
 * test what a permitted call does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type ApiResponse, type Json, type Method } from '../../helpers/management-api.js';
import { anOrganization, aProjectIn } from '../../fixtures/management.js';
import { PERMISSION_SCOPES } from '../../../src/management/authz/permissions.js';

type Who = 'sys' | 'org' | 'padmin' | 'other' | 'foreign' | 'client' | 'readClient';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
const tokens = {} as Record<Who, string>;
/** The demo source type Empatica E4. */
let e4: Json;
/** A project of another organization, with its own subject and source. */
let foreign: { id: number; projectName: string };
let foreignSubject: Json;
let foreignSource: Json;

const ok = (res: ApiResponse) => {
  if (res.status < 200 || res.status >= 300) throw new Error(`setup: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const asSys = (method: Method, path: string, body?: unknown) => mp.call(method, path, { bearer: tokens.sys, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mp = managementClient(t.app);
  const db = t.app.db.db;
  tokens.sys = await mp.tokenOf('admin', 'admin');
  tokens.org = await mp.tokenOf('oadmin', 'oadmin');
  tokens.padmin = await mp.tokenOf('padmin', 'padmin');
  tokens.other = await mp.tokenOf('padmin2', 'padmin');
  tokens.client = await mp.clientCredentials(PERMISSION_SCOPES, tokens.sys);
  tokens.readClient = await mp.clientCredentials(PERMISSION_SCOPES.filter((scope) => scope.endsWith('.READ')), tokens.sys);
  e4 = ok(await asSys('GET', '/api/source-types/Empatica/E4/v1'));
  foreign = await aProjectIn(db, await anOrganization(db), [e4.id]);
  tokens.foreign = (await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: foreign.projectName })).token;
  foreignSubject = await mp.subjectIn(foreign, tokens.sys);
  foreignSource = ok(await asSys('POST', '/api/sources', { sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, project: { id: foreign.id } }));
});
afterAll(async () => { await t.close(); });

const accessDenied = { message: 'error.accessDenied', description: expect.any(String), fieldErrors: null };

describe('lists and refusals over HTTP', () => {
  it('lists show each principal only what it may see', async () => {
    const names = async (who: Who) => ((await mp.call('GET', '/api/projects', { bearer: tokens[who] })).body as { projectName: string }[])
      .map((p) => p.projectName);
    expect(await names('padmin')).toEqual(['radar']);
    expect(await names('other')).toEqual(['Radar-Pilot-01']);
    expect(await names('org')).toEqual(expect.arrayContaining(['radar', 'Radar-Pilot-01']));
    expect(await names('org')).not.toContain(foreign.projectName);
    expect(await names('foreign')).toEqual([foreign.projectName]);
  });

  it('GET /api/sources lists the sources of the projects the caller may see', async () => {
    const all = await mp.call('GET', '/api/sources', { bearer: tokens.sys });
    expect(Number(all.headers['x-total-count'])).toBe(all.body.length);
    const seenBy = async (who: Who) => ((await mp.call('GET', '/api/sources?size=2000', { bearer: tokens[who] })).body as Json[]);
    const names = async (who: Who) => (await seenBy(who)).map((s) => s.sourceName);
    for (const who of ['sys', 'client', 'readClient'] as const) expect(await names(who)).toEqual(expect.arrayContaining(['source-1', foreignSource.sourceName]));
    for (const who of ['padmin', 'org'] as const) {
      expect(await names(who)).toContain('source-1');
      expect(await names(who)).not.toContain(foreignSource.sourceName);
    }
    expect((await seenBy('padmin')).every((s) => s.project?.projectName === 'radar')).toBe(true);
    expect(await names('other')).not.toContain('source-1');
    expect(await names('foreign')).toEqual([foreignSource.sourceName]);
  });

  it('a refusal names the permission it lacked', async () => {
    const res = await mp.call('GET', `/api/subjects/${foreignSubject.login}`, { bearer: tokens.padmin });
    expect(res.body).toEqual({ ...accessDenied, description: expect.stringContaining('SUBJECT') });
  });
});
