/**
 * Exactly once across processes, at least once across crashes (ARCHITECTURE rule 6), on real
 * PostgreSQL with the built service (`node dist/main.js`, prod profile, a fresh database) and an
 * FCM stub in this process. Runs only in the postgres project (SKIP LOCKED needs real sessions).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { startFcmStub, type FcmStub } from '../../helpers/fcm-stub.js';
import { killServices, spawnService, started, TEST_KEYSTORE, waitFor, builtService } from '../../helpers/service-process.js';
import { postgresProject, requires } from '../../helpers/requires.js';

/** The prod profile with the management domain's requirements (a keystore and an admin password). */
const startService = (env: Record<string, string>) => spawnService({
  PROFILE: 'prod', LOG_LEVEL: 'warn', RADAR_ADMIN_PASSWORD: 'secret1',
  MANAGEMENTPORTAL_OAUTH_KEY_STORE: TEST_KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin-secret-1', MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org',
  ...env,
});
const until = waitFor;

/** Inserts `count` due notifications over 100 users; notification i carries data {n: i}. */
async function insertDue(sql: Sql, count: number) {
  const [project] = await sql`insert into appserver.projects (project_id) values (${`p-${randomBytes(4).toString('hex')}`}) returning id`;
  const prefix = randomBytes(4).toString('hex');
  await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone)
    select ${project!.id}, ${prefix} || '-sub-' || g, ${prefix} || '-tok-' || g, now(), 'UTC' from generate_series(1, 100) g`;
  await sql`insert into appserver.messages (kind, user_id, source_id, scheduled_time, ttl_seconds, fcm_message_id, app_package, source_type, title, body, type, state, dedupe_key, data)
    select 'notification', u.id, 'src', now(), 3600, 'm-' || g, 'pkg', 'aRMT', 'T', 'B', 'ESM', 'SCHEDULED', 'k-' || g, jsonb_build_object('n', g::text)
    from generate_series(1, ${count}) g join appserver.users u on u.subject_id = ${prefix} || '-sub-' || (g % 100 + 1)`;
}

const executedCount = async (sql: Sql) => (await sql`select count(*)::int as n from appserver.messages where state = 'EXECUTED'`)[0]!.n as number;

/** How often the stub received each notification number. */
function receipts(stub: FcmStub): Map<string, number> {
  const seen = new Map<string, number>();
  for (const r of stub.received) {
    const n = (r.message.data as Record<string, string> | undefined)?.n;
    if (n !== undefined) seen.set(n, (seen.get(n) ?? 0) + 1);
  }
  return seen;
}

describe('scheduler on PostgreSQL with several processes', requires(postgresProject, builtService), () => {
  let stub: FcmStub;
  let sql: Sql;
  let admin: Sql;
  let name: string;
  let url: string;

  beforeAll(async () => {
    stub = await startFcmStub();
    const { default: postgres } = await import('postgres');
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterEach(async () => {
    await killServices();
    await sql?.end();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    stub.received.length = 0;
    stub.delayMs = 0;
  });
  afterAll(async () => {
    await admin?.end();
    await stub?.close();
  });

  async function freshDatabase() {
    const { default: postgres } = await import('postgres');
    name = `radar_sched_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = `/${name}`;
    url = u.toString();
    sql = postgres(url, { max: 2, onnotice: () => {} });
  }

  it('three processes, 10,000 due notifications: the stub receives each exactly once', async () => {
    await freshDatabase();
    const env = { DATABASE_URL: url, FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: '100', DATABASE_POOL_SIZE: '4' };
    const procs = [startService(env), startService(env), startService(env)];
    const bases = await Promise.all(procs.map((proc) => started(proc)));
    await insertDue(sql, 10_000);
    await until('10,000 EXECUTED', 50, async () => ((await executedCount(sql)) === 10_000 ? true : undefined));

    const seen = receipts(stub);
    expect(seen.size).toBe(10_000);
    expect([...seen.values()].filter((times) => times !== 1)).toEqual([]);
    expect(stub.received).toHaveLength(10_000);
    const events = await sql`select state, count(*)::int as n from appserver.message_state_events group by state`;
    expect(events.map((e) => [e.state, e.n])).toEqual([['EXECUTED', 10_000]]);

    // Each process's own count (its Prometheus counter) adds up to 10,000.
    const sent = await Promise.all(bases.map(async (base) => {
      const res = await fetch(`${base}/actuator/prometheus`, { headers: { authorization: `Basic ${Buffer.from('radar:secret1').toString('base64')}` } });
      const m = /^appserver_messages_sent_total\{kind="notification"\} (\d+)$/m.exec(await res.text());
      return m ? Number(m[1]) : 0;
    }));
    expect(sent.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(sent.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('three processes, one killed -9 mid-dispatch: nothing lost, re-sends ≤ its in-flight batches, the other two take its claim over after the lease', async () => {
    await freshDatabase();
    const batch = 50;
    const concurrency = 2;
    const total = 3000;
    const base = { DATABASE_URL: url, SCHEDULER_TICK_MS: '100', SCHEDULER_BATCH_SIZE: String(batch), SCHEDULER_CONCURRENCY: String(concurrency), SCHEDULER_LEASE_SECONDS: '3' };
    // The victim has its own FCM stub, which answers its first sends and then holds every answer:
    // the victim is caught with its batches sent to FCM and not yet recorded (the worst moment).
    const victimFcm = await startFcmStub();
    const answered = 200;
    victimFcm.respond = (_message, index) => {
      if (index >= answered) victimFcm.delayMs = 20_000;
      return undefined;
    };
    victimFcm.delayMs = 5;
    stub.delayMs = 5;
    try {
      const victim = startService({ ...base, FCM_EMULATOR_HOST: victimFcm.host });
      const survivors = [startService({ ...base, FCM_EMULATOR_HOST: stub.host }), startService({ ...base, FCM_EMULATOR_HOST: stub.host })];
      await Promise.all([victim, ...survivors].map((proc) => started(proc)));
      await insertDue(sql, total);
      await until('the victim holding a full batch', 30, () => (victimFcm.count() >= answered + batch ? true : undefined));
      victim.child.kill('SIGKILL');
      await victim.exited;

      const numbers = (received: FcmStub['received']) => received.map((r) => (r.message.data as Record<string, string>).n!);
      const held = numbers(victimFcm.received.slice(answered));
      expect(held.length).toBeGreaterThanOrEqual(batch);
      expect(held.length).toBeLessThanOrEqual(batch * concurrency); // the in-flight batches, no more
      // The held messages are still claimed: SCHEDULED under the victim's lease.
      const claimedRows = await sql`select count(*)::int as n from appserver.messages where state = 'SCHEDULED' and lease_until is not null and data->>'n' in ${sql(held)}`;
      const stillClaimed = claimedRows[0]!.n as number;

      await until(`${total} EXECUTED`, 60, async () => ((await executedCount(sql)) === total ? true : undefined));
      const all = [...numbers(victimFcm.received), ...numbers(stub.received)];
      const times = new Map<string, number>();
      for (const n of all) times.set(n, (times.get(n) ?? 0) + 1);
      expect(times.size).toBe(total); // nothing lost
      const resent = [...times.values()].reduce((sum, k) => sum + k - 1, 0);
      expect(resent).toBeLessThanOrEqual(batch * concurrency);
      // The lease gave the victim's claim to the survivors: each held message went out again, once, from them.
      const bySurvivors = new Map<string, number>();
      for (const n of numbers(stub.received)) bySurvivors.set(n, (bySurvivors.get(n) ?? 0) + 1);
      expect(held.filter((n) => bySurvivors.get(n) !== 1)).toEqual([]);
      const events = await sql`select state, count(*)::int as n from appserver.message_state_events group by state`;
      expect(events.map((e) => [e.state, e.n])).toEqual([['EXECUTED', total]]);
      console.info(`[figures] kill -9 of 1 of 3 instances: ${total} notifications, ${held.length} in flight at the kill `
        + `(${stillClaimed} still claimed right after it), ${resent} re-sent (bound ${batch * concurrency}), 0 lost`);
    } finally {
      await killServices();
      await victimFcm.close();
    }
  }, 120_000);

  it('kill -9 mid-dispatch, restart: nothing is lost, at most the in-flight batches go twice', async () => {
    await freshDatabase();
    const batch = 100;
    const concurrency = 2;
    const env = {
      DATABASE_URL: url, FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: '100',
      SCHEDULER_BATCH_SIZE: String(batch), SCHEDULER_CONCURRENCY: String(concurrency), SCHEDULER_LEASE_SECONDS: '2',
    };
    const first = startService(env);
    await started(first);
    stub.delayMs = 5; // slow enough to be caught in the middle
    await insertDue(sql, 2000);
    await until('the first sends', 20, () => (stub.received.length >= 500 ? true : undefined));
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = stub.received.length;
    expect(atKill).toBeLessThan(2000);

    stub.delayMs = 0;
    const second = startService(env);
    await started(second);
    await until('2,000 EXECUTED', 40, async () => ((await executedCount(sql)) === 2000 ? true : undefined));

    const seen = receipts(stub);
    expect(seen.size).toBe(2000); // nothing lost
    const duplicates = [...seen.values()].reduce((sum, times) => sum + times - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(batch * concurrency);
    expect(await executedCount(sql)).toBe(2000);
  }, 90_000);
});
