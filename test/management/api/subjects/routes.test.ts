/**
 * `/api/subjects` over HTTP (managementportal.md §2.5, §14 SubjectResourceIntTest, §16): create,
 * update (also to another project), discontinue, delete, read one and revisions. Who may do what
 * (also participants on themselves and moves into a foreign project) is in
 * test/security/permission-matrix.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { anOrganization, mainOrganization, setPassword } from '../../../fixtures/management.js';
import {
  auditEvents, groups, projects, projectSourceTypes, roles, roleUsers, sources, sourceTypes, subjects, users,
} from '../../../../src/management/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
/** Project A in organization main (with groups and a source type), project B in another organization. */
let a: { id: number; projectName: string };
let b: { id: number; projectName: string };
let sourceType: { id: number; model: string };

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  const other = await anOrganization(db);
  a = (await db.insert(projects).values({ projectName: unique('radar'), description: 'RadarTest', location: 'London', projectStatus: 'PLANNING', organizationId: main.id }).returning())[0]!;
  b = (await db.insert(projects).values({ projectName: unique('pilot'), description: 'Pilot', location: 'Freiburg', organizationId: other.id }).returning())[0]!;
  await db.insert(groups).values([{ projectId: a.id, name: 'Test Group A' }, { projectId: a.id, name: 'Test Group B' }, { projectId: b.id, name: 'Test Group A' }]);
  sourceType = (await db.insert(sourceTypes).values({ producer: 'Empatica', model: unique('E4'), catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' }).returning())[0]!;
  await db.insert(projectSourceTypes).values({ projectId: a.id, sourceTypeId: sourceType.id });
});
afterAll(async () => { await t.close(); });

const ref = (p: { id: number; projectName: string }) => ({ id: p.id, projectName: p.projectName });
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const uuidLogin = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
const error = (status: number, errorCode: string, message: string, entityName = 'subject', params: Record<string, unknown> = {}) =>
  ({ status, body: { message, entityName, errorCode, params: { timestamp: expect.stringMatching(radarTimestamp), ...params } } });
const pick = (res: { status: number; body: Json }) => ({ status: res.status, body: res.body });
const create = (body: Json, bearer = admin) => mc.call('POST', '/api/subjects', { bearer, body });
const db = () => t.app.db.db;
async function userRow(login: string) {
  return (await db().select().from(users).where(eq(users.login, login)))[0];
}
async function authoritiesOf(login: string) {
  const rows = await db().select({ authority: roles.authorityName, projectId: roles.projectId }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId)).innerJoin(users, eq(users.id, roleUsers.userId)).where(eq(users.login, login));
  return rows.sort((x, y) => x.authority.localeCompare(y.authority));
}
async function aSource() {
  return (await db().insert(sources).values({ sourceName: unique('something'), sourceTypeId: sourceType.id, projectId: a.id }).returning())[0]!;
}

