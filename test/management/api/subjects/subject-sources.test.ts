/**
 * A subject's sources over HTTP (managementportal.md §2.5, clients.md §1): the questionnaire
 * app's enrolment calls with a participant's own token (E3 registration 201 then 409, E5 the
 * subject it reads), pRMT's registration by type id and source name, every error of the
 * registration, the attribute merge, the source list (`[]` when empty, `withInactiveSources`)
 * and what is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { aProjectIn, mainOrganization, setPassword } from '../../../fixtures/management.js';
import {
  projectSourceTypes, revisionChanges, roleUsers, sources, sourceTypes, subjects,
} from '../../../../src/management/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };
const types: Record<'armt' | 'thinc' | 'e4' | 'foreign', { id: number; producer: string; model: string; catalogVersion: string }> = {} as never;
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const ARMT_BODY = { sourceTypeCatalogVersion: '1.5.0', sourceTypeModel: 'aRMT-App', sourceTypeProducer: 'RADAR' };

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  project = await aProjectIn(db, main);
  const insertType = async (key: keyof typeof types, values: { producer: string; model: string; catalogVersion: string; canRegisterDynamically: boolean }, linked = true) => {
    const [row] = await db.insert(sourceTypes).values({ ...values, sourceTypeScope: 'ACTIVE' }).returning();
    types[key] = row!;
    if (linked) await db.insert(projectSourceTypes).values({ projectId: project.id, sourceTypeId: row!.id });
  };
  await insertType('armt', { producer: 'RADAR', model: 'aRMT-App', catalogVersion: '1.5.0', canRegisterDynamically: true });
  await insertType('thinc', { producer: 'THINC-IT App', model: unique('App'), catalogVersion: 'v1', canRegisterDynamically: true });
  await insertType('e4', { producer: 'Empatica', model: unique('E4'), catalogVersion: 'v1', canRegisterDynamically: false });
  await insertType('foreign', { producer: 'Other', model: unique('Device'), catalogVersion: 'v1', canRegisterDynamically: true }, false);
});
afterAll(async () => { await t.close(); });

/** A new subject of the project through the API, with a password so it can sign in. */
async function aSubject(password = 'Passw0rd!') {
  const { login, id } = await mc.subjectIn(project, admin);
  await setPassword(t.app.db.db, login, password);
  return { login: login as string, id: id as number, token: await mc.tokenOf(login, password) };
}

const error = (status: number, errorCode: string, message: string, entityName = 'subject', params: Record<string, unknown> = {}) =>
  ({ status, body: { message, entityName, errorCode, params: { timestamp: expect.stringMatching(radarTimestamp), ...params } } });
const pick = (res: { status: number; body: Json }) => ({ status: res.status, body: res.body });
const ref = (p: { id: number; projectName: string }) => ({ id: p.id, projectName: p.projectName });

describe('the questionnaire app enrolment (clients.md §1 E3, E5)', () => {
  it('registers its aRMT source once (201), answers 409 to the repeat, and reads its subject', async () => {
    const participant = await aSubject();
    const first = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body: ARMT_BODY });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number), sourceTypeId: types.armt.id, sourceTypeProducer: 'RADAR', sourceTypeModel: 'aRMT-App', sourceTypeCatalogVersion: '1.5.0',
      expectedSourceName: null, sourceId: uuid, sourceName: `aRMT-App-${(first.body.sourceId as string).slice(0, 8)}`, assigned: true, attributes: {},
    });
    expect(first.headers.location).toBe(`/api/sources/${first.body.sourceName}`);
    expect(first.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.created');
    expect(first.headers['x-managementportalapp-params']).toBe(first.body.sourceName);

    const again = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body: ARMT_BODY });
    expect(pick(again)).toEqual(error(409, 'error.sourceTypeExists',
      'A Source of SourceType with the specified producer, model and version was already registered for subject login', 'subject',
      { producer: 'RADAR', model: 'aRMT-App', catalogVersion: '1.5.0', userId: participant.login }));
    expect(again.headers['x-managementportalapp-error']).toBe('error.sourceTypeExists');

    const subject = await mc.call('GET', `/api/subjects/${participant.login}`, { bearer: participant.token, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(subject.status).toBe(200);
    expect(Number.isNaN(new Date(subject.body.createdDate).getTime())).toBe(false);
    expect(subject.body.project.projectName).toBe(project.projectName);
    expect(subject.body.login).toBe(participant.login);
    expect(subject.body.sources).toEqual([first.body]);
    expect(subject.body.sources.find((s: Json) => s.sourceTypeModel === 'aRMT-App').sourceId).toBe(first.body.sourceId);

    // Stored: one source, assigned to the subject in its project, and a revision naming it.
    const stored = await t.app.db.db.select().from(sources).where(eq(sources.sourceId, first.body.sourceId));
    expect(stored).toEqual([expect.objectContaining({ subjectId: participant.id, projectId: project.id, assigned: true, deleted: false, createdBy: participant.login })]);
    const changes = await t.app.db.db.select().from(revisionChanges).where(eq(revisionChanges.entityKey, first.body.sourceName));
    expect(changes).toEqual([expect.objectContaining({
      entityType: 'source', revisionType: 'ADD', entityId: first.body.id,
      entity: expect.objectContaining({ sourceId: first.body.sourceId, subjectLogin: participant.login, project: ref(project), sourceType: expect.objectContaining({ id: types.armt.id }) }),
    })]);
  });

  it('a refreshed token (the app exchanges its refresh token) registers too', async () => {
    const participant = await aSubject('An0ther!pw');
    const pair = await mc.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: participant.login, password: 'An0ther!pw' });
    const refreshed = await mc.token({ grant_type: 'refresh_token', client_id: 'ManagementPortalapp', refresh_token: pair.refresh_token });
    expect(refreshed.status).toBe(200);
    const res = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: refreshed.access_token, body: ARMT_BODY });
    expect(res.status).toBe(201);
  });

  it('a participant cannot register a source for another participant', async () => {
    const [me, other] = [await aSubject(), await aSubject()];
    const res = await mc.call('POST', `/api/subjects/${other.login}/sources`, { bearer: me.token, body: ARMT_BODY });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('error.accessDenied');
    expect(await t.app.db.db.select().from(sources).where(eq(sources.subjectId, other.id))).toEqual([]);
  });
});

