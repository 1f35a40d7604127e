/**
 * Who may and who may not, over HTTP, on the dev profile's demo data (managementportal.md §4, §9):
 * one row per endpoint, one column per principal. The expectations are written out from §4's role
 * table and the issue's fixes of §15 (6: admins read the global lists; 7: USER.* only within the
 * admin's projects), not computed by the oracle.
 *
 * Principals: `admin` (SYS_ADMIN), `oadmin` (ORGANIZATION_ADMIN of `main`), `padmin` (PROJECT_ADMIN
 * of `radar`), `padmin2` (PROJECT_ADMIN of `Radar-Pilot-01`, another project of `main`), the
 * PROJECT_ADMIN of a project in another organization, `sub-1` (PARTICIPANT of `radar`), and
 * client-credentials tokens with every scope, with every READ scope, and with only MEASUREMENT.READ.
 *
 * The resource files (api/<resource>/routes.test.ts) test what a permitted call does; who may call
 * is here, so each endpoint × principal is written once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type ApiResponse, type Json, type Method } from '../../helpers/management-api.js';
import { anOrganization, aProjectIn, setPassword } from '../../fixtures/management.js';
import { PERMISSION_SCOPES } from '../../../src/management/authz/permissions.js';

type Who = 'sys' | 'org' | 'padmin' | 'other' | 'foreign' | 'participant' | 'client' | 'readClient' | 'narrowClient';
const WHO: readonly Who[] = ['sys', 'org', 'padmin', 'other', 'foreign', 'participant', 'client', 'readClient', 'narrowClient'];

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
const tokens = {} as Record<Who, string>;
/** The demo project `radar` and the demo source type Empatica E4 (linked to `radar`). */
let radar: { id: number; projectName: string };
let e4: Json;
/** A project of another organization, with its own subject and source. */
let foreign: { id: number; projectName: string };
let foreignSubject: Json;
let foreignSubjectRevision: number;
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
  await setPassword(db, 'sub-1', 'Participant1');
  tokens.sys = await mp.tokenOf('admin', 'admin');
  tokens.org = await mp.tokenOf('oadmin', 'oadmin');
  tokens.padmin = await mp.tokenOf('padmin', 'padmin');
  tokens.other = await mp.tokenOf('padmin2', 'padmin');
  tokens.participant = await mp.tokenOf('sub-1', 'Participant1');
  tokens.client = await mp.clientCredentials(PERMISSION_SCOPES, tokens.sys);
  tokens.readClient = await mp.clientCredentials(PERMISSION_SCOPES.filter((scope) => scope.endsWith('.READ')), tokens.sys);
  tokens.narrowClient = await mp.clientCredentials(['MEASUREMENT.READ'], tokens.sys);
  radar = ok(await asSys('GET', '/api/projects/radar'));
  e4 = ok(await asSys('GET', '/api/source-types/Empatica/E4/v1'));
  foreign = await aProjectIn(db, await anOrganization(db), [e4.id]);
  tokens.foreign = (await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: foreign.projectName })).token;
  foreignSubject = await mp.subjectIn(foreign, tokens.sys);
  foreignSubjectRevision = (ok(await asSys('GET', `/api/subjects/${foreignSubject.login}/revisions`)) as Json[])[0].id;
  foreignSource = ok(await asSys('POST', '/api/sources', { sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, project: { id: foreign.id } }));
});
afterAll(async () => { await t.close(); });

/** What a principal got: `y` any 2xx, `n` 403, `x` 404; `-` in an expectation: not asked. */
const letter = (status: number) => status >= 200 && status < 300 ? 'y' : status === 403 ? 'n' : status === 404 ? 'x' : `?${status}`;

/**
 * One endpoint, one letter per principal in WHO order. `fresh` makes a new target for each
 * principal (writes would otherwise change what the next one meets); `after` checks what a call
 * did, or that a refused one changed nothing.
 */
interface Row<F = Json> {
  name?: string;
  method: Method;
  path: string | ((fresh: F) => string);
  body?: (fresh: F) => unknown;
  fresh?: () => Promise<F>;
  after?: (fresh: F, res: ApiResponse) => Promise<void>;
  expect: string;
}

const sourceTypeBody = () => ({ producer: unique('p'), model: 'M', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false });
const projectBody = () => ({ projectName: unique('proj'), description: 'd', location: 'l', organizationName: 'main' });
const subjectBody = () => ({ externalId: unique('ext'), project: { id: 1, projectName: 'radar' } });
const sourceDataBody = () => ({ sourceDataType: 'ACCELEROMETER', sourceDataName: unique('data'), processingState: 'RAW' });
const sourceBody = (project?: unknown) => ({ sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, ...(project ? { project } : {}) });
const ref = (p: { id: number; projectName: string }) => ({ id: p.id, projectName: p.projectName });
const typePath = (type: Json) => `/api/source-types/${encodeURIComponent(type.producer)}/${encodeURIComponent(type.model)}/${encodeURIComponent(type.catalogVersion)}`;

