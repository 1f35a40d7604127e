/**
 * The service's PostgreSQL sessions (platform/database.ts):
 *  - JIT is off: with PostgreSQL's default, a query whose estimated cost passed 100,000 (a user's
 *    notification list on stale statistics) was compiled with LLVM on every run, ~0.2–1 s of CPU
 *    each, and the soaks answered 503s;
 *  - the health check has a connection of its own: through the pool it waited behind the queued
 *    work and answered DOWN after 2 s whenever load filled the pool (the short soak's 503s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executedRows } from '../../src/platform/database.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { postgresProject, requires } from '../helpers/requires.js';

describe('PostgreSQL sessions', requires(postgresProject), () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ DATABASE_POOL_SIZE: '2' }); });
  afterAll(async () => { await t?.close(); });

  it('have JIT off and name the application', async () => {
    const rows = executedRows(await t.app.db.db.execute(sql`select current_setting('jit') as jit, current_setting('application_name') as app`));
    expect(rows[0]).toEqual({ jit: 'off', app: 'radar-platform' });
  });

  it('health answers UP while every pooled connection is busy for longer than its 2 s timeout', async () => {
    // Two transactions hold both pooled connections for 3 s (a transaction has its connection to itself).
    const busy = [1, 2].map(() => t.app.db.db.transaction(async (tx) => { await tx.execute(sql`select pg_sleep(3)`); }));
    await new Promise((r) => setTimeout(r, 200));
    const health = await t.app.inject({ method: 'GET', url: '/actuator/health' });
    expect(health.statusCode, health.body).toBe(200);
    expect(health.json()).toMatchObject({ status: 'UP', components: { db: { status: 'UP' } } });
    const readiness = await t.app.inject({ method: 'GET', url: '/actuator/health/readiness' });
    expect(readiness.json()).toEqual({ status: 'UP' });
    await Promise.all(busy);
  }, 20_000);
});