describe('pRMT registration by source type id and source name (clients.md §1.5)', () => {
  it('creates <sourceName>_<model>-<uuid8> with the attributes (200: a name was given); a second one is 409', async () => {
    const participant = await aSubject();
    const body = { sourceTypeId: types.thinc.id, sourceName: 'android', attributes: { ANDROID_VERSION: '13' } };
    const res = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number), sourceTypeId: types.thinc.id, sourceTypeProducer: 'THINC-IT App', sourceTypeModel: types.thinc.model, sourceTypeCatalogVersion: 'v1',
      expectedSourceName: null, sourceId: uuid, sourceName: `android_${types.thinc.model}-${(res.body.sourceId as string).slice(0, 8)}`, assigned: true,
      attributes: { ANDROID_VERSION: '13' },
    });
    expect(res.headers['x-managementportalapp-alert']).toBe('managementPortalApp.source.updated');
    expect((await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body })).status).toBe(409);

    // With its sourceId: renamed, attributes merged, 200.
    const update = await mc.call('POST', `/api/subjects/${participant.login}/sources`, {
      bearer: participant.token, body: { sourceTypeId: types.thinc.id, sourceId: res.body.sourceId, sourceName: unique('renamed'), attributes: { APP_VERSION: '2' } },
    });
    expect(update.status).toBe(200);
    expect(update.body).toEqual({ ...res.body, sourceName: expect.stringMatching(/^renamed-/), attributes: { ANDROID_VERSION: '13', APP_VERSION: '2' } });
  });

  it('merges attributes through POST …/sources/{sourceName}', async () => {
    const participant = await aSubject();
    const created = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body: { ...ARMT_BODY, attributes: { something: 'value' } } });
    const attributes = { TEST_KEY: 'Value', ANDROID_VERSION: 'something', Other: 'test' };
    const res = await mc.call('POST', `/api/subjects/${participant.login}/sources/${created.body.sourceName}`, { bearer: participant.token, body: attributes });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, attributes: { something: 'value', ...attributes } });
    const [row] = await t.app.db.db.select().from(sources).where(eq(sources.id, created.body.id));
    expect(row!.attributes).toEqual({ something: 'value', ...attributes });

    expect(pick(await mc.call('POST', `/api/subjects/${participant.login}/sources/nope`, { bearer: participant.token, body: {} })))
      .toEqual(error(404, 'error.subjectNotFound', 'Source not found under assigned sources of subject', 'subject', { subjectLogin: participant.login, sourceName: 'nope' }));
    expect(pick(await mc.call('POST', '/api/subjects/nobody-here/sources/nope', { bearer: admin, body: {} })))
      .toEqual(error(404, 'error.subjectNotFound', 'Subject ID not found', 'subject', { subjectLogin: 'nobody-here' }));
  });
});

