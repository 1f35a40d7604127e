import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  aNotification, aProject, aStoredNotification, aSubject, aUserBody, call, errorBody, expectStatus, messagingPath, unique,
} from '../../fixtures/appserver.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const getUser = async (projectId: string, subjectId: string) =>
  expectStatus(await call(t.app, 'GET', `/projects/${projectId}/users/${subjectId}`), 200);

describe('POST /projects/{p}/users (U1)', () => {
  it('creates a user: 201, Location, projectId from the path, instants as epoch seconds', async () => {
    const projectId = await aProject(t.app);
    const body = aUserBody({ projectId: 'ignored', email: 'a@b.org', enrolmentDate: '2024-05-01T00:00:00.250Z' });
    const before = Date.now() / 1000;
    const res = await call(t.app, 'POST', `/projects/${projectId}/users`, body);
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/users/user?id=${dto.id}`);
    expect(dto).toEqual({
      id: expect.any(Number),
      projectId,
      subjectId: body.subjectId,
      email: 'a@b.org',
      lastOpened: expect.any(Number),
      lastDelivered: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      enrolmentDate: 1714521600.25,
      timezone: 'Europe/London',
      fcmToken: body.fcmToken,
      language: 'en',
      attributes: { site: 'london' },
    });
    expect(res.body).toContain('"enrolmentDate":1714521600.25');
    for (const field of ['lastOpened', 'createdAt', 'updatedAt'] as const) {
      expect(dto[field]).toBeGreaterThan(before - 60);
      expect(dto[field]).toBeLessThan(before + 60);
    }
    expect(await getUser(projectId, body.subjectId)).toEqual(dto);
  });

  it('accepts enrolmentDate as epoch seconds and timezone as an offset in seconds', async () => {
    const projectId = await aProject(t.app);
    const body = aUserBody({ enrolmentDate: 1714521600, timezone: 7200 });
    const dto = expectStatus(await call(t.app, 'POST', `/projects/${projectId}/users`, body), 201);
    expect(dto).toMatchObject({ enrolmentDate: 1714521600, timezone: '7200' });
    expect(await getUser(projectId, body.subjectId)).toMatchObject({ enrolmentDate: 1714521600, timezone: '7200' });
  });

  it.each(['subjectId', 'enrolmentDate', 'timezone'])('answers 400 without %s and stores nothing', async (field) => {
    const projectId = await aProject(t.app);
    const body: Record<string, unknown> = aUserBody();
    delete body[field];
    const res = await call(t.app, 'POST', `/projects/${projectId}/users`, body);
    expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.stringContaining(field), `/projects/${projectId}/users`));
    expect(expectStatus(await call(t.app, 'GET', `/projects/${projectId}/users`), 200)).toEqual({ users: [] });
  });

  it('answers 400 for a malformed email, an unknown time zone name and a bad enrolmentDate', async () => {
    const projectId = await aProject(t.app);
    const path = `/projects/${projectId}/users`;
    for (const bad of [{ email: 'not-an-email' }, { timezone: 'Mars/Olympus_Mons' }, { enrolmentDate: 'yesterday' }]) {
      const res = await call(t.app, 'POST', path, aUserBody(bad));
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect(expectStatus(await call(t.app, 'GET', path), 200)).toEqual({ users: [] });
  });

  it('takes null for the optional fields (two users without a device token do not clash)', async () => {
    const projectId = await aProject(t.app);
    const nulls = { fcmToken: null, language: null, email: null, attributes: null, lastOpened: null, lastDelivered: null };
    for (const body of [aUserBody(nulls), aUserBody(nulls)]) {
      const dto = expectStatus(await call(t.app, 'POST', `/projects/${projectId}/users`, body), 201);
      expect(dto).toMatchObject({ fcmToken: null, language: null, email: null, attributes: {}, lastDelivered: null, lastOpened: expect.any(Number) });
    }
  });

  it('answers 404 for an unknown project', async () => {
    const projectId = unique('missing');
    const res = await call(t.app, 'POST', `/projects/${projectId}/users`, aUserBody());
    expect(expectStatus(res, 404)).toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', `/projects/${projectId}/users`));
  });

  it('answers 417 for an existing subject and keeps the first user', async () => {
    const s = await aSubject(t.app);
    const res = await call(t.app, 'POST', `/projects/${s.projectId}/users`, aUserBody({ subjectId: s.subjectId }));
    expect(expectStatus(res, 417)).toEqual(errorBody(
      417,
      `The user with specified subject ID ${s.subjectId} already exists in project ID ${s.projectId}. Please use Update endpoint if need to update the user`,
      `/projects/${s.projectId}/users`,
    ));
    expect(await getUser(s.projectId, s.subjectId)).toEqual(s.user);
  });

  it('answers 409 when another user holds the fcmToken', async () => {
    const first = await aSubject(t.app);
    const body = aUserBody({ fcmToken: first.user.fcmToken });
    const res = await call(t.app, 'POST', `/projects/${first.projectId}/users`, body);
    expect(expectStatus(res, 409)).toEqual(errorBody(409, expect.stringContaining('Constraint'), `/projects/${first.projectId}/users`));
    expect((await call(t.app, 'GET', `/projects/${first.projectId}/users/${body.subjectId}`)).statusCode).toBe(404);
  });

  it('with ?forceFcmToken=true takes the token over and gives the first user an unregistered_ token', async () => {
    const first = await aSubject(t.app);
    const body = aUserBody({ fcmToken: first.user.fcmToken });
    const before = Date.now();
    const dto = expectStatus(await call(t.app, 'POST', `/projects/${first.projectId}/users?forceFcmToken=true`, body), 201);
    expect(dto.fcmToken).toBe(first.user.fcmToken);
    const replaced = (await getUser(first.projectId, first.subjectId)).fcmToken as string;
    expect(replaced).toMatch(/^unregistered_\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(replaced.slice('unregistered_'.length))).toBeGreaterThanOrEqual(before - 1000);
  });

  it('a failed forced create leaves the other user\'s token alone', async () => {
    const holder = await aSubject(t.app);
    const existing = await aSubject(t.app, { projectId: holder.projectId });
    const res = await call(t.app, 'POST', `/projects/${holder.projectId}/users?forceFcmToken=true`,
      aUserBody({ subjectId: existing.subjectId, fcmToken: holder.user.fcmToken }));
    expectStatus(res, 417);
    expect((await getUser(holder.projectId, holder.subjectId)).fcmToken).toBe(holder.user.fcmToken);
  });

  it('POST /projects/{p}/users/{s} creates that user; a different body subjectId is 400', async () => {
    const projectId = await aProject(t.app);
    const subjectId = unique('sub');
    const { subjectId: _omit, ...body } = aUserBody();
    const res = await call(t.app, 'POST', `/projects/${projectId}/users/${subjectId}`, body);
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/users/user?id=${dto.id}`);
    expect(dto).toMatchObject({ projectId, subjectId });
    const same = unique('sub');
    expect(expectStatus(await call(t.app, 'POST', `/projects/${projectId}/users/${same}`, aUserBody({ subjectId: same })), 201))
      .toMatchObject({ projectId, subjectId: same });

    const other = unique('sub');
    const mismatch = await call(t.app, 'POST', `/projects/${projectId}/users/${other}`, aUserBody());
    expect(expectStatus(mismatch, 400)).toEqual(errorBody(400, expect.stringContaining('does not match'), `/projects/${projectId}/users/${other}`));
    expect((await call(t.app, 'GET', `/projects/${projectId}/users/${other}`)).statusCode).toBe(404);
  });

  it('POST /project/{p}/users is the same operation', async () => {
    const projectId = await aProject(t.app);
    const body = aUserBody();
    const res = await call(t.app, 'POST', `/project/${projectId}/users`, body);
    const dto = expectStatus(res, 201);
    expect(res.headers.location).toBe(`/users/user?id=${dto.id}`);
    expect(await getUser(projectId, body.subjectId)).toEqual(dto);
  });
});

