/**
 * An expected outage is one warning (issue 30 item 9): with GitHub unreachable and no protocol
 * stored, the users created meanwhile log one WARN when the outage starts, no error each; the
 * first read that works logs one line that it is over, and the users who waited get their
 * schedules. Failures of another kind are still errors. The GitHub stub serves the protocols; the
 * retry duration is 0, so every generation asks it again (the outage is still one warning).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { loggerOptions } from '../../../src/platform/logging.js';
import type { ProtocolSource } from '../../../src/appserver/schedules/protocol.js';
import { buildTestApp, testDatabase, type TestApp } from '../../helpers/build-test-app.js';
import { startGithubStub, type GithubStub } from '../../helpers/github-stub.js';
import { captureLog, type LogLine } from '../../helpers/log-capture.js';
import { until } from '../../helpers/eventually.js';
import { aProject, aSubject, unique, type Subject } from '../../fixtures/appserver.js';
import { aProtocolText } from '../../fixtures/protocols.js';
import { getTasks } from './helpers.js';

const WARN = 40;
const ERROR = 50;
const captured = captureLog();
let github: GithubStub;
let t: TestApp;

beforeAll(async () => {
  github = await startGithubStub();
  github.fault = () => 'reset'; // down from the start: nothing is ever stored
  t = await buildTestApp(
    { GITHUB_API_URL: github.url, SECURITY_GITHUB_CACHE_RETRYDURATION: '0', QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0' },
    { logger: loggerOptions('debug', captured.stream) },
  );
});
afterAll(async () => {
  await t?.close();
  await github?.close();
});

const lines = (from: number, level: number) => captured.lines().slice(from).filter((l) => l.level === level);
const atLeast = (from: number, level: number) => captured.lines().slice(from).filter((l) => l.level >= level);
const waiting = (from: number) => captured.lines().slice(from).filter((l: LogLine) => l.msg === 'schedule generation after a user change failed: protocols unreachable, waiting for them');

describe('GitHub outage during schedule generation', () => {
  it('logs one warning when it starts, no error per user; one line when it ends, and the waiting users get their schedules', async () => {
    const from = captured.lines().length;
    const projectId = await aProject(t.app);
    github.setFiles({ [`${projectId}/protocol.json`]: aProtocolText(projectId) });

    const during: Subject[] = [];
    // Two rounds: the second asks GitHub again (users created while an attempt runs join it).
    for (let i = 0; i < 3; i++) during.push(await aSubject(t.app, { projectId }));
    await until(() => expect(waiting(from)).toHaveLength(3));
    const asked = github.requests.length;
    for (let i = 0; i < 3; i++) during.push(await aSubject(t.app, { projectId }));
    await until(() => expect(waiting(from)).toHaveLength(6));
    expect(github.requests.length).toBeGreaterThan(asked);
    const warnings = lines(from, WARN);
    expect(warnings).toEqual([expect.objectContaining({ msg: expect.stringContaining('protocols cannot be read from GitHub and none is stored') })]);
    expect(atLeast(from, ERROR)).toEqual([]);
    expect(await getTasks(t.app, during[0]!)).toEqual([]);

    github.fault = () => undefined;
    const after = await aSubject(t.app, { projectId });
    await until(async () => expect((await getTasks(t.app, after)).length).toBeGreaterThan(0));
    // The refresh that ended the outage stored the protocols; their change event generates the users who waited.
    for (const s of during) await until(async () => expect((await getTasks(t.app, s)).length).toBeGreaterThan(0));
    expect(lines(from, WARN).map((l) => l.msg)).toEqual([
      expect.stringContaining('protocols cannot be read from GitHub and none is stored'),
      'protocols read from GitHub again: the outage is over',
    ]);
    expect(lines(from, WARN)[1]).toMatchObject({ failedAttempts: expect.any(Number), outageSeconds: expect.any(Number) });
    expect(atLeast(from, ERROR)).toEqual([]);
  });

  it('still logs a failure of another kind as an error, for each user', async () => {
    const log = captureLog();
    const broken: ProtocolSource = { forUser: async () => { throw new Error('protocol source broke'); }, onChange: () => () => {} };
    const db = await testDatabase();
    const app = await buildApp(loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0', ...db.env }, '0.0.0-test'), {
      logger: loggerOptions('info', log.stream), demoData: false, pgliteDataDir: db.pgliteDataDir, protocolSource: broken,
    });
    try {
      await app.ready();
      const projectId = await aProject(app);
      const subjects = [await aSubject(app, { projectId }), await aSubject(app, { projectId, body: { subjectId: unique('sub') } })];
      await until(() => expect(log.lines().filter((l) => l.level === ERROR)).toHaveLength(2));
      expect(log.lines().filter((l) => l.level === ERROR)).toEqual(subjects.map((s) => expect.objectContaining({
        msg: 'schedule generation after a user change failed', projectId, subjectId: s.subjectId, reason: 'protocol source broke',
      })));
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