describe('registration errors (§2.5)', () => {
  let participant: Awaited<ReturnType<typeof aSubject>>;
  beforeAll(async () => { participant = await aSubject(); });
  const register = (body: unknown, bearer = participant.token, login = participant.login) =>
    mc.call('POST', `/api/subjects/${login}/sources`, { bearer, body }).then(pick);

  it('no type id and an incomplete producer/model/version: 400 error.validation', async () => {
    expect(await register({ sourceTypeProducer: 'RADAR', sourceTypeModel: 'aRMT-App' }))
      .toEqual(error(400, 'error.validation', 'Producer or model or version value for the source-type is null', 'sourceType'));
  });

  it('an unknown producer/model/version: 404 error.sourceTypeNotFound', async () => {
    expect(await register({ ...ARMT_BODY, sourceTypeCatalogVersion: '9.9.9' }))
      .toEqual(error(404, 'error.sourceTypeNotFound', 'SourceType not found with producer, model, version ', 'sourceType', { 'producer-model-version': 'RADAR-aRMT-App-9.9.9' }));
  });

  it('a type the project does not use, or an unknown type id: 400 error.sourceTypeNotProvided', async () => {
    const expected = error(400, 'error.sourceTypeNotProvided',
      'No valid source-type found for project. You must provide either valid source-type id or producer, model, version of a source-type that is assigned to project');
    expect(await register({ sourceTypeId: types.foreign.id })).toEqual(expected);
    expect(await register({ sourceTypeId: 987_654_321 })).toEqual(expected);
  });

  it('a type that cannot register dynamically: 400 error.InvalidDynamicSourceRegistration with a message', async () => {
    expect(await register({ sourceTypeProducer: 'Empatica', sourceTypeModel: types.e4.model, sourceTypeCatalogVersion: 'v1' }))
      .toEqual(error(400, 'error.InvalidDynamicSourceRegistration', 'The source type is not eligible for dynamic registration', 'sourceType',
        { producer: 'Empatica', model: types.e4.model, catalogVersion: 'v1', userId: participant.login }));
  });

  it('an unknown sourceId of this subject: 404 error.sourceNotFound', async () => {
    const sourceId = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    expect(await register({ sourceTypeId: types.armt.id, sourceId }))
      .toEqual(error(404, 'error.sourceNotFound', 'No source with source-id to assigned to the subject with subject-login', 'subject', { sourceId, 'subject-login': participant.login }));
  });

  it('a source name in use: 409 error.sourceNameExists', async () => {
    const other = await aSubject();
    const created = await register({ sourceTypeId: types.thinc.id }, other.token, other.login);
    const mine = await register({ sourceTypeId: types.armt.id, sourceName: 'x' });
    expect(mine.status).toBe(200);
    expect(await register({ sourceTypeId: types.armt.id, sourceId: mine.body.sourceId, sourceName: created.body.sourceName }))
      .toEqual(error(409, 'error.sourceNameExists', 'SourceName already in use. Cannot create a source with existing source-name ', 'subject', { 'source-name': created.body.sourceName }));
  });

  it('an unknown subject: 404; a subject without an active project: 403 error.activeParticipantProjectNotFound', async () => {
    expect(await register(ARMT_BODY, admin, 'nobody-at-all')).toEqual(error(404, 'error.subjectNotFound', 'Subject not found with login'));
    const orphan = await aSubject();
    await t.app.db.db.delete(roleUsers).where(eq(roleUsers.userId, (await t.app.db.db.select().from(subjects).where(eq(subjects.id, orphan.id)))[0]!.userId));
    expect(await register(ARMT_BODY, admin, orphan.login))
      .toEqual(error(403, 'error.activeParticipantProjectNotFound', 'Requested subject does not have an active project'));
  });

  it('a malformed body: 400 ErrorVM error.validation; no scope SUBJECT.UPDATE: 403', async () => {
    const res = await register({ sourceId: 'not-a-uuid' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [expect.objectContaining({ field: 'sourceId' })] });
    const readOnly = await mc.clientCredentials(['SUBJECT.READ'], admin);
    expect((await register(ARMT_BODY, readOnly)).status).toBe(403);
  });
});

describe('GET /api/subjects/{login}/sources', () => {
  it('is [] without sources (reference bug fixed: 404), lists assigned ones, and with withInactiveSources also released ones', async () => {
    const participant = await aSubject();
    const list = (query = '') => mc.call('GET', `/api/subjects/${participant.login}/sources${query}`, { bearer: participant.token }).then(pick);
    expect(await list()).toEqual({ status: 200, body: [] });
    const created = await mc.call('POST', `/api/subjects/${participant.login}/sources`, { bearer: participant.token, body: ARMT_BODY });
    expect(await list('?sort=id,desc')).toEqual({ status: 200, body: [created.body] });

    const subject = (await mc.call('GET', `/api/subjects/${participant.login}`, { bearer: admin })).body;
    expect((await mc.call('PUT', '/api/subjects/discontinue', { bearer: admin, body: subject })).status).toBe(200);
    const res = await mc.call('GET', `/api/subjects/${participant.login}/sources?withInactiveSources=true`, { bearer: admin });
    expect(pick(res)).toEqual({ status: 200, body: [created.body] });
    expect((await mc.call('GET', `/api/subjects/${participant.login}/sources?withInactiveSources=false`, { bearer: admin })).body).toEqual([]);
    expect(pick(await mc.call('GET', '/api/subjects/not-a-subject/sources', { bearer: admin }))).toEqual(error(404, 'error.subjectNotFound', 'Subject not found with login'));
  });

  it('another participant may not list them', async () => {
    const [me, other] = [await aSubject(), await aSubject()];
    expect((await mc.call('GET', `/api/subjects/${other.login}/sources`, { bearer: me.token })).status).toBe(403);
  });
});
