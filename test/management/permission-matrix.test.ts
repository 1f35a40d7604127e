/**
 * Who may and who may not, over HTTP, on the dev profile's demo data (managementportal.md §4, §9):
 * one row per endpoint, one column per principal. The expectations are written out from §4's role
 * table and the issue's fixes of §15 (6: admins read the global lists; 7: USER.* only within the
 * admin's projects), not computed by the oracle.
 *
 * Principals: `admin` (SYS_ADMIN), `oadmin` (ORGANIZATION_ADMIN of `main`), `padmin` (PROJECT_ADMIN
 * of `radar`), `padmin2` (PROJECT_ADMIN of `Radar-Pilot-01`, another project of `main`), `sub-1`
 * (PARTICIPANT of `radar`), a client-credentials token with every scope, and one with only
 * MEASUREMENT.READ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient, unique, type Method } from '../helpers/management-api.js';
import { PERMISSION_SCOPES } from '../../src/management/authz/permissions.js';
import { users } from '../../src/management/schema.js';

type Who = 'sys' | 'org' | 'padmin' | 'other' | 'participant' | 'client' | 'narrowClient';
const WHO: readonly Who[] = ['sys', 'org', 'padmin', 'other', 'participant', 'client', 'narrowClient'];

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
const tokens = {} as Record<Who, string>;

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mp = managementClient(t.app);
  await t.app.db.db.update(users).set({ passwordHash: await bcrypt.hash('Participant1', 4) }).where(eq(users.login, 'sub-1'));
  tokens.sys = await mp.tokenOf('admin', 'admin');
  tokens.org = await mp.tokenOf('oadmin', 'oadmin');
  tokens.padmin = await mp.tokenOf('padmin', 'padmin');
  tokens.other = await mp.tokenOf('padmin2', 'padmin');
  tokens.participant = await mp.tokenOf('sub-1', 'Participant1');
  tokens.client = await mp.clientCredentials(PERMISSION_SCOPES, tokens.sys);
  tokens.narrowClient = await mp.clientCredentials(['MEASUREMENT.READ'], tokens.sys);
});
afterAll(async () => { await t.close(); });

/** Allowed (any 2xx) or refused (403); one letter per principal in WHO order: `y` allowed, `n` 403. */
interface Row { method: Method; path: string; body?: () => unknown; expect: string }

const sourceTypeBody = () => ({ producer: unique('p'), model: 'M', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false });
const projectBody = () => ({ projectName: unique('proj'), description: 'd', location: 'l', organizationName: 'main' });
const subjectBody = () => ({ externalId: unique('ext'), project: { id: 1, projectName: 'radar' } });

//                                                                    sys org padmin other participant client narrowClient
const rows: Row[] = [
  { method: 'GET', path: '/api/organizations', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/organizations/main', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/projects', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/projects/radar', expect: 'yyynn' + 'yn' },
  { method: 'POST', path: '/api/projects', body: projectBody, expect: 'yynnn' + 'yn' },
  { method: 'GET', path: '/api/projects/radar/subjects', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/projects/radar/groups', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/projects/radar/roles', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/projects/radar/sources', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/subjects/sub-1', expect: 'yyyny' + 'yn' },
  { method: 'GET', path: '/api/subjects/sub-2', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/subjects/sub-1/sources', expect: 'yyyny' + 'yn' },
  { method: 'POST', path: '/api/subjects', body: subjectBody, expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/sources/source-1', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/source-types', expect: 'yyyyn' + 'yn' },
  { method: 'POST', path: '/api/source-types', body: sourceTypeBody, expect: 'ynnnn' + 'yn' },
  { method: 'GET', path: '/api/source-data', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/oauth-clients', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/oauth-clients/aRMT', expect: 'yyyyn' + 'yn' },
  { method: 'GET', path: '/api/users/padmin', expect: 'yyynn' + 'yn' },
  { method: 'GET', path: '/api/users/padmin2', expect: 'yynyn' + 'yn' },
  { method: 'GET', path: '/api/users/admin', expect: 'ynnnn' + 'yn' },
  { method: 'GET', path: '/api/authorities', expect: 'ynnnn' + 'yn' },
  { method: 'GET', path: '/management/audits', expect: 'ynnnn' + 'yn' },
];

describe('permission matrix over HTTP', () => {
  it.each(rows.map((row) => [`${row.method} ${row.path}`, row] as const))('%s', async (_name, row) => {
    const outcome: string[] = [];
    for (const who of WHO) {
      const res = await mp.call(row.method, row.path, { bearer: tokens[who], ...(row.body ? { body: row.body() } : {}) });
      if (res.status >= 200 && res.status < 300) outcome.push('y');
      else if (res.status === 403) outcome.push('n');
      else outcome.push(`?${res.status}`);
    }
    expect(Object.fromEntries(WHO.map((who, i) => [who, outcome[i]])))
      .toEqual(Object.fromEntries(WHO.map((who, i) => [who, row.expect[i]])));
  });

  it('lists show each principal only what it may see', async () => {
    const names = async (who: Who) => ((await mp.call('GET', '/api/projects', { bearer: tokens[who] })).body as { projectName: string }[])
      .map((p) => p.projectName);
    expect(await names('padmin')).toEqual(['radar']);
    expect(await names('other')).toEqual(['Radar-Pilot-01']);
    expect(await names('org')).toEqual(expect.arrayContaining(['radar', 'Radar-Pilot-01']));
  });

  it('without a token every endpoint above is 401', async () => {
    for (const row of rows) {
      const res = await mp.call(row.method, row.path, row.body ? { body: row.body() } : {});
      expect(res.status, `${row.method} ${row.path}`).toBe(401);
    }
  });
});
