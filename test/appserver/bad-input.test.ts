import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import {
  aDataMessage, aNotification, aStoredNotification, aSubject, aUserBody, call, errorBody, expectStatus, messagingPath, unique, type Subject,
} from '../fixtures/appserver.js';

let t: TestApp;
let s: Subject;
const seen: LightMyRequestResponse[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  s = await aSubject(t.app);
});
afterAll(async () => {
  // None of the requests in this file may end in a server error.
  expect(seen.filter((r) => r.statusCode >= 500).map((r) => r.body)).toEqual([]);
  await t.close();
});

/** Records every response for the no-5xx check in afterAll. */
function noted(res: LightMyRequestResponse) {
  seen.push(res);
  return res;
}
const send = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => noted(await call(t.app, method, url, payload));
const raw = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body: string | undefined, contentType = 'application/json') =>
  noted(await t.app.inject({ method, url, headers: { 'content-type': contentType }, ...(body !== undefined ? { payload: body } : {}) }));
const listOf = async (subject: Subject, kind: 'notifications' | 'data' = 'notifications') =>
  expectStatus(await send('GET', messagingPath(subject, kind)), 200)[kind === 'data' ? 'dataMessages' : 'notifications'] as unknown[];

describe('malformed JSON', () => {
  it.each([
    ['POST', 'users', () => `/projects/${s.projectId}/users`],
    ['PUT', 'users/{s}', () => `/projects/${s.projectId}/users/${s.subjectId}`],
    ['POST', 'notifications', () => messagingPath(s)],
    ['POST', 'notifications/batch', () => `${messagingPath(s)}/batch`],
    ['POST', 'state_events', () => `${messagingPath(s)}/1/state_events`],
    ['POST', 'data', () => messagingPath(s, 'data')],
  ] as const)('%s …/%s answers 400 with the error body', async (method, _label, path) => {
    for (const body of ['{"title":', '{title: "x"}', '[1,', '{"a":1}}']) {
      const res = await raw(method, path(), body);
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.stringContaining('Malformed JSON'), path()));
    }
  });
});

