/**
 * Schedule generation in the database (§6.4, fixed): on user create and update, Q1, a protocol
 * change; reconciliation that keeps task ids, status and completion; generated notifications on
 * the scheduler's normal path, linked to their tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';
import { until } from '../../helpers/eventually.js';
import { aProject, aSubject, call, errorBody, expectStatus, messagingPath } from '../../fixtures/appserver.js';
import { aProtocol, anAssessment } from '../../fixtures/protocols.js';
import type { FixedProtocols } from '../../fixtures/protocol-source.js';
import { aSubjectWithProtocol, buildScheduleTestApp, getTasks, schedulePath, storedNotifications, storedTasks } from './helpers.js';

let t: TestApp & { source: FixedProtocols };
let source: FixedProtocols;
beforeAll(async () => {
  t = await buildScheduleTestApp();
  source = t.source;
});
afterAll(async () => { await t.close(); });

const H = 3_600_000;
const userBody = (user: Record<string, unknown>) => ({
  enrolmentDate: new Date((user.enrolmentDate as number) * 1000).toISOString(), timezone: user.timezone, language: user.language,
  attributes: user.attributes, fcmToken: user.fcmToken,
});

describe('generation on user create', () => {
  it('stores 14 days of tasks per assessment (epoch-ms instants) and their notifications, SCHEDULED, with the reference fields', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const tasks = await getTasks(t.app, s);
    const now = Date.now();
    expect(tasks[0]).toEqual({
      id: expect.any(Number), completed: false, timestamp: expect.any(Number), name: expect.any(String), type: 'scheduled',
      estimatedCompletionTime: 5, completionWindow: H, warning: expect.stringMatching(/^Warning for /), isClinical: false,
      timeCompleted: null, showInCalendar: true, isDemo: false, priority: expect.any(Number), nquestions: 8, status: 'ADDED',
      createdAt: expect.any(Number), updatedAt: expect.any(Number),
    });
    expect(Math.abs(tasks[0]!.createdAt - now)).toBeLessThan(60_000); // milliseconds, not seconds
    expect(tasks.every((x) => x.timestamp >= now - 7 * 24 * H - 24 * H && x.timestamp < now + 8 * 24 * H)).toBe(true);
    expect(new Set(tasks.map((x) => x.name))).toEqual(new Set(['PHQ8', 'ESM', 'RSES']));

    const stored = await storedNotifications(t.app, s.user.id);
    const open = tasks.filter((x) => x.timestamp + x.completionWindow > now);
    expect(new Set(stored.map((m) => m.taskId))).toEqual(new Set(open.map((x) => x.id)));
    const future = stored.filter((m) => m.scheduledTime.getTime() > now);
    expect(future.length).toBeGreaterThan(30);
    for (const m of future) {
      const task = tasks.find((x) => x.id === m.taskId)!;
      expect(m).toMatchObject({ kind: 'notification', state: 'SCHEDULED', type: task.name, sourceType: 'Type', sourceId: 'id', appPackage: 'org.phidatalab.radar-armt' });
      // Seconds to the end of the task's window (the reference stored milliseconds).
      expect(m.ttlSeconds).toBe((task.timestamp + task.completionWindow - m.scheduledTime.getTime()) / 1000);
    }
    // Visible on the notifications API, with their ADDED and SCHEDULED events.
    const listed = expectStatus(await call(t.app, 'GET', messagingPath(s)), 200).notifications as { id: number; title: string }[];
    expect(listed).toHaveLength(stored.length);
    const events = expectStatus(await call(t.app, 'GET', `${messagingPath(s)}/${future[0]!.id}/state_events`), 200) as { state: string }[];
    expect(events.map((e) => e.state)).toEqual(['ADDED', 'SCHEDULED']);
  });

  it('a user without a protocol gets no tasks; the create still answers 201', async () => {
    const s = await aSubject(t.app);
    expect(await getTasks(t.app, s)).toEqual([]);
    expectStatus(await call(t.app, 'POST', schedulePath(s)), 201);
    expect(await getTasks(t.app, s)).toEqual([]);
  });

  it('a failing protocol source never fails the create; Q1 generates once it answers again', async () => {
    const projectId = await aProject(t.app);
    source.set(projectId, aProtocol(), { quiet: true });
    source.failing = true;
    try {
      const s = await aSubject(t.app, { projectId });
      expect(await getTasks(t.app, s)).toEqual([]);
      source.failing = false;
      expectStatus(await call(t.app, 'POST', schedulePath(s)), 201);
      expect(await getTasks(t.app, s)).toHaveLength(42);
    } finally {
      source.failing = false;
    }
  });
});

describe('Q1 POST …/questionnaire/schedule', () => {
  it('answers 201 with Location and no body, and changes nothing when nothing changed (same ids, no new notifications)', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const before = { tasks: await storedTasks(t.app, s.user.id), notifications: await storedNotifications(t.app, s.user.id) };
    const res = await call(t.app, 'POST', schedulePath(s));
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe('/questionnaire/schedule/');
    expect(res.body).toBe('');
    const after = { tasks: await storedTasks(t.app, s.user.id), notifications: await storedNotifications(t.app, s.user.id) };
    expect(after.tasks.map((x) => [x.id, x.updatedAt.getTime()])).toEqual(before.tasks.map((x) => [x.id, x.updatedAt.getTime()]));
    expect(after.notifications.map((m) => m.id)).toEqual(before.notifications.map((m) => m.id));
  });

  it('404 for an unknown project or subject', async () => {
    const projectId = await aProject(t.app);
    expect(expectStatus(await call(t.app, 'POST', `/projects/nope-${projectId}/users/x/questionnaire/schedule`), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', `/projects/nope-${projectId}/users/x/questionnaire/schedule`));
    expect(expectStatus(await call(t.app, 'POST', `/projects/${projectId}/users/x/questionnaire/schedule`), 404))
      .toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', `/projects/${projectId}/users/x/questionnaire/schedule`));
  });
});

describe('generation on user update', () => {
  it('a time zone change replaces future tasks that have not started, with their notifications; completed and past ones stay', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const now = Date.now();
    const before = await getTasks(t.app, s);
    const future = before.filter((x) => x.timestamp > now);
    const done = future[0]!;
    expectStatus(await call(t.app, 'POST', `${schedulePath(s)}/${done.id}/state_events`, { taskId: done.id, state: 'COMPLETED', time: new Date().toISOString(), associatedInfo: '' }), 200);
    // The notifications of tasks that have not started (a started task's reminders stay with it).
    const replaced = new Set(future.filter((x) => x.id !== done.id && x.timestamp > now + 60_000).map((x) => x.id));
    const oldNotifications = (await storedNotifications(t.app, s.user.id)).filter((m) => replaced.has(m.taskId!));
    expect(oldNotifications.length).toBeGreaterThan(30);

    expectStatus(await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, { ...userBody(s.user), timezone: 'America/New_York' }), 200);
    await until(async () => {
      const tasks = await getTasks(t.app, s);
      expect(tasks.filter((x) => x.timestamp > now + 60_000).every((x) => x.id === done.id || !future.some((f) => f.id === x.id))).toBe(true);
    });
    const after = await getTasks(t.app, s);
    expect(after.find((x) => x.id === done.id)).toMatchObject({ completed: true, status: 'COMPLETED' });
    for (const past of before.filter((x) => x.timestamp <= now)) expect(after.some((x) => x.id === past.id)).toBe(true);
    // New York 09:00 is 13:00 or 14:00 UTC.
    const moved = after.filter((x) => x.timestamp > now + 24 * H && x.name === 'PHQ8');
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.every((x) => [13, 14].includes(new Date(x.timestamp).getUTCHours()))).toBe(true);
    // The replaced tasks' unsent notifications are gone (never sent), the new tasks have theirs.
    const notifications = await storedNotifications(t.app, s.user.id);
    for (const old of oldNotifications) expect(notifications.some((m) => m.id === old.id)).toBe(false);
    const linked = new Set(notifications.map((m) => m.taskId));
    expect(after.filter((x) => x.timestamp > now + 24 * H).filter((x) => !linked.has(x.id))).toEqual([]);
  });

  it('a language change keeps the tasks and re-words their unsent notifications', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const ids = (await getTasks(t.app, s)).map((x) => x.id);
    expectStatus(await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, { ...userBody(s.user), language: 'nl' }), 200);
    await until(async () => {
      // Beyond the window of any task that has started (an hour): those keep their texts.
      const future = (await storedNotifications(t.app, s.user.id)).filter((m) => m.scheduledTime.getTime() > Date.now() + 2 * H);
      expect(future.length).toBeGreaterThan(0);
      expect(future.every((m) => m.title!.startsWith('Tijd voor '))).toBe(true);
    });
    expect((await getTasks(t.app, s)).map((x) => x.id)).toEqual(ids);
  });

  it('a no-op update changes nothing', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const before = { tasks: await storedTasks(t.app, s.user.id), notifications: await storedNotifications(t.app, s.user.id) };
    expectStatus(await call(t.app, 'PUT', `/projects/${s.projectId}/users/${s.subjectId}`, userBody(s.user)), 200);
    expectStatus(await call(t.app, 'POST', schedulePath(s)), 201); // and Q1 after it
    const after = { tasks: await storedTasks(t.app, s.user.id), notifications: await storedNotifications(t.app, s.user.id) };
    expect(after.tasks).toEqual(before.tasks);
    expect(after.notifications.map((m) => [m.id, m.state, m.dedupeKey])).toEqual(before.notifications.map((m) => [m.id, m.state, m.dedupeKey]));
  });
});

describe('generation on a protocol change', () => {
  it('a removed assessment loses its future tasks and their notifications; an added one gets its own', async () => {
    const projectId = await aProject(t.app);
    const protocol = aProtocol();
    source.set(projectId, protocol, { quiet: true });
    const s = await aSubject(t.app, { projectId });
    await until(async () => expect(await getTasks(t.app, s)).toHaveLength(42));
    const now = Date.now();
    const next = aProtocol([...protocol.protocols!.filter((a) => a.name !== 'RSES'), anAssessment('NEW', { protocol: { repeatQuestionnaire: { unit: 'hour', unitsFromZero: [15] } } })], '1.0.1');
    source.set(projectId, next);
    await until(async () => {
      const tasks = await getTasks(t.app, s);
      expect(tasks.some((x) => x.name === 'NEW')).toBe(true);
      expect(tasks.filter((x) => x.name === 'RSES' && x.timestamp > now + 60_000)).toEqual([]);
    });
    const notifications = await storedNotifications(t.app, s.user.id);
    // (A started RSES task keeps its reminder: an hour's window.)
    expect(notifications.filter((m) => m.type === 'RSES' && m.scheduledTime.getTime() > now + 2 * H)).toEqual([]);
    expect(notifications.some((m) => m.type === 'NEW')).toBe(true);
  });
});

describe('Q2 PUT …/questionnaire/schedule', () => {
  it('adds the tasks of one assessment of the protocol: 201', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const assessment = anAssessment('PHQ8', { protocol: { repeatQuestionnaire: { unit: 'hour', unitsFromZero: [21] } } });
    const res = await call(t.app, 'PUT', schedulePath(s), assessment);
    expect(res.statusCode).toBe(201);
    const tasks = await getTasks(t.app, s);
    expect(tasks.filter((x) => x.name === 'PHQ8')).toHaveLength(28);
  });

  it('404 when the assessment is not in the protocol, or the subject has no protocol', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    expect(expectStatus(await call(t.app, 'PUT', schedulePath(s), anAssessment('Unknown')), 404))
      .toEqual(errorBody(404, 'Assessment not found in protocol. Add assessment to protocol first.', schedulePath(s)));
    const none = await aSubject(t.app);
    expect(expectStatus(await call(t.app, 'PUT', schedulePath(none), anAssessment('PHQ8')), 404))
      .toEqual(errorBody(404, 'No protocol found for the subject. Add a protocol for the project first.', schedulePath(none)));
    expect(expectStatus(await call(t.app, 'PUT', schedulePath(s), { type: 'scheduled' }), 400)).toMatchObject({ status: 400 });
  });
});
