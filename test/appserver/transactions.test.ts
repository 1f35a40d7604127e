/**
 * No transaction stays open across work that does not need it (issue 30 item 7: in a soak, 8 of
 * 10 connections sat "idle in transaction" while the event loop was busy). The CPU work of a
 * batch (building its rows) and of a schedule generation (planning it from the protocol) runs
 * before the transaction opens; the lists open none. Checked on the code path: the services run
 * on a view of the database that counts the transactions open, and the work reports whether one
 * was open while it ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Database } from '../../src/platform/database.js';
import { appserverEvents } from '../../src/appserver/events.js';
import { createMessageService } from '../../src/appserver/messages/service.js';
import { notificationCodec } from '../../src/appserver/notifications/codec.js';
import { createScheduleService } from '../../src/appserver/schedules/service.js';
import type { Protocol, ProtocolSource } from '../../src/appserver/schedules/protocol.js';
import type { FcmNotificationBodyT, FcmNotificationDtoT } from '../../src/appserver/notifications/schemas.js';
import type { MessageCodec } from '../../src/appserver/messages/service.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { aNotification, aProject, aSubject } from '../fixtures/appserver.js';
import { aProtocol } from '../fixtures/protocols.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS: '0' }); });
afterAll(async () => { await t.close(); });

/** The app's database, counting the transactions open (`open`) and the ones begun (`begun`). */
function counted(db: Database) {
  const state = { open: 0, begun: 0 };
  const view = new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return (fn: (tx: unknown) => Promise<unknown>, ...rest: unknown[]) => (target.transaction as (...a: unknown[]) => Promise<unknown>)(async (tx: unknown) => {
          state.open++;
          state.begun++;
          try { return await fn(tx); } finally { state.open--; }
        }, ...rest);
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: view as Database, state };
}

describe('transactions', () => {
  it('a batch builds its rows before storing them in one statement (no transaction); a single add before its transaction opens', async () => {
    const { db, state } = counted(t.app.db.db as Database);
    const builtIn: number[] = [];
    const codec: MessageCodec<FcmNotificationBodyT, FcmNotificationDtoT> = {
      ...notificationCodec,
      toRow: (body) => { builtIn.push(state.open); return notificationCodec.toRow(body); },
    };
    const service = createMessageService(codec, { db, events: appserverEvents(t.app.events) });
    const s = await aSubject(t.app);
    const stored = await service.addBatch(s.projectId, s.subjectId, [aNotification(), aNotification(), aNotification()] as FcmNotificationBodyT[], { schedule: true });
    expect(stored).toHaveLength(3);
    expect(builtIn).toEqual([0, 0, 0]);
    expect(state.begun).toBe(0); // rows and state events commit together as one statement

    await service.add(s.projectId, s.subjectId, aNotification() as FcmNotificationBodyT, { schedule: true });
    expect(builtIn).toEqual([0, 0, 0, 0]);
    expect(state.begun).toBe(1);
  });

  it('the lists open no transaction', async () => {
    const { db, state } = counted(t.app.db.db as Database);
    const service = createMessageService(notificationCodec, { db, events: appserverEvents(t.app.events) });
    const s = await aSubject(t.app);
    await service.listOfUserJson(s.projectId, s.subjectId);
    await service.listOfProject(s.projectId, { all: true } as never);
    expect(state.begun).toBe(0);
  });

  it('a schedule generation plans outside its transaction', async () => {
    const { db, state } = counted(t.app.db.db as Database);
    const readIn: number[] = [];
    const protocol = aProtocol();
    // Planning reads the protocol's assessments; the getter tells whether a transaction was open then.
    const watched = Object.defineProperty({ ...protocol }, 'protocols', { get: () => { readIn.push(state.open); return protocol.protocols; } }) as Protocol;
    const source: ProtocolSource = { forUser: async () => ({ protocol: watched, version: 'v1' }), onChange: () => () => {} };
    const schedules = createScheduleService({ db, events: appserverEvents(t.app.events), protocols: source, log: pino({ level: 'silent' }) });
    const projectId = await aProject(t.app);
    const s = await aSubject(t.app, { projectId });
    const result = await schedules.generate(projectId, s.subjectId);
    expect(result.added).toBeGreaterThan(0);
    expect(readIn.length).toBeGreaterThan(0);
    expect(readIn.every((open) => open === 0)).toBe(true);
    expect(state.begun).toBe(1);
    // Unchanged inputs on the next run: nothing planned again inside, nothing written.
    readIn.length = 0;
    expect(await schedules.generate(projectId, s.subjectId)).toEqual({ added: 0, deleted: 0, notifications: 0, cancelled: 0 });
    expect(readIn.every((open) => open === 0)).toBe(true);
  });
});
