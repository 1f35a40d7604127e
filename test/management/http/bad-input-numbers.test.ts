/**
 * Issue 17 item 13: numbers out of range used to answer 500. Where an id, a page or a size is
 * expected, anything but a safe integer is a 400 `error.validation` naming the field: `1e309` and
 * `Infinity` in a query or path (AJV coerces them to Infinity and skips its range checks), `1e308`
 * anywhere (beyond `bigint`), and `1e309` in a JSON body (Infinity once parsed). Nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type ApiResponse } from '../../helpers/management-api.js';
import { aParticipant, aProject } from '../../fixtures/management.js';
import { organizations, projects, projectSourceTypes, sources, sourceTypes, subjects, users } from '../../../src/management/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };
const seen: ApiResponse[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  project = await aProject(t.app.db.db);
});
afterAll(async () => {
  // None of the requests in this file may end in a server error.
  expect(seen.filter((r) => r.status >= 500).map((r) => r.body)).toEqual([]);
  await t.close();
});

const db = () => t.app.db.db;
async function api(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown) {
  const res = await mc.call(method, path, { bearer: admin, body });
  seen.push(res);
  return res;
}
/** A JSON body as text, so that `1e309` reaches the server as written. */
async function rawCall(method: 'POST' | 'PUT' | 'PATCH', path: string, json: string): Promise<ApiResponse> {
  const res = await mc.call(method, path, { bearer: admin, body: json, headers: { 'content-type': 'application/json' } });
  seen.push(res);
  return res;
}

/** 400 `error.validation` whose one field error names `field` in `objectName`. */
function expectRefused(res: ApiResponse, objectName: string, field: string) {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 400,
    body: { message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName, field, message: expect.stringMatching(/^(maximum|minimum|type|Range): /) }] },
  });
}

describe('page, size and ids in the query string', () => {
  it.each([
    ['/api/subjects', 'page'], ['/api/subjects', 'size'], ['/api/subjects', 'groupId'], ['/api/subjects', 'last.id'],
    ['/api/projects', 'page'], ['/api/projects', 'size'],
    ['/api/users', 'page'], ['/api/sources', 'page'], ['/api/source-types', 'page'], ['/api/organizations', 'page'],
    ['/api/revisions', 'page'], ['/management/audits', 'page'],
  ])('GET %s?%s=<out of range> answers 400', async (path, field) => {
    for (const value of ['1e309', 'Infinity', '-Infinity', '1e308', '-1e308', '9007199254740993']) {
      const res = await api('GET', `${path}?${field}=${value}`);
      expectRefused(res, 'querystring', field);
    }
  });

  it('the subjects of a project and its sources', async () => {
    expectRefused(await api('GET', `/api/projects/${project.projectName}/subjects?groupId=Infinity`), 'querystring', 'groupId');
    expectRefused(await api('GET', `/api/projects/${project.projectName}/subjects?page=1e309`), 'querystring', 'page');
    expectRefused(await api('GET', `/api/projects/${project.projectName}/sources?page=1e309`), 'querystring', 'page');
  });
});

describe('ids in the path', () => {
  it.each(['/api/revisions', '/management/audits'])('GET %s/<out of range> answers 400', async (path) => {
    for (const value of ['1e309', 'Infinity', '1e308', '9007199254740993']) expectRefused(await api('GET', `${path}/${value}`), 'params', 'id');
  });

  it('a subject\'s revision number', async () => {
    const { login } = await aParticipant(db(), { project });
    for (const value of ['1e309', 'Infinity', '1e308']) expectRefused(await api('GET', `/api/subjects/${login}/revisions/${value}`), 'params', 'revisionNb');
  });
});

