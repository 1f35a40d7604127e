/**
 * Issue 22 item 9: SIGTERM to the built service (`node dist/main.js`, prod profile, on a private
 * PostgreSQL cluster) while many requests are in flight and the scheduler is working through a
 * backlog of due notifications (FCM stub answering slowly, so a batch is in flight too).
 *
 * Holds: every request in flight completes with its 2xx; the scheduler claims nothing after the
 * signal (what went out after it is at most the batch in flight; the rest of the backlog is
 * untouched: SCHEDULED, no lease); every message sent is recorded EXECUTED (no claim left
 * dangling); the process exits 0 within SHUTDOWN_TIMEOUT_SECONDS.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { startFcmStub, type FcmStub } from '../helpers/fcm-stub.js';
import { createCluster, type PostgresCluster, privateCluster } from '../helpers/postgres-cluster.js';
import { halfSent, killServices, spawnService, started, TEST_KEYSTORE, waitFor, builtService } from '../helpers/service-process.js';
import { postgresProject, requires } from '../helpers/requires.js';

const IN_FLIGHT = 40;
const BACKLOG = 2000;
const BATCH = 50;
const SHUTDOWN_TIMEOUT_SECONDS = 10;

describe('graceful shutdown under load (private cluster)', requires(postgresProject, builtService, privateCluster), () => {
  let cluster: PostgresCluster;
  let stub: FcmStub;
  let sql: Sql;

  beforeAll(async () => {
    cluster = await createCluster();
    stub = await startFcmStub();
    const { default: postgres } = await import('postgres');
    sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  }, 60_000);

  afterAll(async () => {
    await killServices();
    await sql?.end({ timeout: 1 }).catch(() => {});
    await stub?.close();
    cluster?.destroy();
  });

  it('SIGTERM: requests in flight complete, the scheduler stops claiming, exit 0 in time', async () => {
    const proc = spawnService({
      PROFILE: 'prod', DATABASE_URL: cluster.url, RADAR_ADMIN_PASSWORD: 'secret1', LOG_LEVEL: 'info',
      MANAGEMENTPORTAL_OAUTH_KEY_STORE: TEST_KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin-secret1',
      MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org', SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false',
      FCM_EMULATOR_HOST: stub.host, SCHEDULER_TICK_MS: '100', SCHEDULER_BATCH_SIZE: String(BATCH), SCHEDULER_CONCURRENCY: '2',
      SHUTDOWN_TIMEOUT_SECONDS: String(SHUTDOWN_TIMEOUT_SECONDS),
    });
    const base = await started(proc);
    const project = `shutdown-${randomBytes(4).toString('hex')}`;
    await sql`insert into appserver.projects (project_id) values (${project})`;
    const [user] = await sql`insert into appserver.users (project_id, subject_id, fcm_token, enrolment_date, timezone)
      select id, 'p1', 'device-token-1', now(), 'UTC' from appserver.projects where project_id = ${project} returning id`;

    // A slow FCM: each batch takes a while, so one is in flight when the signal comes.
    stub.delayMs = 300;
    await sql`insert into appserver.messages (kind, user_id, source_id, scheduled_time, ttl_seconds, fcm_message_id, app_package, source_type, title, body, type, state, dedupe_key)
      select 'notification', ${user!.id}, 'src', now(), 3600, 'm-' || g, 'pkg', 'aRMT', 'backlog-' || g, 'B', 'ESM', 'SCHEDULED', 'k-' || g
      from generate_series(1, ${BACKLOG}) g`;
    await waitFor('the scheduler to be sending', 30, () => (stub.received.length >= BATCH ? true : undefined));

    const url = `${base}/projects/${project}/users/p1/messaging/notifications`;
    const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) => halfSent(url, {
      title: `in-flight-${i}`, body: 'Please fill in your questionnaire', ttlSeconds: 3600, sourceId: 'aRMT', type: 'PHQ8',
      sourceType: 'aRMT', appPackage: 'org.phidatalab.radar_armt', scheduledTime: '2030-01-01T09:00:00Z',
    }));
    await waitFor('the server to receive every request', 20, () => {
      const received = proc.stdout().match(/"url":"\/projects\/[^"]+\/messaging\/notifications".*"msg":"incoming request"/g) ?? [];
      return received.length >= IN_FLIGHT ? true : undefined;
    });

    const signalled = Date.now();
    proc.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', 10, () => (/"msg":"shutting down"/.test(proc.stdout()) ? true : undefined));
    const answers = await Promise.all(inFlight.map((r) => r.finish()));
    const exited = await Promise.race([proc.exited, sleep((SHUTDOWN_TIMEOUT_SECONDS + 5) * 1000, undefined)]);
    const shutdownMs = Date.now() - signalled;

    expect(answers.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(201));
    // Exit 0 is the proof of "within SHUTDOWN_TIMEOUT_SECONDS": past it, main.ts exits 1.
    expect(exited).toEqual({ code: 0, signal: null });

    // Every in-flight create was stored.
    const [created] = await sql`select count(*)::int as n from appserver.messages where title like 'in-flight-%'`;
    expect(created!.n).toBe(IN_FLIGHT);

    // The scheduler stopped claiming: what went out after the signal is at most the batches in
    // flight, the rest of the backlog is untouched, and every message sent was recorded.
    const sentAfter = stub.received.filter((r) => r.at > signalled).length;
    expect(sentAfter).toBeLessThanOrEqual(BATCH * 2);
    const [states] = await sql`select
        count(*) filter (where state = 'EXECUTED')::int as executed,
        count(*) filter (where state = 'SCHEDULED' and lease_until is null)::int as untouched,
        count(*) filter (where state = 'SCHEDULED' and lease_until is not null)::int as claimed
      from appserver.messages where title like 'backlog-%'`;
    expect(states).toMatchObject({ executed: stub.received.length, claimed: 0 });
    expect(states!.untouched).toBe(BACKLOG - stub.received.length);
    expect(states!.untouched).toBeGreaterThan(0);

    process.stdout.write(`graceful-shutdown figures: ${JSON.stringify({ inFlight: IN_FLIGHT, answered201: answers.filter((a) => a.status === 201).length, shutdownMs, sentBefore: stub.received.length - sentAfter, sentAfter, left: states!.untouched })}\n`);
  }, 120_000);
});