const freshSourceData = async () => ok(await asSys('POST', '/api/source-data', sourceDataBody()));
const freshSourceType = async () => ok(await asSys('POST', '/api/source-types', sourceTypeBody()));
const freshSource = async () => ok(await asSys('POST', '/api/sources', sourceBody({ id: radar.id })));
const freshSubject = async () => mp.subjectIn(radar, tokens.sys);
const freshForeignSubject = async () => mp.subjectIn(foreign, tokens.sys);
/** After a refused call the entity is still there; after a permitted delete it is gone. */
const keptUnlessDeleted = (path: (fresh: Json) => string) => async (fresh: Json, res: ApiResponse) => {
  expect((await asSys('GET', path(fresh))).status).toBe(res.status === 403 ? 200 : 404);
};
/** A refused subject update changed nothing: the subject is in its project and not removed. */
const subjectUnchanged = async (fresh: Json, res: ApiResponse) => {
  if (res.status !== 403) return;
  expect(ok(await asSys('GET', `/api/subjects/${fresh.login}`))).toMatchObject({ status: fresh.status, project: { projectName: fresh.project.projectName } });
};
/** A refused source update changed nothing: the source is still in `radar`, assigned to nobody. */
const sourceUnchanged = async (fresh: Json, res: ApiResponse) => {
  const stored = ok(await asSys('GET', `/api/sources/${fresh.sourceName}`));
  if (res.status === 403) expect(stored).toMatchObject({ project: { projectName: 'radar' }, subjectLogin: null, attributes: {} });
};

