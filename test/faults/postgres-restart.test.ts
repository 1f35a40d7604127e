/**
 * Issue 22 item 6: PostgreSQL restarts while the built service (`node dist/main.js`, prod profile)
 * is under a mixed load of reads, token grants and notification creates, with the notifications
 * going out through the real firebase-admin to the FCM stub. A private cluster
 * (test/helpers/postgres-cluster.ts) is stopped and started again; the machine's shared server is
 * never touched.
 *
 * Holds: readiness goes DOWN and back UP; every request gets an answer within its time bound,
 * 2xx or a 503 in its domain's error body (never a 500); every acknowledged notification is in
 * the database afterwards; every notification in the database is delivered exactly once.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { startFcmStub, type FcmStub } from '../helpers/fcm-stub.js';
import { createCluster, type PostgresCluster, privateCluster } from '../helpers/postgres-cluster.js';
import { killServices, spawnService, started, TEST_KEYSTORE, waitFor, type ServiceProcess, builtService } from '../helpers/service-process.js';
import { postgresProject, requires } from '../helpers/requires.js';

/** No request may take longer than this, outage or not: connect_timeout (10 s) + reconnect backoff (≤ 1 s) + slack for a loaded machine. */
const REQUEST_BOUND_MS = 20_000;
const OUTAGE_MS = 5_000;
const ADMIN_PASSWORD = 'admin-secret1';

interface Outcome { kind: 'read' | 'token' | 'create' | 'page'; status: number; body: unknown; ms: number; at: number; title?: string; id?: number }

/** One request, bounded in time: a hang is status 0 with the reason. */
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown; ms: number }> {
  const begun = Date.now();
  const res = await answer(url, init);
  return { ...res, ms: Date.now() - begun };
}

