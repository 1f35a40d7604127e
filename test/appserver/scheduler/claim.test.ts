/**
 * What a claim takes (claim.ts): due SCHEDULED messages whose lease is free or has ended, oldest
 * first; never the ones another claimer holds, nor a retry before its time. The due index is on
 * when a message may next be claimed (issue 30 item 4), so these are also the look-ahead's rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../src/platform/database.js';
import { messages } from '../../../src/appserver/schema.js';
import { claimDueMessages } from '../../../src/appserver/scheduler/claim.js';
import { findNextDueTime } from '../../../src/appserver/scheduler/queries.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { aStoredNotification, aSubject } from '../../fixtures/appserver.js';

let t: TestApp;
let db: Database;
beforeAll(async () => {
  t = await buildTestApp();
  db = t.app.db.db as Database;
});
afterAll(async () => { await t.close(); });

const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000);

describe('claiming due messages', () => {
  it('takes the due ones oldest first, skips what another claimer holds, and takes back an ended lease', async () => {
    const s = await aSubject(t.app);
    const base = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000); // an hour ahead: no other file's rows fall due
    const ids: number[] = [];
    for (const offset of [3, 1, 2, 30]) {
      ids.push((await aStoredNotification(t.app, s, { scheduledTime: at(base, offset).toISOString(), title: `claim ${offset}` })).id);
    }
    const [due3, due1, due2, later] = ids as [number, number, number, number];
    const now = at(base, 5);

    const first = await claimDueMessages(db, { now, limit: 2, leaseUntil: at(base, 65) });
    expect(first.map((c) => c.message.id)).toEqual([due1, due2]);
    expect(first[0]!.subjectId).toBe(s.subjectId);

    // A second claimer at the same instant: the held two are not offered again.
    const second = await claimDueMessages(db, { now, limit: 10, leaseUntil: at(base, 65) });
    expect(second.map((c) => c.message.id)).toEqual([due3]);
    expect(await claimDueMessages(db, { now, limit: 10, leaseUntil: at(base, 65) })).toEqual([]);

    // Once the leases end (a crashed claimer), the rows come back, and the not-yet-due one with them when due.
    const afterLease = await claimDueMessages(db, { now: at(base, 65), limit: 10, leaseUntil: at(base, 125) });
    expect(afterLease.map((c) => c.message.id).sort()).toEqual([due3, due1, due2, later].sort());
  });

  it('leaves a retry until its time, and the look-ahead names that time', async () => {
    const s = await aSubject(t.app);
    const base = new Date(Math.floor(Date.now() / 1000) * 1000 + 7_200_000);
    const { id } = await aStoredNotification(t.app, s, { scheduledTime: at(base, 0).toISOString(), title: 'retry' });
    // As the scheduler records a retry: still SCHEDULED, the lease moved to the retry's time.
    await db.update(messages).set({ leaseUntil: at(base, 10) }).where(eq(messages.id, id));

    const mine = (rows: { message: { id: number } }[]) => rows.filter((c) => c.message.id === id);
    expect(mine(await claimDueMessages(db, { now: at(base, 9), limit: 500, leaseUntil: at(base, 69) }))).toEqual([]);
    expect(await findNextDueTime(db, at(base, 5))).toEqual(at(base, 10));
    expect(mine(await claimDueMessages(db, { now: at(base, 10), limit: 500, leaseUntil: at(base, 70) }))).toHaveLength(1);
    const [row] = await db.select({ leaseUntil: messages.leaseUntil }).from(messages).where(inArray(messages.id, [id]));
    expect(row!.leaseUntil).toEqual(at(base, 70));
  });
});
