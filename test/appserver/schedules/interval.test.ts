/**
 * The interval run (item 10) and restarts: one instance of all claims each run (job lease), an
 * unchanged run writes nothing, a user's failure is logged and the run goes on, and a restart
 * keeps task ids and completion. On PGlite and on PostgreSQL; two instances need PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { buildApp } from '../../../src/app.js';
import { appserverEvents } from '../../../src/appserver/events.js';
import { executedRows } from '../../../src/platform/database.js';
import { createScheduleService } from '../../../src/appserver/schedules/service.js';
import type { ProtocolSource } from '../../../src/appserver/schedules/protocol.js';
import { onPostgres, testDatabase } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { aProject, aSubject, call, expectStatus } from '../../fixtures/appserver.js';
import { aProtocol } from '../../fixtures/protocols.js';
import { fixedProtocols, type FixedProtocols } from '../../fixtures/protocol-source.js';
import { database, getTasks, schedulePath, storedNotifications, storedTasks } from './helpers.js';
import { postgresProject, requires } from '../../helpers/requires.js';

const HOUR = 3_600_000;
let source: FixedProtocols;
let db: Awaited<ReturnType<typeof testDatabase>>;
let dataDir: Blob | undefined;
let app: FastifyInstance;

const env = () => ({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0', ...db.env });

/** Starts the service on the test database (PGlite: from the data directory the last stop left). */
async function start(options: { protocolSource?: ProtocolSource } = {}) {
  const instance = await buildApp(loadConfig(env(), '0.0.0-test'), { logger: false, demoData: false, pgliteDataDir: dataDir, protocolSource: source, ...options });
  await instance.ready();
  return instance;
}

/** Stops the service; PGlite keeps its data directory for the next start, as a disk would. */
async function stop(instance: FastifyInstance) {
  if (!onPostgres()) dataDir = await (database(instance) as unknown as { $client: { dumpDataDir(): Promise<Blob> } }).$client.dumpDataDir();
  await instance.close();
}

function service(instance: FastifyInstance, opts: { clock?: () => Date; protocols?: ProtocolSource; log?: pino.Logger } = {}) {
  return createScheduleService({
    db: database(instance), events: appserverEvents(instance.events), protocols: opts.protocols ?? source,
    log: opts.log ?? pino({ level: 'silent' }), clock: opts.clock,
  });
}

/** Row counts and the latest change of the schedule tables (an unchanged run must leave them as they are). */
async function snapshot(instance: FastifyInstance) {
  const rows = executedRows(await database(instance).execute(sql`select
    (select count(*)::int from appserver.tasks) as tasks, (select max(updated_at) from appserver.tasks)::text as tasks_updated,
    (select count(*)::int from appserver.messages) as messages, (select max(updated_at) from appserver.messages)::text as messages_updated,
    (select count(*)::int from appserver.message_state_events) as events,
    (select string_agg(user_id || ':' || coalesce(covered_until::text, '') || ':' || coalesce(generated_at::text, ''), ',' order by user_id) from appserver.schedule_inputs) as inputs`));
  return rows[0];
}

