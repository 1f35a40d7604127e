/**
 * Issue 17 item 13, "an update follows the path, never an id in the body": for every app-server
 * write whose path names the entity, a body id that names another entity is a 400 (or, for
 * messages, which the path's user owns, a 404) and nothing changes; a body id that repeats the
 * path's entity, or none, is fine. The management API has no such route: its updates name the
 * entity only in the body (`PUT /api/subjects`, …), as the reference's do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import {
  aDataMessage, aNotification, aProject, aStoredNotification, aSubject, call, errorBody, expectStatus, messagingPath,
} from '../fixtures/appserver.js';
import { messages, messageStateEvents, projects, users } from '../../src/appserver/schema.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const db = () => t.app.db.db;
const projectRow = async (projectId: string) => (await db().select().from(projects).where(eq(projects.projectId, projectId)))[0];
const userRow = async (id: number) => (await db().select().from(users).where(eq(users.id, id)))[0];
const messageRow = async (id: number) => (await db().select().from(messages).where(eq(messages.id, id)))[0];
const eventsOf = async (id: number) => db().select().from(messageStateEvents).where(eq(messageStateEvents.messageId, id));

describe('PUT /projects/{projectId}', () => {
  it('refuses a body id of another project with 400 and renames neither', async () => {
    const a = await projectRow(await aProject(t.app));
    const b = await projectRow(await aProject(t.app));
    const path = `/projects/${b!.projectId}`;
    const res = await call(t.app, 'PUT', path, { id: a!.id, projectId: 'renamed' });
    expect(expectStatus(res, 400)).toEqual(errorBody(400, `The id in the body (${a!.id}) does not match the project ${b!.projectId} (id ${b!.id})`, path));
    expect(await projectRow(a!.projectId)).toEqual(a);
    expect(await projectRow(b!.projectId)).toEqual(b);
    expect(await projectRow('renamed')).toBeUndefined();
  });

  it('renames the path\'s project when the body id is its own or absent', async () => {
    const b = await projectRow(await aProject(t.app));
    const renamed = `${b!.projectId}-x`;
    expect(expectStatus(await call(t.app, 'PUT', `/projects/${b!.projectId}`, { id: b!.id, projectId: renamed }), 200)).toMatchObject({ id: b!.id, projectId: renamed });
    expect(expectStatus(await call(t.app, 'PUT', `/projects/${renamed}`, { projectId: `${renamed}-y` }), 200)).toMatchObject({ id: b!.id, projectId: `${renamed}-y` });
  });

  it('answers 404 when the path names no project, whatever the body id', async () => {
    const a = await projectRow(await aProject(t.app));
    const res = await call(t.app, 'PUT', '/projects/no-such-project', { id: a!.id, projectId: 'renamed' });
    expect(expectStatus(res, 404)).toEqual(errorBody(404, 'Project not found with projectId no-such-project', '/projects/no-such-project'));
    expect(await projectRow(a!.projectId)).toEqual(a);
  });
});

describe('PUT /projects/{projectId}/users/{subjectId}', () => {
  it('accepts its own GET body back (id, projectId and subjectId repeat the path)', async () => {
    const s = await aSubject(t.app);
    const path = `/projects/${s.projectId}/users/${s.subjectId}`;
    const dto = expectStatus(await t.app.inject(path), 200) as Record<string, unknown>;
    expect(expectStatus(await call(t.app, 'PUT', path, { ...dto, language: 'nl' }), 200)).toMatchObject({ id: s.user.id, language: 'nl' });
  });

  it('refuses a body naming another user (id, subjectId or projectId) with 400 and changes neither', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app);
    const path = `/projects/${s.projectId}/users/${s.subjectId}`;
    const [mine, theirs] = [await userRow(s.user.id), await userRow(other.user.id)];
    const base = { enrolmentDate: '2024-05-01T00:00:00Z', timezone: 'UTC', language: 'xx', fcmToken: 'changed' };
    const cases: [Record<string, unknown>, string][] = [
      [{ id: other.user.id }, `The id in the body (${other.user.id}) does not match the user ${s.subjectId} (id ${s.user.id})`],
      [{ subjectId: other.subjectId }, `The subjectId in the body (${other.subjectId}) does not match the path (${s.subjectId})`],
      [{ projectId: other.projectId }, `The projectId in the body (${other.projectId}) does not match the path (${s.projectId})`],
    ];
    for (const [ids, message] of cases) {
      const res = await call(t.app, 'PUT', `${path}?forceFcmToken=true`, { ...base, ...ids });
      expect(expectStatus(res, 400)).toEqual(errorBody(400, message, path));
    }
    expect(await userRow(s.user.id)).toEqual(mine);
    expect(await userRow(other.user.id)).toEqual(theirs);
  });
});

describe('PUT …/messaging/notifications and …/messaging/data (the body id names a message of the path\'s user)', () => {
  it('answers 404 for another user\'s notification and changes it not', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app);
    const theirs = await aStoredNotification(t.app, other);
    const before = await messageRow(theirs.id);
    const res = await call(t.app, 'PUT', messagingPath(s), aNotification({ id: theirs.id, title: 'hijacked' }));
    expect(expectStatus(res, 404)).toEqual(errorBody(404, 'Notification does not exist. Please create first', messagingPath(s)));
    expect(await messageRow(theirs.id)).toEqual(before);
  });

  it('answers 404 for another user\'s data message and changes it not', async () => {
    const s = await aSubject(t.app);
    const other = await aSubject(t.app);
    const theirs = expectStatus(await call(t.app, 'POST', messagingPath(other, 'data'), aDataMessage()), 201) as { id: number };
    const before = await messageRow(theirs.id);
    const res = await call(t.app, 'PUT', messagingPath(s, 'data'), aDataMessage({ id: theirs.id, ttlSeconds: 7 }));
    expect(res.statusCode).toBe(404);
    expect(await messageRow(theirs.id)).toEqual(before);
  });
});

describe('POST …/notifications/{notificationId}/state_events', () => {
  it('refuses a body notificationId other than the path\'s with 400 and records nothing', async () => {
    const s = await aSubject(t.app);
    const first = await aStoredNotification(t.app, s);
    const second = await aStoredNotification(t.app, s);
    const [before1, before2] = [await eventsOf(first.id), await eventsOf(second.id)];
    const path = `${messagingPath(s)}/${first.id}/state_events`;
    const res = await call(t.app, 'POST', path, { notificationId: second.id, state: 'DELIVERED', time: '2030-01-01T00:00:00Z' });
    expect(expectStatus(res, 400)).toEqual(errorBody(400, `The notificationId in the body (${second.id}) does not match the path (${first.id})`, path));
    expect(await eventsOf(first.id)).toEqual(before1);
    expect(await eventsOf(second.id)).toEqual(before2);
  });

  it('accepts the questionnaire app\'s body, whose notificationId repeats the path', async () => {
    const s = await aSubject(t.app);
    const n = await aStoredNotification(t.app, s);
    expectStatus(await call(t.app, 'POST', `${messagingPath(s)}/${n.id}/state_events`, { notificationId: n.id, state: 'DELIVERED', time: '2030-01-01T00:00:00Z' }), 200);
  });
});