describe('POST /api/subjects', () => {
  it('creates a subject as §16 shows it: 201, Location, alert, reduced project, user activated without a password, participant role', async () => {
    const res = await create({
      externalId: unique('EXT_ID'), externalLink: 'https://crf/100', personName: 'Jane Doe', dateOfBirth: '1990-05-01',
      group: 'Test Group A', attributes: { 'Human-readable-identifier': 'P-001' }, project: ref(a), status: 'ACTIVATED',
      roles: [{ authorityName: 'ROLE_SYS_ADMIN' }], createdBy: 'someone else',
    });
    expect(res.status).toBe(201);
    const login = res.body.login as string;
    expect(res.headers.location).toBe(`/api/subjects/${login}`);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.subject.created');
    expect(res.headers['x-managementportalapp-params']).toBe(login);
    const roleId = (await db().select().from(roles).where(and(eq(roles.projectId, a.id), eq(roles.authorityName, 'ROLE_PARTICIPANT'))))[0]!.id;
    expect(res.body).toEqual({
      id: expect.any(Number), login: uuidLogin, externalLink: 'https://crf/100', externalId: expect.stringMatching(/^EXT_ID-/), status: 'ACTIVATED',
      createdBy: 'admin', createdDate: iso, lastModifiedBy: 'admin', lastModifiedDate: iso,
      project: {
        id: a.id, projectName: a.projectName, description: 'RadarTest', organizationName: 'main', location: 'London', projectStatus: 'PLANNING',
        attributes: {}, groups: [{ name: 'Test Group A' }, { name: 'Test Group B' }],
      },
      group: 'Test Group A', dateOfBirth: '1990-05-01', enrollmentDate: iso, personName: 'Jane Doe',
      roles: [{ id: roleId, projectId: a.id, projectName: a.projectName, authorityName: 'ROLE_PARTICIPANT' }],
      sources: [], attributes: { 'Human-readable-identifier': 'P-001' },
    });
    expect(res.body.enrollmentDate).toBe(res.body.createdDate);
    const user = await userRow(login);
    expect(user).toMatchObject({ activated: true, langKey: 'en', resetKey: null, resetDate: null, createdBy: 'admin' });
    // Participants sign in by pairing: no password is hashed or stored.
    expect(user!.passwordHash).toBeNull();
    // Only the participant role: roles in the body are ignored.
    expect(await authoritiesOf(login)).toEqual([{ authority: 'ROLE_PARTICIPANT', projectId: a.id }]);
  });

  it('takes a given login (lower-cased), the status by ordinal, an enrollment date, and assigns given sources', async () => {
    const source = await aSource();
    const login = unique('Sub').toUpperCase();
    const res = await create({ login, project: ref(a), status: 1, enrollmentDate: '2024-02-03T04:05:06+02:00', sources: [{ sourceId: source.sourceId }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ login: login.toLowerCase(), status: 'ACTIVATED', enrollmentDate: '2024-02-03T02:05:06.000Z', group: null });
    expect(res.body.sources).toEqual([expect.objectContaining({ sourceId: source.sourceId, assigned: true, sourceTypeId: sourceType.id })]);
    const [stored] = await db().select().from(sources).where(eq(sources.id, source.id));
    expect(stored).toMatchObject({ subjectId: res.body.id, assigned: true });
  });

  it('answers the reference\'s 400s, 404s and 409s and writes nothing', async () => {
    const externalId = unique('dup');
    expect((await create({ externalId, project: ref(a) })).status).toBe(201);
    const before = (await db().select().from(subjects)).length;
    expect(pick(await create({ externalLink: 'x' }))).toEqual(error(400, 'projectrequired', 'A subject should be assigned to a project'));
    expect(pick(await create({ project: { projectName: a.projectName } }))).toEqual(error(400, 'projectrequired', 'A subject should be assigned to a project'));
    expect(pick(await create({ id: 5, project: ref(a) }))).toEqual(error(400, 'idexists', 'A new subject cannot already have an ID'));
    expect(pick(await create({ externalId, project: ref(a) })))
      .toEqual(error(400, 'subjectExists', 'A subject with given project-id and external-id already exists', 'subject', { externalId, projectName: a.projectName }));
    expect(pick(await create({ group: 'No such group', project: ref(a) })))
      .toEqual(error(400, 'error.groupNotFound', `Group No such group not found in project ${a.projectName}`, 'subject', { group: 'No such group', projectName: a.projectName }));
    expect(pick(await create({ project: { id: 1, projectName: 'no-such-project' } })))
      .toEqual(error(404, 'error.projectNameNotFound', 'Project not found with projectName no-such-project', 'project', { projectName: 'no-such-project' }));
    expect(pick(await create({ project: ref(a), sources: [{ sourceId: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }] })))
      .toEqual(error(404, 'error.sourceNotFound', 'Source ID 3fa85f64-5717-4562-b3fc-2c963f66afa6 not found', 'source', { sourceId: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }));
    expect(pick(await create({ project: ref(a), login: 'admin' })))
      .toEqual(error(409, 'error.userexists', 'A user with this login already exists', 'subject', { login: 'admin' }));
    for (const [body, field] of [[{ dateOfBirth: '1990-13-01' }, 'dateOfBirth'], [{ enrollmentDate: 'yesterday' }, 'enrollmentDate'], [{ status: 'ALIVE' }, 'status'], [{ status: 7 }, 'status']] as const) {
      const res = await create({ project: ref(a), ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'subjectDTO', field, message: expect.any(String) }] });
    }
    const schema = await create({ project: ref(a), login: 'bad/login' });
    expect(schema.status).toBe(400);
    expect(schema.body.message).toBe('error.validation');
    expect((await db().select().from(subjects)).length).toBe(before);
  });
});