beforeAll(async () => {
  source = fixedProtocols();
  db = await testDatabase();
  dataDir = db.pgliteDataDir;
  app = await start();
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function subjects(n: number) {
  const projectId = await aProject(app);
  source.set(projectId, aProtocol(), { quiet: true });
  const all = [];
  for (let i = 0; i < n; i++) all.push(await aSubject(app, { projectId }));
  return all;
}

describe('the interval run', () => {
  it('one claim per interval; a run with nothing changed writes nothing; the next interval adds the repeats that entered the window', async () => {
    const users = await subjects(3);
    // Runs at 12:00Z and 13:00Z: no London midnight (23:00Z or 00:00Z) enters the window between them.
    let now = new Date(Math.ceil((Date.now() + HOUR) / (24 * HOUR)) * 24 * HOUR + 12 * HOUR);
    if (now.getTime() - Date.now() > 25 * HOUR) now = new Date(now.getTime() - 24 * HOUR);
    const schedules = service(app, { clock: () => now });
    const first = await schedules.runInterval('instance-a', HOUR);
    expect(first).toMatchObject({ failed: 0 });
    for (const s of users) expect((await getTasks(app, s)).length).toBeGreaterThanOrEqual(42);

    // Within the interval nobody runs again, this instance or another.
    expect(await schedules.runInterval('instance-a', HOUR)).toBeUndefined();
    expect(await service(app, { clock: () => now }).runInterval('instance-b', HOUR)).toBeUndefined();

    // An hour later: it runs, and with nothing changed (no repeat entered the window) writes nothing.
    const before = await snapshot(app);
    now = new Date(now.getTime() + HOUR);
    const lookups = source.lookups;
    const second = await service(app, { clock: () => now }).runInterval('instance-b', HOUR);
    expect(second).toMatchObject({ generated: 0, failed: 0 });
    expect(second!.users).toBeGreaterThanOrEqual(3);
    expect(source.lookups - lookups).toBe(second!.users);
    expect(await snapshot(app)).toEqual(before);

    // A day later: the one day that entered the window is added; existing tasks keep their ids.
    const ids = await storedTasks(app, users[0]!.user.id);
    now = new Date(now.getTime() + 24 * HOUR);
    const third = await service(app, { clock: () => now }).runInterval('instance-a', HOUR);
    expect(third!.generated).toBeGreaterThanOrEqual(3);
    const after = await storedTasks(app, users[0]!.user.id);
    expect(after).toHaveLength(ids.length + 3);
    expect(after.slice(0, ids.length)).toEqual(ids);
  });

  it("a user's failure is logged and the run goes on", async () => {
    const [good] = await subjects(1);
    const bad = await aSubject(app); // a project of its own
    const log = captureLog();
    const failing: ProtocolSource = {
      forUser: async (projectId, subjectId, attributes) => {
        if (projectId === bad.projectId) throw new Error('cannot read protocol');
        return source.forUser(projectId, subjectId, attributes);
      },
      onChange: () => () => {},
    };
    const schedules = service(app, { clock: () => new Date(Date.now() + 48 * HOUR), protocols: failing, log: pino({ level: 'info' }, log.stream) });
    const result = await schedules.runForProtocolChange();
    expect(result.failed).toBe(1);
    expect(await getTasks(app, good!)).not.toEqual([]);
    expect(log.lines().find((l) => l.msg === 'schedule generation failed for a user')).toMatchObject({ level: 50, projectId: bad.projectId, subjectId: bad.subjectId, reason: 'cannot read protocol' });
  });
});

describe('restart', () => {
  it('keeps task ids, completion and notifications; the runs after it change nothing', async () => {
    const [s] = await subjects(1);
    await expect.poll(async () => (await getTasks(app, s!)).length).toBe(42);
    const task = (await getTasks(app, s!)).find((x) => x.timestamp > Date.now())!;
    expectStatus(await call(app, 'POST', `${schedulePath(s!)}/${task.id}/state_events`, { taskId: task.id, state: 'COMPLETED', time: new Date().toISOString(), associatedInfo: '' }), 200);
    const before = { tasks: await storedTasks(app, s!.user.id), notifications: await storedNotifications(app, s!.user.id) };

    await stop(app);
    app = await start();
    expect(await storedTasks(app, s!.user.id)).toEqual(before.tasks);
    expectStatus(await call(app, 'POST', schedulePath(s!)), 201);
    await service(app).runForProtocolChange();
    const after = { tasks: await storedTasks(app, s!.user.id), notifications: await storedNotifications(app, s!.user.id) };
    expect(after.tasks).toEqual(before.tasks);
    expect(after.tasks.find((x) => x.id === task.id)).toMatchObject({ completed: true, status: 'COMPLETED' });
    expect(after.notifications.map((m) => [m.id, m.state])).toEqual(before.notifications.map((m) => [m.id, m.state]));
  });
});

describe('two instances on one PostgreSQL', requires(postgresProject), () => {
  it('share one interval run, and serialise one user\'s generations', async () => {
    const users = await subjects(4);
    const other = await start();
    try {
      const now = () => new Date(Date.now() + 10 * 24 * HOUR);
      const results = await Promise.all([service(app, { clock: now }).runInterval('a', HOUR), service(other, { clock: now }).runInterval('b', HOUR)]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      for (const s of users) expect((await getTasks(app, s)).length).toBeGreaterThan(0);

      // The same user generated by both at once: no error, no duplicate, the same result as one.
      const [fresh] = await subjects(1);
      await expect.poll(async () => (await getTasks(app, fresh!)).length).toBe(42);
      await expectStatus(await call(app, 'DELETE', schedulePath(fresh!)), 200);
      await Promise.all([service(app).generateForUser(fresh!.user.id, 'full'), service(other).generateForUser(fresh!.user.id, 'full')]);
      expect(await getTasks(app, fresh!)).toHaveLength(42);
      expect(new Set((await storedNotifications(app, fresh!.user.id)).map((m) => m.dedupeKey)).size).toBe((await storedNotifications(app, fresh!.user.id)).length);
    } finally {
      await other.close();
    }
  });
});