async function answer(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    const text = await res.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body };
  } catch (err) {
    return { status: 0, body: String(err) };
  }
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('PostgreSQL restart under load (private cluster)', requires(postgresProject, builtService, privateCluster), () => {
  let cluster: PostgresCluster;
  let stub: FcmStub;
  let proc: ServiceProcess;
  let base: string;
  let sql: Sql;

  beforeAll(async () => {
    cluster = await createCluster();
    stub = await startFcmStub();
    proc = spawnService({
      PROFILE: 'prod', DATABASE_URL: cluster.url, RADAR_ADMIN_PASSWORD: 'secret1', LOG_LEVEL: 'warn',
      MANAGEMENTPORTAL_OAUTH_KEY_STORE: TEST_KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org', SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false',
      FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: '200', SCHEDULER_LEASE_SECONDS: '60',
    });
    base = await started(proc);
    const { default: postgres } = await import('postgres');
    sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  }, 120_000);

  afterAll(async () => {
    await killServices();
    await sql?.end({ timeout: 1 }).catch(() => {});
    await stub?.close();
    cluster?.destroy();
  });

  it('answers 503 during the outage, becomes ready again, and loses or repeats no acknowledged write', async () => {
    const project = `faults-${randomBytes(4).toString('hex')}`;
    expect((await call(`${base}/projects`, json({ projectId: project }))).status).toBe(201);
    const userBody = { subjectId: 'p1', fcmToken: 'device-token-1', enrolmentDate: '2026-01-01T00:00:00Z', timezone: 'UTC', language: 'en' };
    expect((await call(`${base}/projects/${project}/users`, json(userBody))).status).toBe(201);
    const notifications = `${base}/projects/${project}/users/p1/messaging/notifications`;
    const tokenForm = new URLSearchParams({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'admin', password: ADMIN_PASSWORD }).toString();
    const firstToken = await call(`${base}/managementportal/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm });
    expect(firstToken.status).toBe(200);
    const bearer = { authorization: `Bearer ${(firstToken.body as { access_token: string }).access_token}` };

    const outcomes: Outcome[] = [];
    let stop = false;
    let n = 0;
    const ops: (() => Promise<Outcome>)[] = [
      async () => {
        const title = `n-${++n}-${randomBytes(3).toString('hex')}`;
        const res = await call(notifications, json({
          title, body: 'Please fill in your questionnaire', ttlSeconds: 3600, sourceId: 'aRMT', type: 'PHQ8',
          sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt', scheduledTime: new Date(Date.now() + 500).toISOString(),
        }));
        return { kind: 'create', ...res, at: Date.now(), title, id: (res.body as { id?: number }).id };
      },
      async () => ({ kind: 'read', ...(await call(`${base}/managementportal/api/projects`, { headers: bearer })), at: Date.now() }),
      async () => ({ kind: 'read', ...(await call(notifications)), at: Date.now() }),
      async () => ({ kind: 'token', ...(await call(`${base}/managementportal/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenForm })), at: Date.now() }),
      // The admin UI's sign-in page stores an anonymous session (for its CSRF token).
      async () => ({ kind: 'page', ...(await call(`${base}/managementportal/login`)), at: Date.now() }),
    ];
    const worker = async (w: number) => {
      for (let i = w; !stop; i++) {
        outcomes.push(await ops[i % ops.length]!());
        await sleep(20);
      }
    };
    const readiness: { at: number; status: number; body: unknown }[] = [];
    const probe = (async () => {
      while (!stop) {
        readiness.push({ ...(await call(`${base}/actuator/health/readiness`)), at: Date.now() });
        await sleep(100);
      }
    })();
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));

    await sleep(3000);
    const down = Date.now();
    cluster.stop('fast');
    await waitFor('readiness DOWN', 10, () => (readiness.some((r) => r.at > down && r.status === 503) ? true : undefined));
    await sleep(OUTAGE_MS);
    const restarted = Date.now();
    cluster.start();
    const outageMs = Date.now() - down;
    const ready = await waitFor('readiness UP again', 30, () => readiness.find((r) => r.at > restarted && r.status === 200));
    await sleep(4000);
    stop = true;
    await Promise.all([...workers, probe]);

    // Readiness: UP before, DOWN (with its body) during, UP after.
    expect(readiness.find((r) => r.at < down)).toMatchObject({ status: 200, body: { status: 'UP' } });
    expect(readiness.find((r) => r.at > down && r.at < restarted && r.status === 503)).toMatchObject({ body: { status: 'DOWN' } });
    expect(readiness.at(-1)).toMatchObject({ status: 200, body: { status: 'UP' } });

    // Every request answered in time, 2xx or 503 with its domain's body; some 503s in the outage.
    const unexpected = outcomes.filter((o) => !(o.status >= 200 && o.status < 300) && o.status !== 503);
    expect(unexpected).toEqual([]);
    const unavailable = outcomes.filter((o) => o.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(new Set(unavailable.map((o) => o.kind)), 'every kind of request met the outage').toEqual(new Set(['read', 'token', 'create', 'page']));
    for (const o of unavailable) {
      if (o.kind === 'page') expect(o.body).toMatch(/briefly unavailable/);
      else if (o.kind === 'token') expect(o.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      else if (o.kind === 'create') expect(o.body).toMatchObject({ status: 503, message: expect.stringMatching(/database/), path: expect.stringMatching(/^uri=\//) });
      else expect(o.body).toSatisfy((b: Record<string, unknown>) => b.status === 503 || b.message === 'error.http.503');
      expect(JSON.stringify(o.body)).not.toMatch(/at .*\.js:\d+|stack/i);
    }
    expect(proc.stdout() + proc.stderr()).not.toMatch(/"level":50[^\n]*"msg":"(unhandled error|database error)"/);

    // Acknowledged writes are present; everything present goes out exactly once.
    const acknowledged = outcomes.filter((o) => o.kind === 'create' && o.status === 201);
    const rows = await sql`select id::int as id, title, state from appserver.messages where kind = 'notification'`;
    const byTitle = new Map(rows.map((r) => [r.title as string, r]));
    for (const o of acknowledged) expect(byTitle.get(o.title!), o.title).toMatchObject({ id: o.id });
    await waitFor('every notification sent', 90, async () => {
      const [row] = await sql`select count(*)::int as n from appserver.messages where kind = 'notification' and state <> 'EXECUTED'`;
      return row!.n === 0 ? true : undefined;
    });
    const receipts = new Map<string, number>();
    for (const r of stub.received) {
      const title = /"(n-\d+-[0-9a-f]{6})"/.exec(JSON.stringify(r.message))?.[1];
      if (title) receipts.set(title, (receipts.get(title) ?? 0) + 1);
    }
    const twice = [...receipts].filter(([, count]) => count > 1);
    expect(twice).toEqual([]);
    expect([...receipts.keys()].sort()).toEqual([...byTitle.keys()].sort());

    const figures = {
      outageMs, readyAgainMs: ready.at - restarted, requests: outcomes.length,
      duringOutage: outcomes.filter((o) => o.at > down && o.at < ready.at).length,
      statuses: Object.fromEntries([...new Set(outcomes.map((o) => o.status))].map((s) => [s, outcomes.filter((o) => o.status === s).length])),
      acknowledgedCreates: acknowledged.length, notificationsInDb: rows.length, fcmReceipts: stub.received.length,
      slowestMs: Math.max(...outcomes.map((o) => o.ms)),
    };
    process.stdout.write(`postgres-restart figures: ${JSON.stringify(figures)}\n`);
  }, 180_000);
});