describe('PUT /projects/{p}/users/{s} (U2)', () => {
  it('updates fcmToken, language, timezone, attributes and email', async () => {
    const s = await aSubject(t.app, { body: { email: 'old@example.org' } });
    const fcmToken = unique('tok');
    const res = await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, {
      fcmToken, language: 'nl', timezone: 'Europe/Amsterdam', attributes: { site: 'utrecht' }, email: 'new@example.org',
      enrolmentDate: '2024-05-02T00:00:00Z',
    });
    const dto = expectStatus(res, 200);
    const expected = {
      id: s.user.id, projectId: s.projectId, subjectId: s.subjectId, fcmToken, language: 'nl', timezone: 'Europe/Amsterdam',
      attributes: { site: 'utrecht' }, email: 'new@example.org', enrolmentDate: 1714608000,
    };
    expect(dto).toMatchObject(expected);
    expect(await getUser(s.projectId, s.subjectId)).toEqual(dto);
  });

  it('accepts the DTO the app GETs, with fcmToken and lastOpened changed, back (clients.md §2.1)', async () => {
    const s = await aSubject(t.app);
    const fetched = await getUser(s.projectId, s.subjectId);
    const lastOpened = new Date(Date.now() - 5000);
    const fcmToken = unique('tok');
    const roundTrip = JSON.parse(JSON.stringify(Object.assign(fetched, { fcmToken, lastOpened, timezone: 'Europe/London', language: 'en' })));
    const dto = expectStatus(await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}?forceFcmToken=true`, roundTrip), 200);
    expect(dto).toMatchObject({ id: s.user.id, fcmToken, lastOpened: lastOpened.getTime() / 1000, enrolmentDate: s.user.enrolmentDate });
    expect(await getUser(s.projectId, s.subjectId)).toEqual(dto);
  });

  it('with ?forceFcmToken=true takes a token over from another user', async () => {
    const holder = await aSubject(t.app);
    const s = await aSubject(t.app, { projectId: holder.projectId });
    const conflict = await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, aUserBody({ subjectId: s.subjectId, fcmToken: holder.user.fcmToken }));
    expectStatus(conflict, 409);
    const res = await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}?forceFcmToken=true`, aUserBody({ subjectId: s.subjectId, fcmToken: holder.user.fcmToken }));
    expect(expectStatus(res, 200).fcmToken).toBe(holder.user.fcmToken);
    expect((await getUser(holder.projectId, holder.subjectId)).fcmToken).toMatch(/^unregistered_/);
  });

  it('answers 404 for an unknown subject or project', async () => {
    const projectId = await aProject(t.app);
    const subjectId = unique('sub');
    const path = `/projects/${projectId}/users/${subjectId}`;
    expect(expectStatus(await call(t.app, 'PUT', path, aUserBody()), 404)).toEqual(errorBody(
      404,
      `The user with specified subject ID ${subjectId} does not exist in project ID ${projectId}. Please use CreateUser endpoint to create the user.`,
      path,
    ));
    const unknownProject = `/projects/${unique('missing')}/users/${subjectId}`;
    expect(expectStatus(await call(t.app, 'PUT', unknownProject, aUserBody()), 404)).toEqual(errorBody(404, expect.any(String), unknownProject));
  });

  it('answers 400 for an unknown time zone and keeps the user', async () => {
    const s = await aSubject(t.app);
    const path = `/projects/${s.projectId}/users/${s.subjectId}`;
    expect(expectStatus(await call(t.app, 'PUT', path, aUserBody({ timezone: 'Nowhere/Land' })), 400))
      .toEqual(errorBody(400, expect.stringContaining('timezone'), path));
    expect(await getUser(s.projectId, s.subjectId)).toEqual(s.user);
  });
});