describe('wrong types', () => {
  it.each([
    { ttlSeconds: 'abc' },
    { ttlSeconds: 1.5 },
    { ttlSeconds: -1 },
    { title: {} },
    { title: '' },
    { scheduledTime: {} },
    { scheduledTime: true },
    { scheduledTime: 'tomorrow' },
    { scheduledTime: '2030-13-45T00:00:00Z' },
    { scheduledTime: '2030-06-29T15:25:58' }, // no offset: ambiguous local time
    { additionalData: { key: { nested: 'x' } } },
    { additionalData: 'x' },
    { priority: 'URGENT' },
    { color: 'red' },
    { emailEnabled: 'sometimes' },
  ])('a notification with %j answers 400 and stores nothing', async (override) => {
    const subject = await aSubject(t.app);
    const res = await send('POST', messagingPath(subject), aNotification(override));
    expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), messagingPath(subject)));
    expect(await listOf(subject)).toEqual([]);
  });

  it.each([
    { timezone: true },
    { timezone: 1.5 },
    { timezone: '' },
    { enrolmentDate: 'soon' },
    { enrolmentDate: null },
    { attributes: { a: 1, b: { c: 'd' } } },
    { attributes: ['x'] },
    { subjectId: '' },
    { subjectId: {} },
    { language: {} },
  ])('a user with %j answers 400', async (override) => {
    const path = `/projects/${s.projectId}/users`;
    const body = aUserBody(override);
    expect(expectStatus(await send('POST', path, body), 400)).toEqual(errorBody(400, expect.any(String), path));
    if (typeof body.subjectId === 'string' && body.subjectId) {
      expect((await send('GET', `/projects/${s.projectId}/users/${body.subjectId}`)).statusCode).toBe(404);
    }
  });

  it('a state event with a wrong type answers 400', async () => {
    const n = await aStoredNotification(t.app, s);
    const path = `${messagingPath(s)}/${n.id}/state_events`;
    for (const body of [{ state: {} }, { state: 'OPENED', time: 'yesterday' }, { state: 'OPENED', time: {} }, { state: 'OPENED', associatedInfo: 5 }, {}]) {
      expect(expectStatus(await send('POST', path, body), 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect((expectStatus(await send('GET', path), 200) as unknown[])).toHaveLength(2);
  });

  it('query flags that are not booleans answer 400', async () => {
    const path = `/projects/${s.projectId}/users`;
    expect(expectStatus(await send('POST', `${path}?forceFcmToken=maybe`, aUserBody()), 400)).toEqual(errorBody(400, expect.stringContaining('forceFcmToken'), path));
    expect(expectStatus(await send('POST', `${messagingPath(s)}?schedule=maybe`, aNotification()), 400))
      .toEqual(errorBody(400, expect.stringContaining('schedule'), messagingPath(s)));
  });

  it('values PostgreSQL cannot hold answer 400, not 500', async () => {
    const subject = await aSubject(t.app);
    const path = messagingPath(subject);
    for (const override of [
      { ttlSeconds: 99999999999 },
      { title: 'nul \u0000 character' },
      { scheduledTime: 8e12 },
      { scheduledTime: -8e12 },
      { scheduledTime: '+275760-09-13T00:00:00Z' },
    ]) {
      expect(expectStatus(await send('POST', path, aNotification(override)), 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect(await listOf(subject)).toEqual([]);
    const users = `/projects/${subject.projectId}/users`;
    expect(expectStatus(await send('POST', users, aUserBody({ enrolmentDate: 8e12 })), 400)).toEqual(errorBody(400, expect.any(String), users));
    expect(expectStatus(await send('POST', users, aUserBody({ language: 'a\u0000b' })), 400)).toEqual(errorBody(400, expect.any(String), users));
  });
});

describe('ids in the path', () => {
  it.each([
    '/messaging/notifications/abc',
    '/messaging/notifications/1.5',
    '/messaging/notifications/-1',
    '/messaging/notifications/0',
    '/messaging/notifications/abc/state_events',
    '/messaging/data/abc',
    '/messaging/notifications/99999999999999999999',
    '/messaging/notifications/99999999999999999999/state_events',
    '/users/user?id=abc',
    '/users/user?id=99999999999999999999',
  ])('GET %s answers 400', async (url) => {
    expect(expectStatus(await send('GET', url), 400)).toEqual(errorBody(400, expect.any(String), url.split('?')[0]!));
  });

  it('ids that are not integers answer 400 on the user routes too', async () => {
    for (const [method, suffix] of [['DELETE', '/abc'], ['POST', '/abc/schedule'], ['GET', '/abc/state_events'], ['POST', '/abc/state_events'], ['DELETE', '/tasks/abc']] as const) {
      const url = `${messagingPath(s)}${suffix}`;
      const res = await send(method, url, method === 'POST' && suffix.endsWith('state_events') ? { state: 'OPENED' } : undefined);
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), url));
    }
    expect(expectStatus(await send('DELETE', `${messagingPath(s, 'data')}/abc`), 400)).toEqual(errorBody(400, expect.any(String), `${messagingPath(s, 'data')}/abc`));
  });
});

describe('request bodies', () => {
  it('an empty body with Content-Type: application/json is fine on GET and DELETE', async () => {
    const subject = await aSubject(t.app);
    const n = await aStoredNotification(t.app, subject);
    for (const url of ['/projects', `/projects/${subject.projectId}/users/${subject.subjectId}`, messagingPath(subject), `/messaging/notifications/${n.id}`]) {
      expect((await raw('GET', url, undefined)).statusCode).toBe(200);
      expect((await raw('GET', url, '')).statusCode).toBe(200);
    }
    const res = await raw('DELETE', `${messagingPath(subject)}/${n.id}`, '');
    expect(res.statusCode).toBe(200);
    expect(await listOf(subject)).toEqual([]);
    expect((await raw('DELETE', `${messagingPath(subject)}/all`, undefined)).statusCode).toBe(200);
    expect((await raw('DELETE', `/projects/${subject.projectId}/users/${subject.subjectId}`, '')).statusCode).toBe(200);
  });

  it('an empty body is fine where none is needed and 400 where one is', async () => {
    expect(expectStatus(await raw('POST', `${messagingPath(s)}/schedule`, ''), 200)).toEqual({ notifications: expect.any(Array) });
    expect(expectStatus(await raw('POST', messagingPath(s), ''), 400)).toEqual(errorBody(400, expect.any(String), messagingPath(s)));
    expect(expectStatus(await raw('POST', messagingPath(s), 'null'), 400)).toEqual(errorBody(400, expect.any(String), messagingPath(s)));
    expect(expectStatus(await raw('POST', messagingPath(s), '[]'), 400)).toEqual(errorBody(400, expect.any(String), messagingPath(s)));
  });

  it('a body that is not JSON is refused with a 4xx error body', async () => {
    const res = await raw('POST', messagingPath(s), '<xml/>', 'application/xml');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual(errorBody(415, expect.any(String), messagingPath(s)));
    const text = await raw('POST', messagingPath(s), 'hello', 'text/plain');
    expect(expectStatus(text, 400)).toEqual(errorBody(400, expect.any(String), messagingPath(s)));
  });

  it('a body over the limit answers 413 with the error body', async () => {
    const small = await buildTestApp({ HTTP_BODY_LIMIT_BYTES: '2048' });
    try {
      const subject = await aSubject(small.app);
      const path = messagingPath(subject);
      const body = JSON.stringify(aNotification({ body: 'x'.repeat(4096) }));
      expect(body.length).toBeGreaterThan(4096);
      const res = noted(await small.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: body }));
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual(errorBody(413, expect.any(String), path));
      expect(expectStatus(await call(small.app, 'GET', path), 200)).toEqual({ notifications: [] });
      // Just under the limit is fine.
      expectStatus(await call(small.app, 'POST', path, aNotification({ body: 'x'.repeat(1000) })), 201);
    } finally {
      await small.close();
    }
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/messaging/nope/1'],
    ['POST', '/users'],
    ['PUT', '/messaging/notifications/1'],
    ['DELETE', '/projects/p'],
  ] as const)('%s %s answers 404 with the error body', async (method, url) => {
    const res = await send(method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
    expect(expectStatus(res, 404)).toEqual(errorBody(404, `No endpoint ${method} ${url}`, url));
  });
});

