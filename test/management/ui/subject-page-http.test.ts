/**
 * The subject page and the source-type forms over plain HTTP (issue 31 items 5, 6): who may open
 * and post what is what the API allows (a project admin of another project gets 403, nothing
 * changed), forms refused by the service show the API's message with what was typed (4xx, never
 * 5xx), the pairing codes show their client and expiry but never the code, and a subject moved to
 * another project keeps its history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { anOrganization, aProjectIn } from '../../fixtures/management.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let sys: ReturnType<typeof uiClient>;
let outsider: ReturnType<typeof uiClient>;
let outsiderToken: string;
let other: { id: number; projectName: string };

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  sys = uiClient(t.app);
  expect((await sys.signIn()).status).toBe(303);
  // A project admin of another project (in another organization).
  other = await aProjectIn(t.app.db.db, await anOrganization(t.app.db.db));
  const otherAdmin = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: other.projectName });
  outsiderToken = await mc.tokenOf(otherAdmin.login, 'Passw0rd');
  outsider = uiClient(t.app);
  expect((await outsider.signIn(otherAdmin.login, 'Passw0rd')).status).toBe(303);
});
afterAll(async () => { await t?.close(); });

const newSubject = async (project: { id: number; projectName: string } = { id: 1, projectName: 'radar' }) =>
  (await mc.subjectIn(project, admin)).login as string;

/** Posts `form` with the CSRF token of the client's own session. */
async function post(client: ReturnType<typeof uiClient>, path: string, form: Record<string, string>) {
  const csrf = csrfOf((await client.get('/')).body);
  return client.post(path, { _csrf: csrf, ...form });
}

const aType = async () => {
  const producer = unique('prod');
  const res = await mc.call('POST', '/api/source-types', {
    bearer: admin,
    body: { producer, model: 'M', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', sourceData: [{ sourceDataName: unique('data'), sourceDataType: 'ACC', topic: 't' }] },
  });
  expect(res.status).toBe(201);
  return res.body as Json;
};

describe('the subject page', () => {
  it('shows every field, attributes, sources and a history line per revision', async () => {
    const login = await newSubject();
    const subject = (await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).body as Json;
    const put = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...subject, externalId: 'EXT-1', attributes: { site: 'Leiden' } } });
    expect(put.status).toBe(200);
    const page = await sys.get(`/projects/radar/subjects/${login}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`Subject ${login}`);
    expect(page.body).toContain('<td>site</td><td>Leiden</td>');
    expect(page.body).toContain('2 revisions');
    expect(page.body).toMatch(/External ID: <del>—<\/del> → <ins>EXT-1<\/ins>/);
    expect(page.body).toMatch(/Attribute site: <del>—<\/del> → <ins>Leiden<\/ins>/);
  });

  it('is linked from the login cell of the subject list', async () => {
    const login = await newSubject();
    const list = await sys.get(`/projects/radar?login=${login}`);
    expect(list.body).toContain(`<td><a href="/managementportal/projects/radar/subjects/${login}">${login}</a></td>`);
  });

  it('lists the pairing codes an app can still read, with client and expiry, never the code', async () => {
    const login = await newSubject();
    const page = await sys.get(`/projects/radar/subjects/${login}`);
    expect(page.body).toContain('No pairing code an app can still read.');
    const paired = await sys.post(`/projects/radar/subjects/${login}/pair`, { _csrf: csrfOf((await sys.get(`/projects/radar/subjects/${login}/pair`)).body), clientId: 'aRMT' });
    expect(paired.status).toBe(200);
    const token = /\/api\/meta-token\/([A-Za-z0-9.-]+)/.exec(paired.body)![1]!;
    const shown = await sys.get(`/projects/radar/subjects/${login}`);
    expect(shown.body).toMatch(/<td>aRMT<\/td>\s*<td>one-time \(not read yet\)<\/td>\s*<td><time datetime="[^"]+">[^<]+<\/time><\/td>\s*<td><time datetime="/);
    expect(shown.body).not.toContain(token);
    // Read by the app: no longer listed.
    expect((await t.app.inject({ method: 'GET', url: `/managementportal/api/meta-token/${token}` })).statusCode).toBe(200);
    expect((await sys.get(`/projects/radar/subjects/${login}`)).body).toContain('No pairing code an app can still read.');
  });

  it('is refused (403) to a project admin of another project, as the API refuses the subject', async () => {
    const login = await newSubject();
    expect((await mc.call('GET', `/api/subjects/${login}`, { bearer: outsiderToken })).status).toBe(403);
    const page = await outsider.get(`/projects/radar/subjects/${login}`);
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toContain('text/html');
    // Their own project's subject: shown, as the API shows it.
    const own = await newSubject(other);
    expect((await mc.call('GET', `/api/subjects/${own}`, { bearer: outsiderToken })).status).toBe(200);
    expect((await outsider.get(`/projects/${other.projectName}/subjects/${own}`)).status).toBe(200);
  });

  it('answers a subject of another project with a 404 page', async () => {
    const login = await newSubject(other);
    expect((await sys.get(`/projects/radar/subjects/${login}`)).status).toBe(404);
  });

  it('keeps the history of a subject moved to another project', async () => {
    const login = await newSubject();
    const subject = (await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).body as Json;
    expect((await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...subject, externalId: 'before-move' } })).status).toBe(200);
    const moved = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...subject, externalId: 'before-move', project: { id: other.id, projectName: other.projectName } } });
    expect(moved.status).toBe(200);
    expect((await sys.get(`/projects/radar/subjects/${login}`)).status).toBe(404);
    const page = await sys.get(`/projects/${other.projectName}/subjects/${login}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('3 revisions');
    expect(page.body).toMatch(new RegExp(`Project: <del>radar</del> → <ins>${other.projectName}</ins>`));
    expect(page.body).toMatch(/External ID: <del>—<\/del> → <ins>before-move<\/ins>/);
  });
});