describe('GET users (U3–U7)', () => {
  it('lists all users, by subjectId, by id and per project', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app);
    expect(expectStatus(await call(t.app, 'GET', '/users'), 200).users).toEqual(expect.arrayContaining([s.user, other.user]));
    expect(expectStatus(await call(t.app, 'GET', `/users/${s.subjectId}`), 200)).toEqual(s.user);
    expect(expectStatus(await call(t.app, 'GET', `/users/user?id=${s.user.id}`), 200)).toEqual(s.user);
    expect(expectStatus(await call(t.app, 'GET', `/projects/${s.projectId}/users`), 200)).toEqual({ users: [s.user] });
    expect(await getUser(s.projectId, s.subjectId)).toEqual(s.user);
  });

  it('answers 417 for /users/user without id and 404 for unknown ids', async () => {
    expect(expectStatus(await call(t.app, 'GET', '/users/user'), 417)).toEqual(errorBody(417, 'The given id must not be null!', '/users/user'));
    expect(expectStatus(await call(t.app, 'GET', '/users/user?id=999999999'), 404))
      .toEqual(errorBody(404, 'No User was found with the ID - 999999999', '/users/user'));
    const subjectId = unique('sub');
    expect(expectStatus(await call(t.app, 'GET', `/users/${subjectId}`), 404))
      .toEqual(errorBody(404, `No User was found with the subject ID - ${subjectId}`, `/users/${subjectId}`));
    const projectId = unique('missing');
    expect(expectStatus(await call(t.app, 'GET', `/projects/${projectId}/users`), 404))
      .toEqual(errorBody(404, `Project not found with projectId ${projectId}`, `/projects/${projectId}/users`));
    const known = await aProject(t.app);
    expect(expectStatus(await call(t.app, 'GET', `/projects/${known}/users/${subjectId}`), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', `/projects/${known}/users/${subjectId}`));
  });
});

describe('DELETE /projects/{p}/users/{s} (U8)', () => {
  it('deletes the user with an empty 200, then 404; their notifications are gone', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    const path = `/projects/${s.projectId}/users/${s.subjectId}`;
    const res = await call(t.app, 'DELETE', path);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect((await call(t.app, 'GET', path)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/users/user?id=${s.user.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/notifications/${n.id}`)).statusCode).toBe(404);
    expect((await call(t.app, 'GET', `/messaging/notifications/${n.id}/state_events`)).statusCode).toBe(404);
    expect(expectStatus(await call(t.app, 'DELETE', path), 404)).toEqual(errorBody(
      404,
      `The user with specified subject ID ${s.subjectId} does not exist in project ID ${s.projectId}. Please specify a valid user for deleting.`,
      path,
    ));
  });

  it('the subject can be created again after deletion, and its old messages do not come back', async () => {
    const s = await aSubject(t.app);
    await aStoredNotification(t.app, s);
    expectStatus(await call(t.app, 'DELETE', `/projects/${s.projectId}/users/${s.subjectId}`), 200);
    await aSubject(t.app, { projectId: s.projectId, body: { subjectId: s.subjectId } });
    expect(expectStatus(await call(t.app, 'GET', messagingPath(s)), 200)).toEqual({ notifications: [] });
    expectStatus(await call(t.app, 'POST', messagingPath(s), aNotification()), 201);
  });
});
