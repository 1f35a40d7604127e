/** Tasks (Q3, Q4) and their state events (T1–T3), as aRMT calls them (clients.md §2.1). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';
import { aSubject, call, errorBody, expectStatus, messagingPath } from '../../fixtures/appserver.js';
import { aProtocol, anAssessment } from '../../fixtures/protocols.js';
import type { FixedProtocols } from '../../fixtures/protocol-source.js';
import { aSubjectWithProtocol, buildScheduleTestApp, getTasks, schedulePath, storedNotifications, storedTasks } from '../schedules/helpers.js';

let t: TestApp & { source: FixedProtocols };
let source: FixedProtocols;
beforeAll(async () => {
  t = await buildScheduleTestApp();
  source = t.source;
});
afterAll(async () => { await t.close(); });

const H = 3_600_000;
const mixed = () => aProtocol([
  anAssessment('PHQ8', { order: 0 }),
  anAssessment('ESM', { type: 'triggered', protocol: { repeatQuestionnaire: { unit: 'hour', unitsFromZero: [12] }, completionWindow: { unit: 'hour', amount: 6 } } }),
]);

describe('Q3 GET …/questionnaire/schedule', () => {
  it('startTime and endTime (ISO, as aRMT sends them): tasks whose window overlaps', async () => {
    const s = await aSubjectWithProtocol(t.app, source, mixed(), 28);
    const all = await getTasks(t.app, s);
    const esm = all.find((x) => x.name === 'ESM' && x.timestamp > Date.now() + 24 * H)!;
    // A range starting 5 h into an ESM window (6 h long) and ending before the next task.
    const start = new Date(esm.timestamp + 5 * H).toISOString();
    const end = new Date(esm.timestamp + 5 * H + 60_000).toISOString();
    const inRange = await getTasks(t.app, s, `?startTime=${start}&endTime=${end}`);
    expect(inRange.map((x) => x.id)).toEqual([esm.id]);
    const wide = await getTasks(t.app, s, `?startTime=${new Date(esm.timestamp - 24 * H).toISOString()}&endTime=${new Date(esm.timestamp).toISOString()}`);
    expect(wide.map((x) => x.id)).toEqual(all.filter((x) => x.timestamp <= esm.timestamp && x.timestamp + x.completionWindow >= esm.timestamp - 24 * H).map((x) => x.id));
    expect(wide.length).toBeGreaterThanOrEqual(3);
  });

  it('type is case-insensitive; an unknown type is 400', async () => {
    const s = await aSubjectWithProtocol(t.app, source, mixed(), 28);
    expect(new Set((await getTasks(t.app, s, '?type=TRIGGERED')).map((x) => x.name))).toEqual(new Set(['ESM']));
    expect(new Set((await getTasks(t.app, s, '?type=Scheduled')).map((x) => x.name))).toEqual(new Set(['PHQ8']));
    expect(await getTasks(t.app, s, '?type=clinical')).toEqual([]);
    expect(await getTasks(t.app, s, '?type=all')).toHaveLength(28);
    expect(expectStatus(await call(t.app, 'GET', `${schedulePath(s)}?type=weekly`), 400))
      .toEqual(errorBody(400, 'Invalid task type weekly; use scheduled, clinical, triggered or all', schedulePath(s)));
  });

  it('search: key:value contains (strings) or equals; key>value ≥ and key<value ≤; bad keys and values are 400', async () => {
    const s = await aSubjectWithProtocol(t.app, source, mixed(), 28);
    const all = await getTasks(t.app, s);
    expect(new Set((await getTasks(t.app, s, '?search=name:HQ')).map((x) => x.name))).toEqual(new Set(['PHQ8']));
    expect(await getTasks(t.app, s, '?search=name:HQ,priority:1')).toEqual([]);
    const mid = all[10]!.timestamp;
    expect(await getTasks(t.app, s, `?search=timestamp>${mid}`)).toEqual(all.filter((x) => x.timestamp >= mid));
    expect(await getTasks(t.app, s, `?search=timestamp<${mid},name:ESM`)).toEqual(all.filter((x) => x.timestamp <= mid && x.name === 'ESM'));
    expect(await getTasks(t.app, s, '?search=completed:false&type=triggered')).toHaveLength(14);
    expect(await getTasks(t.app, s, '?search=not a term')).toHaveLength(28);
    expect(expectStatus(await call(t.app, 'GET', `${schedulePath(s)}?search=colour:red`), 400)).toMatchObject({ status: 400, message: expect.stringContaining('Unknown search key colour') });
    expect(expectStatus(await call(t.app, 'GET', `${schedulePath(s)}?search=priority:high`), 400)).toMatchObject({ status: 400, message: 'The search value of priority must be an integer, got high' });
  });

  it('400 for an unreadable startTime; 404 for an unknown subject', async () => {
    const s = await aSubjectWithProtocol(t.app, source, mixed(), 28);
    expect(expectStatus(await call(t.app, 'GET', `${schedulePath(s)}?startTime=yesterday&endTime=2030-01-01T00:00:00Z`), 400)).toMatchObject({ status: 400, message: expect.stringContaining('startTime') });
    const path = `/projects/${s.projectId}/users/nobody/questionnaire/schedule`;
    expect(expectStatus(await call(t.app, 'GET', path), 404)).toEqual(errorBody(404, 'The supplied Subject ID is invalid. No user found. Please Create a User First.', path));
  });
});

describe('Q4 DELETE …/questionnaire/schedule', () => {
  it("deletes the matching tasks and cancels their unsent notifications; others stay", async () => {
    const s = await aSubjectWithProtocol(t.app, source, mixed(), 28);
    const res = await call(t.app, 'DELETE', `${schedulePath(s)}?type=triggered`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(new Set((await getTasks(t.app, s)).map((x) => x.name))).toEqual(new Set(['PHQ8']));
    const notifications = await storedNotifications(t.app, s.user.id);
    expect(notifications.some((m) => m.type === 'ESM')).toBe(false);
    expect(notifications.some((m) => m.type === 'PHQ8')).toBe(true);
    expectStatus(await call(t.app, 'DELETE', schedulePath(s)), 200);
    expect(await getTasks(t.app, s)).toEqual([]);
    expect((expectStatus(await call(t.app, 'GET', messagingPath(s)), 200) as { notifications: unknown[] }).notifications).toEqual([]);
  });
});

describe('T1–T3 task state events', () => {
  const completed = (taskId: number, time = '2026-06-15T09:10:00.000Z') => ({ taskId, state: 'COMPLETED', time, associatedInfo: '' });

  it("aRMT's COMPLETED: 200 with the events incl. the new one; the task is completed at the event time and its unsent notifications are cancelled", async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const task = (await getTasks(t.app, s)).find((x) => x.timestamp > Date.now())!;
    expect((await storedNotifications(t.app, s.user.id)).some((m) => m.taskId === task.id)).toBe(true);
    const res = await call(t.app, 'POST', `${schedulePath(s)}/${task.id}/state_events`, completed(task.id));
    expect(expectStatus(res, 200)).toEqual([{ id: expect.any(Number), taskId: task.id, state: 'COMPLETED', time: 1781514600, associatedInfo: null }]);
    const stored = (await storedTasks(t.app, s.user.id)).find((x) => x.id === task.id)!;
    expect(stored).toMatchObject({ completed: true, status: 'COMPLETED', timeCompleted: new Date('2026-06-15T09:10:00.000Z') });
    expect((await getTasks(t.app, s)).find((x) => x.id === task.id)).toMatchObject({ completed: true, status: 'COMPLETED', timeCompleted: 1781514600000 });
    expect((await storedNotifications(t.app, s.user.id)).some((m) => m.taskId === task.id)).toBe(false);
    // T1 and T2 list it.
    const events = expectStatus(await call(t.app, 'GET', `/questionnaire/schedule/${task.id}/state_events`), 200);
    expect(events).toEqual(expectStatus(res, 200));
    expect(expectStatus(await call(t.app, 'GET', `${schedulePath(s)}/${task.id}/state_events`), 200)).toEqual(events);
  });

  it('UNKNOWN and ERRORED (associatedInfo optional) are recorded without completing; other states are 400', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const task = (await getTasks(t.app, s))[0]!;
    const path = `${schedulePath(s)}/${task.id}/state_events`;
    expectStatus(await call(t.app, 'POST', path, { state: 'UNKNOWN', time: '2026-06-15T09:00:00Z' }), 200);
    const list = expectStatus(await call(t.app, 'POST', path, { state: 'ERRORED', time: '2026-06-15T09:01:00Z', associatedInfo: '{"reason":"crash"}' }), 200);
    expect(list.map((e: { state: string; associatedInfo: string | null }) => [e.state, e.associatedInfo])).toEqual([['UNKNOWN', null], ['ERRORED', '{"reason":"crash"}']]);
    expect((await getTasks(t.app, s))[0]).toMatchObject({ completed: false, status: 'ADDED' });
    for (const state of ['ADDED', 'SCHEDULED', 'DONE']) {
      expect(expectStatus(await call(t.app, 'POST', path, { state, time: '2026-06-15T09:00:00Z' }), 400))
        .toEqual(errorBody(400, `The state ${state} is not an external state and cannot be updated by this endpoint.`, path));
    }
    expect(expectStatus(await call(t.app, 'POST', path, { taskId: task.id + 1, state: 'UNKNOWN' }), 400)).toMatchObject({ status: 400 });
  });

  it("unknown task or another user's task: 404; T1 for an unknown id: 404", async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const other = await aSubject(t.app, { projectId: s.projectId });
    const task = (await getTasks(t.app, s))[0]!;
    for (const [method, body] of [['GET', undefined], ['POST', completed(task.id)]] as const) {
      const path = `${schedulePath(other)}/${task.id}/state_events`;
      expect(expectStatus(await call(t.app, method, path, body), 404)).toEqual(errorBody(404, `Task not found with id ${task.id}`, path));
    }
    expect((await getTasks(t.app, s))[0]).toMatchObject({ completed: false });
    // Issue 21 item 7: an id route answers 404 for an unknown id (the reference answered []).
    const unknown = '/questionnaire/schedule/999999999/state_events';
    expect(expectStatus(await call(t.app, 'GET', unknown), 404)).toEqual(errorBody(404, 'Task not found with id 999999999', unknown));
  });

  it('a 21st event is 409', async () => {
    const s = await aSubjectWithProtocol(t.app, source, aProtocol(), 42);
    const task = (await getTasks(t.app, s))[0]!;
    const path = `${schedulePath(s)}/${task.id}/state_events`;
    for (let i = 0; i < 20; i++) expectStatus(await call(t.app, 'POST', path, { state: 'UNKNOWN', time: new Date(Date.UTC(2026, 5, 15, 9, i)).toISOString() }), 200);
    expect(expectStatus(await call(t.app, 'POST', path, completed(task.id)), 409))
      .toEqual(errorBody(409, 'The max limit of state changes(20) has been reached. Cannot add new states.', path));
    expect((await getTasks(t.app, s))[0]).toMatchObject({ completed: false });
  });
});