//                                                                    sys org padmin other foreign participant | client readClient narrowClient
const rows: Row[] = [
  { method: 'GET', path: '/api/organizations', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/organizations/main', expect: 'yyyynn' + 'yyn' },
  { method: 'GET', path: '/api/projects', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/projects/radar', expect: 'yyynnn' + 'yyn' },
  { method: 'POST', path: '/api/projects', body: projectBody, expect: 'yynnnn' + 'ynn' },
  { method: 'GET', path: '/api/projects/radar/subjects', expect: 'yyynnn' + 'yyn' },
  { method: 'GET', path: '/api/projects/radar/groups', expect: 'yyynnn' + 'yyn' },
  { method: 'GET', path: '/api/projects/radar/roles', expect: 'yyynnn' + 'yyn' },
  { method: 'GET', path: '/api/projects/radar/sources', expect: 'yyynnn' + 'yyn' },

  // subjects
  { method: 'GET', path: '/api/subjects', expect: 'ynnnnn' + 'yyn' },
  { name: 'GET /api/subjects?projectName=radar', method: 'GET', path: '/api/subjects?projectName=radar', expect: 'yyynnn' + 'yyn' },
  { name: 'GET /api/subjects?projectName=<foreign>', method: 'GET', path: () => `/api/subjects?projectName=${foreign.projectName}`, expect: 'ynnnyn' + 'yyn' },
  { name: 'GET /api/projects/<foreign>/subjects', method: 'GET', path: () => `/api/projects/${foreign.projectName}/subjects`, expect: 'ynnnyn' + 'yyn' },
  { method: 'GET', path: '/api/subjects/sub-1', expect: 'yyynny' + 'yyn' },
  { method: 'GET', path: '/api/subjects/sub-2', expect: 'yyynnn' + 'yyn' },
  { name: 'GET /api/subjects/<foreign subject>', method: 'GET', path: () => `/api/subjects/${foreignSubject.login}`, expect: 'ynnnyn' + 'yyn' },
  { method: 'GET', path: '/api/subjects/sub-1/sources', expect: 'yyynny' + 'yyn' },
  { method: 'GET', path: '/api/subjects/sub-1/revisions', expect: 'yyynny' + 'yyn' },
  { name: 'GET /api/subjects/<foreign subject>/revisions/<id>', method: 'GET', path: () => `/api/subjects/${foreignSubject.login}/revisions/${foreignSubjectRevision}`, expect: 'ynnnyn' + 'yyn' },
  { method: 'POST', path: '/api/subjects', body: subjectBody, expect: 'yyynnn' + 'ynn' },
  { name: 'POST /api/subjects (into <foreign>)', method: 'POST', path: '/api/subjects', body: () => ({ project: ref(foreign) }), expect: 'ynnnyn' + 'ynn' },
  { name: 'PUT /api/subjects (own fields)', method: 'PUT', path: '/api/subjects', fresh: async () => ok(await asSys('GET', '/api/subjects/sub-1')), body: (s) => ({ ...s, personName: 'Me' }), expect: 'yyynny' + 'ynn' },
  { name: 'PUT /api/subjects (radar subject into <foreign>)', method: 'PUT', path: '/api/subjects', fresh: freshSubject, body: (s) => ({ ...s, project: ref(foreign) }), after: subjectUnchanged, expect: 'ynnnnn' + 'ynn' },
  { name: 'PUT /api/subjects (<foreign> subject into radar)', method: 'PUT', path: '/api/subjects', fresh: freshForeignSubject, body: (s) => ({ ...s, project: ref(radar) }), after: subjectUnchanged, expect: 'ynnnnn' + 'ynn' },
  { method: 'PUT', path: '/api/subjects/discontinue', fresh: freshSubject, body: (s) => s, after: subjectUnchanged, expect: 'yyynnn' + 'ynn' },
  { name: 'DELETE /api/subjects/<radar subject>', method: 'DELETE', path: (s) => `/api/subjects/${s.login}`, fresh: freshSubject, after: keptUnlessDeleted((s) => `/api/subjects/${s.login}`), expect: 'yyynnn' + 'ynn' },
  { name: 'DELETE /api/subjects/sub-1 (itself)', method: 'DELETE', path: '/api/subjects/sub-1', expect: '-----n' + '---' },

  // sources
  { method: 'GET', path: '/api/sources', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/sources/source-1', expect: 'yyynnn' + 'yyn' },
  { name: 'GET /api/sources/<foreign source>', method: 'GET', path: () => `/api/sources/${foreignSource.sourceName}`, expect: 'ynnnyn' + 'yyn' },
  { name: 'GET /api/projects/<foreign>/sources', method: 'GET', path: () => `/api/projects/${foreign.projectName}/sources`, expect: 'ynnnyn' + 'yyn' },
  { method: 'GET', path: '/api/projects/no-such-project/sources', expect: 'xnnnnn' + 'xxn' },
  { name: 'POST /api/sources (radar by id)', method: 'POST', path: '/api/sources', body: () => sourceBody({ id: radar.id }), expect: 'yyynnn' + 'ynn' },
  { name: 'POST /api/sources (radar by name)', method: 'POST', path: '/api/sources', body: () => sourceBody({ projectName: 'radar' }), expect: 'yyynnn' + 'ynn' },
  { name: 'POST /api/sources (<foreign>)', method: 'POST', path: '/api/sources', body: () => sourceBody({ id: foreign.id }), expect: 'ynnnyn' + 'ynn' },
  { name: 'POST /api/sources (no project)', method: 'POST', path: '/api/sources', body: () => sourceBody(), expect: 'ynnnnn' + 'ynn' },
  { name: 'POST /api/sources (unknown project)', method: 'POST', path: '/api/sources', body: () => sourceBody({ projectName: 'no-such-project' }), expect: '-nnnnn' + '-nn' },
  {
    name: 'PUT /api/sources (in radar)', method: 'PUT', path: '/api/sources', fresh: freshSource,
    body: (s) => ({ id: s.id, sourceName: s.sourceName, assigned: false, sourceType: { id: e4.id }, project: { id: radar.id }, attributes: { by: 'matrix' } }),
    after: async (s, res) => { if (res.status === 200) expect(res.body.attributes).toEqual({ by: 'matrix' }); await sourceUnchanged(s, res); },
    expect: 'yyynnn' + 'ynn',
  },
  {
    name: 'PUT /api/sources (radar source into <foreign>)', method: 'PUT', path: '/api/sources', fresh: freshSource,
    body: (s) => ({ id: s.id, sourceName: s.sourceName, assigned: false, sourceType: { id: e4.id }, project: { id: foreign.id } }),
    after: sourceUnchanged, expect: 'ynnnnn' + 'ynn',
  },
  {
    name: 'PUT /api/sources (radar source to a <foreign> subject)', method: 'PUT', path: '/api/sources', fresh: freshSource,
    body: (s) => ({ id: s.id, sourceName: s.sourceName, assigned: false, sourceType: { id: e4.id }, project: { id: radar.id }, subjectLogin: foreignSubject.login }),
    after: sourceUnchanged, expect: '-nnnnn' + '-nn',
  },
  { name: 'DELETE /api/sources/<radar source>', method: 'DELETE', path: (s) => `/api/sources/${s.sourceName}`, fresh: freshSource, after: keptUnlessDeleted((s) => `/api/sources/${s.sourceName}`), expect: 'yyynnn' + 'ynn' },

  // source types and source data: global
  { method: 'GET', path: '/api/source-types', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/source-types/Empatica', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/source-types/Empatica/E4/v1', expect: 'yyyyyn' + 'yyn' },
  { method: 'POST', path: '/api/source-types', body: sourceTypeBody, expect: 'ynnnnn' + 'ynn' },
  { method: 'PUT', path: '/api/source-types', fresh: freshSourceType, body: (type) => type, expect: 'ynnnnn' + 'ynn' },
  { name: 'DELETE /api/source-types/<type>', method: 'DELETE', path: typePath, fresh: freshSourceType, after: keptUnlessDeleted(typePath), expect: 'ynnnnn' + 'ynn' },
  { method: 'GET', path: '/api/source-data', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/source-data/EMPATICA_E4_v1_ACCELEROMETER', expect: 'yyyyyn' + 'yyn' },
  { method: 'POST', path: '/api/source-data', body: sourceDataBody, expect: 'ynnnnn' + 'ynn' },
  { method: 'PUT', path: '/api/source-data', fresh: freshSourceData, body: (data) => data, expect: 'ynnnnn' + 'ynn' },
  {
    name: 'DELETE /api/source-data/<data>', method: 'DELETE', path: (data) => `/api/source-data/${data.sourceDataName}`, fresh: freshSourceData,
    after: keptUnlessDeleted((data) => `/api/source-data/${data.sourceDataName}`), expect: 'ynnnnn' + 'ynn',
  },

  { method: 'GET', path: '/api/oauth-clients', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/oauth-clients/aRMT', expect: 'yyyyyn' + 'yyn' },
  { method: 'GET', path: '/api/users/padmin', expect: 'yyynnn' + 'yyn' },
  { method: 'GET', path: '/api/users/padmin2', expect: 'yynynn' + 'yyn' },
  { method: 'GET', path: '/api/users/admin', expect: 'ynnnnn' + 'yyn' },
  { method: 'GET', path: '/api/authorities', expect: 'ynnnnn' + 'yyn' },
  { method: 'GET', path: '/management/audits', expect: 'ynnnnn' + 'yyn' },
];

const accessDenied = { message: 'error.accessDenied', description: expect.any(String), fieldErrors: null };
const nameOf = (row: Row) => row.name ?? `${row.method} ${row.path as string}`;

/** Calls a row as `bearer` (or without a token) on a fresh target when the row asks for one. */
async function callRow(row: Row, bearer?: string) {
  const fresh = row.fresh ? await row.fresh() : undefined;
  const path = typeof row.path === 'function' ? row.path(fresh) : row.path;
  const res = await mp.call(row.method, path, { ...(bearer ? { bearer } : {}), ...(row.body ? { body: row.body(fresh) } : {}) });
  return { fresh, res };
}

describe('permission matrix over HTTP', () => {
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

  it.each(rows.map((row) => [nameOf(row), row] as const))('%s', async (_name, row) => {
    const outcome: string[] = [];
    for (const [i, who] of WHO.entries()) {
      if (row.expect[i] === '-') { outcome.push('-'); continue; }
      const { fresh, res } = await callRow(row, tokens[who]);
      outcome.push(letter(res.status));
      if (res.status === 403) expect(res.body, `${who}: the 403 body`).toEqual(accessDenied);
      await row.after?.(fresh, res);
    }
    expect(Object.fromEntries(WHO.map((who, i) => [who, outcome[i]])))
      .toEqual(Object.fromEntries(WHO.map((who, i) => [who, row.expect[i]])));
  });

  it('another participant of radar (sub-2) is refused every call sub-1 may make on itself', async () => {
    await setPassword(t.app.db.db, 'sub-2', 'Participant2');
    const sub2 = await mp.tokenOf('sub-2', 'Participant2');
    const own = rows.filter((row) => row.expect[WHO.indexOf('participant')] === 'y');
    expect(own.length).toBeGreaterThan(3);
    for (const row of own) {
      const { fresh, res } = await callRow(row, sub2);
      expect(res.status, nameOf(row)).toBe(403);
      await row.after?.(fresh, res);
    }
  });

  it('a refusal names the permission it lacked', async () => {
    const res = await mp.call('GET', `/api/subjects/${foreignSubject.login}`, { bearer: tokens.padmin });
    expect(res.body).toEqual({ ...accessDenied, description: expect.stringContaining('SUBJECT') });
  });

  it('without a token every endpoint above is 401', async () => {
    for (const row of rows) {
      const { res } = await callRow(row);
      expect(res.status, nameOf(row)).toBe(401);
    }
  });
});