describe('GET /api/subjects/{login}', () => {
  it('returns the full project (organization, source types) and 404 for an unknown login', async () => {
    const created = await create({ project: ref(a), externalId: unique('E') });
    const res = await mc.call('GET', `/api/subjects/${created.body.login}`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created.body,
      project: {
        ...created.body.project,
        organization: { id: expect.any(Number), name: 'main', description: expect.any(String), location: expect.any(String), projects: [] },
        sourceTypes: [expect.objectContaining({ id: sourceType.id, model: sourceType.model })],
        persistentTokenTimeout: expect.any(Number),
      },
    });
    expect(pick(await mc.call('GET', `/api/subjects/${Number.MAX_SAFE_INTEGER}`, { bearer: admin })))
      .toEqual(error(404, 'error.subjectNotFound', 'Subject not found with login'));
  });
});

describe('PUT /api/subjects', () => {
  it('updates the fields and the status (by name), keeping the login', async () => {
    const created = await create({ project: ref(a), externalId: unique('A'), externalLink: 'AAAAAAAAAA', status: 'ACTIVATED' });
    const externalId = unique('B');
    const res = await mc.call('PUT', '/api/subjects', {
      bearer: admin, body: { ...created.body, login: 'ignored', externalId, externalLink: 'BBBBBBBBBB', status: 'DISCONTINUED', group: 'Test Group B' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.subject.updated');
    expect(res.body).toEqual({ ...created.body, externalId, externalLink: 'BBBBBBBBBB', status: 'DISCONTINUED', group: 'Test Group B', lastModifiedDate: iso });
    const [row] = await db().select().from(subjects).where(eq(subjects.id, created.body.id));
    expect(row).toMatchObject({ externalId, externalLink: 'BBBBBBBBBB', removed: true });
    expect((await userRow(created.body.login))!.activated).toBe(false);

    // Without a status the status stays; INVALID by ordinal 3.
    expect((await mc.call('PUT', '/api/subjects', { bearer: admin, body: { id: created.body.id, project: ref(a) } })).body.status).toBe('DISCONTINUED');
    expect((await mc.call('PUT', '/api/subjects', { bearer: admin, body: { id: created.body.id, project: ref(a), status: 3 } })).body.status).toBe('INVALID');
  });

  it('moves a subject to another project: old role becomes ROLE_INACTIVE_PARTICIPANT, group looked up in the new project', async () => {
    const created = await create({ project: ref(a), group: 'Test Group A' });
    const res = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...created.body, project: ref(b) } });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ id: b.id, projectName: b.projectName });
    expect(res.body.group).toBe('Test Group A');
    expect(await authoritiesOf(created.body.login)).toEqual([
      { authority: 'ROLE_INACTIVE_PARTICIPANT', projectId: a.id }, { authority: 'ROLE_PARTICIPANT', projectId: b.id },
    ]);
    expect(res.body.roles).toHaveLength(2);
    // And back: the inactive role of the former project is replaced.
    await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...res.body, project: ref(a), group: null } });
    expect(await authoritiesOf(created.body.login)).toEqual([
      { authority: 'ROLE_INACTIVE_PARTICIPANT', projectId: b.id }, { authority: 'ROLE_PARTICIPANT', projectId: a.id },
    ]);
  });

  it('without id creates (201); an unknown id is 404', async () => {
    const res = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { project: ref(a), externalLink: 'x' } });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/subjects/${res.body.login}`);
    expect(pick(await mc.call('PUT', '/api/subjects', { bearer: admin, body: { id: 987_654, project: ref(a) } })))
      .toEqual(error(404, 'error.subjectNotFound', 'Subject with ID 987654 not found.'));
  });
});

describe('PUT /api/subjects/discontinue', () => {
  it('releases the sources, marks the subject removed, deactivates the account (its refresh token stops working) and audits', async () => {
    const source = await aSource();
    const created = await create({ project: ref(a), sources: [{ sourceId: source.sourceId }] });
    const login = created.body.login as string;
    await setPassword(db(), login, 'Passw0rd!');
    const pair = await mc.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'Passw0rd!' });
    expect(pair.status).toBe(200);

    const res = await mc.call('PUT', '/api/subjects/discontinue', { bearer: admin, body: created.body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, status: 'DISCONTINUED', sources: [], lastModifiedDate: iso });
    const [stored] = await db().select().from(sources).where(eq(sources.id, source.id));
    expect(stored).toMatchObject({ subjectId: null, assigned: false, deleted: true });
    expect((await userRow(login))!.activated).toBe(false);
    const refreshed = await mc.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: pair.refresh_token });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);
    await vi.waitFor(async () => {
      const events = await db().select().from(auditEvents).where(eq(auditEvents.eventType, 'SUBJECT_DISCONTINUE'));
      expect(events.filter((e) => e.data.subject_login === login)).toEqual([expect.objectContaining({ principal: 'admin', data: { subject_login: login } })]);
    });

    expect(pick(await mc.call('PUT', '/api/subjects/discontinue', { bearer: admin, body: { project: ref(a) } })))
      .toEqual(error(400, 'subjectNotAvailable', 'No subject found'));
  });
});

describe('DELETE /api/subjects/{login} and the revisions', () => {
  it('records every change; deletes the subject and its account; its history stays readable', async () => {
    const source = await aSource();
    const created = await create({ project: ref(a), externalLink: 'v1', sources: [{ sourceId: source.sourceId }] });
    const login = created.body.login as string;
    const updated = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...created.body, externalLink: 'v2' } });
    const current = (await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).body;

    const list = await mc.call('GET', `/api/subjects/${login}/revisions`, { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body).toEqual([
      { id: expect.any(Number), timestamp: iso, author: 'admin', revisionType: 'ADD', entity: { ...current, externalLink: 'v1', lastModifiedDate: created.body.lastModifiedDate } },
      { id: expect.any(Number), timestamp: iso, author: 'admin', revisionType: 'MOD', entity: current },
    ]);
    const [first, second] = list.body as Json[];
    expect((await mc.call('GET', `/api/subjects/${login}/revisions?sort=id,desc&size=1`, { bearer: admin })).body).toEqual([second]);
    expect(updated.body.externalLink).toBe('v2');

    const del = await mc.call('DELETE', `/api/subjects/${login}`, { bearer: admin });
    expect(del.status).toBe(200);
    expect(del.headers['x-managementportalapp-alert']).toBe('managementPortalApp.subject.deleted');
    expect(del.headers['x-managementportalapp-params']).toBe(login);
    expect((await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).status).toBe(404);
    expect(await userRow(login)).toBeUndefined();
    expect((await db().select().from(sources).where(eq(sources.id, source.id)))[0]).toMatchObject({ subjectId: null, assigned: false, deleted: true });
    expect(pick(await mc.call('DELETE', `/api/subjects/${login}`, { bearer: admin })))
      .toEqual(error(404, 'error.subjectNotFound', 'Subject not found with login'));

    // The subject as it was at each revision, also after its deletion; before it existed, or deleted: 404.
    expect(pick(await mc.call('GET', `/api/subjects/${login}/revisions/${first.id}`, { bearer: admin }))).toEqual({ status: 200, body: first.entity });
    expect((await mc.call('GET', `/api/subjects/${login}/revisions/${second.id}`, { bearer: admin })).body).toEqual(second.entity);
    expect(pick(await mc.call('GET', `/api/subjects/${login}/revisions/${first.id - 1}`, { bearer: admin })))
      .toEqual(error(404, 'error.subjectNotFound', 'subject not found for given login and revision.', 'subject', { subjectLogin: login }));
    expect((await mc.call('GET', `/api/subjects/${login}/revisions/${second.id + 1000}`, { bearer: admin })).status).toBe(404);
    expect((await mc.call('GET', `/api/subjects/never-existed/revisions/1`, { bearer: admin })).status).toBe(404);
  });
});

describe('GET /api/projects/{projectName}/subjects', () => {
  // Who may list subjects is in test/security/permission-matrix.test.ts.
  it('404 error.projectNameNotFound for an unknown project', async () => {
    expect(pick(await mc.call('GET', '/api/projects/no-such-project/subjects', { bearer: admin })))
      .toEqual(error(404, 'error.projectNameNotFound', 'Project not found with projectName no-such-project', 'project', { projectName: 'no-such-project' }));
  });
});