describe('the source type forms', () => {
  it('a project admin of another project gets 403 on every form and post, as from the API, and nothing changes', async () => {
    const type = await aType();
    const path = `/source-types/${type.producer}/M/v1`;
    const dataName = type.sourceData[0].sourceDataName as string;
    // The API refuses them the same changes.
    expect((await mc.call('POST', '/api/source-types', { bearer: outsiderToken, body: { producer: unique('p'), model: 'M', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' } })).status).toBe(403);
    expect((await mc.call('DELETE', `/api/source-types/${type.producer}/M/v1`, { bearer: outsiderToken })).status).toBe(403);
    expect((await mc.call('DELETE', `/api/source-data/${dataName}`, { bearer: outsiderToken })).status).toBe(403);
    // Reading is allowed (SOURCETYPE.READ), as in the API.
    expect((await outsider.get(path)).status).toBe(200);
    const producer = unique('p');
    for (const url of ['/source-types/new', `${path}/edit`, `${path}/delete`, `${path}/source-data/new`, `${path}/source-data/${dataName}/edit`, `${path}/source-data/${dataName}/delete`]) {
      expect((await outsider.get(url)).status, url).toBe(403);
    }
    const posts: [string, Record<string, string>][] = [
      ['/source-types/new', { producer, model: 'M', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' }],
      [`${path}/edit`, { producer: type.producer, model: 'M', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE' }],
      [`${path}/delete`, {}],
      [`${path}/source-data/new`, { sourceDataName: unique('d'), sourceDataType: 'X' }],
      [`${path}/source-data/${dataName}/edit`, { sourceDataName: dataName, sourceDataType: 'CHANGED' }],
      [`${path}/source-data/${dataName}/delete`, {}],
    ];
    for (const [url, form] of posts) expect((await post(outsider, url, form)).status, url).toBe(403);
    expect((await mc.call('GET', `/api/source-types/${producer}/M/v1`, { bearer: admin })).status).toBe(404);
    expect((await mc.call('GET', `/api/source-types/${type.producer}/M/v1`, { bearer: admin })).body).toEqual(type);
  });

  it('shows what the form or the API refuses as a form error, keeping what was typed', async () => {
    const type = await aType();
    const badName = await post(sys, '/source-types/new', { producer: 'no/slash', model: 'M', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', name: 'Typed name' });
    expect(badName.status).toBe(400);
    expect(badName.body).toContain('role="alert"');
    expect(badName.body).toContain('value="no/slash"');
    expect(badName.body).toContain('value="Typed name"');
    const taken = await post(sys, '/source-types/new', { producer: type.producer, model: 'M', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE' });
    expect(taken.status).toBe(409);
    expect(taken.body).toContain('A SourceType with the specified producer, model and version already exists.');
    const dataTaken = await post(sys, `/source-types/${type.producer}/M/v1/source-data/new`, { sourceDataName: type.sourceData[0].sourceDataName, topic: 'x', unit: 'typed-unit' });
    expect(dataTaken.status).toBe(409);
    expect(dataTaken.body).toContain('SourceData already available with source-name');
    expect(dataTaken.body).toContain('value="typed-unit"');
    const noType = await post(sys, `/source-types/${type.producer}/M/v1/source-data/new`, { sourceDataName: unique('d') });
    expect(noType.status).toBe(400);
    expect(noType.body).toContain('Give the source data a type or a topic.');
  });

  it('refuses to delete a source type a project uses, saying so on the page', async () => {
    const res = await post(sys, '/source-types/Empatica/E4/v1/delete', {});
    expect(res.status).toBe(403);
    expect(res.body).toContain('Cannot delete a source-type that is being used by project(s)');
    expect((await mc.call('GET', '/api/source-types/Empatica/E4/v1', { bearer: admin })).status).toBe(200);
  });

  it('answers an unknown source type and source data with 404 pages', async () => {
    expect((await sys.get(`/source-types/${unique('none')}/M/v1`)).status).toBe(404);
    const type = await aType();
    expect((await sys.get(`/source-types/${type.producer}/M/v1/source-data/${unique('none')}/edit`)).status).toBe(404);
  });
});