describe('nothing half-written', () => {
  it('a batch with one invalid element answers 400 and stores none of it', async () => {
    const subject = await aSubject(t.app);
    const path = `${messagingPath(subject)}/batch`;
    const { title: _title, ...noTitle } = aNotification();
    for (const bad of [noTitle, aNotification({ ttlSeconds: 'abc' }), aNotification({ scheduledTime: 'tomorrow' }), aNotification({ title: 'nul \u0000' })]) {
      const res = await send('POST', path, { notifications: [aNotification(), aNotification(), bad] });
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect(await listOf(subject)).toEqual([]);
  });

  it('a data-message batch with one invalid element answers 400 and stores none of it', async () => {
    const subject = await aSubject(t.app);
    const path = `${messagingPath(subject, 'data')}/batch`;
    for (const bad of [aDataMessage({ sourceId: '' }), aDataMessage({ scheduledTime: 'tomorrow' })]) {
      const res = await send('POST', path, { dataMessages: [aDataMessage(), bad] });
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect(await listOf(subject, 'data')).toEqual([]);
  });

  it('a failed update leaves the notification and its events as they were', async () => {
    const subject = await aSubject(t.app);
    const n = await aStoredNotification(t.app, subject);
    const res = await send('PUT', messagingPath(subject), aNotification({ id: n.id, sourceId: n.sourceId, title: 'ok', scheduledTime: 'tomorrow' }));
    expectStatus(res, 400);
    expect(expectStatus(await send('GET', `/messaging/notifications/${n.id}`), 200)).toEqual(n);
    const events = expectStatus(await send('GET', `${messagingPath(subject)}/${n.id}/state_events`), 200) as { state: string }[];
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('a failed user update changes nothing', async () => {
    const subject = await aSubject(t.app);
    const path = `/projects/${subject.projectId}/users/${subject.subjectId}`;
    expectStatus(await send('PUT', path, aUserBody({ fcmToken: 'fresh-token', language: 'nul \u0000' })), 400);
    expect(expectStatus(await send('GET', path), 200)).toEqual(subject.user);
  });
});

describe('a NUL character (U+0000) in any string', () => {
  const nul = (where: string) => `${where} must not contain the NUL character (U+0000)`;

  it.each([
    ['GET', '/projects/a%00b', 'params.projectId'],
    ['GET', '/projects/a%00b/users', 'params.projectId'],
    ['GET', '/users/a%00b', 'params.subjectId'],
    ['GET', '/messaging/notifications?x=%00', 'querystring.x'],
  ] as const)('%s %s answers 400 naming the value', async (method, url, where) => {
    expect(expectStatus(await send(method, url), 400)).toEqual(errorBody(400, nul(where), url.split('?')[0]!));
  });

  it('in a path parameter of a write, nothing is stored', async () => {
    const subject = await aSubject(t.app);
    const path = `/projects/${subject.projectId}/users/new%00user`;
    expect(expectStatus(await send('POST', path, aUserBody({ subjectId: undefined })), 400)).toEqual(errorBody(400, nul('params.subjectId'), path));
    expect((await send('GET', `/projects/${subject.projectId}/users/new`)).statusCode).toBe(404);
    const projectPath = '/projects/p%00q';
    expect(expectStatus(await send('POST', projectPath, {}), 400)).toEqual(errorBody(400, nul('params.projectId'), projectPath));
  });

  it('in a project body, nothing is created or renamed', async () => {
    const projectId = unique('nul');
    expect(expectStatus(await send('POST', '/projects', { projectId: `${projectId}\u0000` }), 400)).toEqual(errorBody(400, nul('body.projectId'), '/projects'));
    const listed = expectStatus(await send('GET', '/projects'), 200) as { projects: { projectId: string }[] };
    expect(listed.projects.filter((p) => p.projectId.startsWith(projectId))).toEqual([]);
    const path = `/projects/${s.projectId}`;
    const before = expectStatus(await send('GET', path), 200);
    expect(expectStatus(await send('PUT', path, { projectId: `renamed\u0000` }), 400)).toEqual(errorBody(400, nul('body.projectId'), path));
    expect(expectStatus(await send('GET', path), 200)).toEqual(before);
  });

  it('in a key of a user\'s attributes, the user is unchanged', async () => {
    const subject = await aSubject(t.app);
    const path = `/projects/${subject.projectId}/users/${subject.subjectId}`;
    expect(expectStatus(await send('PUT', path, aUserBody({ subjectId: subject.subjectId, attributes: { 'a\u0000': 'b' } })), 400))
      .toEqual(errorBody(400, nul('body.attributes.a\\u0000'), path));
    expect(expectStatus(await send('GET', path), 200)).toEqual(subject.user);
  });
});

describe('numbers out of range', () => {
  it.each([
    '/messaging/notifications/1e309',
    '/messaging/notifications/Infinity',
    '/messaging/notifications/1e308',
    '/messaging/notifications/9007199254740993',
    '/messaging/notifications/Infinity/state_events',
    '/messaging/notifications/1e309/state_events',
    '/messaging/data/Infinity',
    '/users/user?id=Infinity',
    '/users/user?id=1e309',
    '/users/user?id=1e308',
    '/projects/project?id=Infinity',
    '/projects/project?id=1e308',
  ])('GET %s answers 400', async (url) => {
    expect(expectStatus(await send('GET', url), 400)).toEqual(errorBody(400, expect.any(String), url.split('?')[0]!));
  });

  it('ids of a subject\'s messages', async () => {
    for (const [method, suffix] of [['DELETE', '/1e309'], ['DELETE', '/Infinity'], ['POST', '/1e308/schedule'], ['GET', '/Infinity/state_events'], ['POST', '/1e309/state_events']] as const) {
      const url = `${messagingPath(s)}${suffix}`;
      const res = await send(method, url, method === 'POST' && suffix.endsWith('state_events') ? { state: 'OPENED' } : undefined);
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), url));
    }
  });

  it('an id beyond a safe integer in a body changes nothing', async () => {
    const subject = await aSubject(t.app);
    const n = await aStoredNotification(t.app, subject);
    for (const id of ['1e308', '1e309', '9007199254740993']) {
      const body = JSON.stringify(aNotification({ sourceId: n.sourceId, title: 'changed' })).replace(/^\{/, `{"id":${id},`);
      const res = await raw('PUT', messagingPath(subject), body);
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.any(String), messagingPath(subject)));
    }
    expect(expectStatus(await send('GET', `/messaging/notifications/${n.id}`), 200)).toEqual(n);
    const path = `/projects/${subject.projectId}`;
    const before = expectStatus(await send('GET', path), 200);
    for (const id of ['1e308', '1e309']) {
      expect(expectStatus(await raw('PUT', path, `{"id":${id},"projectId":"renamed-${id}"}`), 400)).toEqual(errorBody(400, expect.any(String), path));
    }
    expect(expectStatus(await send('GET', path), 200)).toEqual(before);
  });
});