describe('ids in JSON bodies', () => {
  it('an organization with an id beyond a safe integer is not written', async () => {
    const name = unique('org');
    for (const id of ['1e308', '1e309', '-1e308', '9007199254740993']) {
      for (const method of ['POST', 'PUT'] as const) {
        expectRefused(await rawCall(method, '/api/organizations', `{"id":${id},"name":"${name}","description":"d","location":"l"}`), 'body', 'id');
      }
    }
    expect(await db().select().from(organizations).where(eq(organizations.name, name))).toEqual([]);
  });

  it('a project with a source type id beyond a safe integer is not written', async () => {
    const name = unique('proj');
    const body = (id: string) => `{"projectName":"${name}","description":"d","location":"l","organizationName":"main","sourceTypes":[{"id":${id}}]}`;
    for (const id of ['1e308', '1e309']) expectRefused(await rawCall('POST', '/api/projects', body(id)), 'body', 'sourceTypes.0.id');
    expect(await db().select().from(projects).where(eq(projects.projectName, name))).toEqual([]);
    // An update of an existing project changes nothing either.
    const before = await db().select().from(projectSourceTypes).where(eq(projectSourceTypes.projectId, project.id));
    const update = `{"id":${project.id},"projectName":"${project.projectName}","description":"changed","location":"l","organizationName":"main","sourceTypes":[{"id":1e308}]}`;
    expectRefused(await rawCall('PUT', '/api/projects', update), 'body', 'sourceTypes.0.id');
    expect((await db().select().from(projects).where(eq(projects.id, project.id)))[0]!.description).not.toBe('changed');
    expect(await db().select().from(projectSourceTypes).where(eq(projectSourceTypes.projectId, project.id))).toEqual(before);
  });

  it('a project id beyond a safe integer', async () => {
    expectRefused(await rawCall('PUT', '/api/projects', `{"id":1e308,"projectName":"${project.projectName}","description":"d","location":"l"}`), 'body', 'id');
  });

  it('discontinuing a subject by an id beyond a safe integer changes nothing', async () => {
    const { login, user } = await aParticipant(db(), { project });
    const ref = `{"id":${project.id},"projectName":"${project.projectName}"}`;
    for (const id of ['1e308', '1e309']) {
      expectRefused(await rawCall('PUT', '/api/subjects/discontinue', `{"id":${id},"login":"${login}","project":${ref}}`), 'body', 'id');
      expectRefused(await rawCall('PUT', '/api/subjects/discontinue', `{"login":"${login}","project":{"id":${id},"projectName":"${project.projectName}"}}`), 'body', 'project.id');
      expectRefused(await rawCall('PUT', '/api/subjects', `{"id":${id},"login":"${login}","project":${ref},"externalId":"changed"}`), 'body', 'id');
    }
    expect((await db().select().from(users).where(eq(users.id, user.id)))[0]!.activated).toBe(true);
    expect((await db().select().from(subjects).where(eq(subjects.userId, user.id)))[0]!.externalId).not.toBe('changed');
  });

  it('a source with ids beyond a safe integer is not written', async () => {
    const [type] = await db().insert(sourceTypes).values({ producer: 'RADAR', model: unique('m'), catalogVersion: '1', sourceTypeScope: 'ACTIVE' }).returning();
    const name = unique('source');
    const project_ = `{"id":${project.id},"projectName":"${project.projectName}"}`;
    for (const id of ['1e308', '1e309']) {
      expectRefused(await rawCall('POST', '/api/sources', `{"sourceName":"${name}","sourceType":{"id":${id}},"project":${project_}}`), 'body', 'sourceType.id');
      expectRefused(await rawCall('PUT', '/api/sources', `{"id":${id},"sourceName":"${name}","sourceType":{"id":${type!.id}},"project":${project_}}`), 'body', 'id');
    }
    expect(await db().select().from(sources).where(eq(sources.sourceName, name))).toEqual([]);
  });

  it('a subject\'s source registration with a source type id beyond a safe integer', async () => {
    const { login } = await aParticipant(db(), { project });
    for (const id of ['1e308', '1e309']) {
      expectRefused(await rawCall('POST', `/api/subjects/${login}/sources`, `{"sourceTypeId":${id}}`), 'body', 'sourceTypeId');
    }
  });

  it('group ids', async () => {
    const groups = `/api/projects/${project.projectName}/groups`;
    const name = unique('g').slice(0, 20);
    expectRefused(await rawCall('POST', groups, `{"id":1e308,"name":"${name}"}`), 'body', 'id');
    expect((await api('GET', `${groups}/${name}`)).status).toBe(404);
    expect((await api('POST', groups, { name })).status).toBe(201);
    expectRefused(await rawCall('PATCH', `${groups}/${name}/subjects`, '[{"op":"add","value":[{"id":1e308}]}]'), 'body', '0.value.0.id');
  });
});
