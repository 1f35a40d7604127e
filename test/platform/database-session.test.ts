/**
 * The service's PostgreSQL sessions run with JIT off (platform/database.ts): with PostgreSQL's
 * default, a query whose estimated cost passed 100,000 (a user's notification list on stale
 * statistics) was compiled with LLVM on every run, ~0.2–1 s of CPU each, and the soaks answered 503s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executedRows } from '../../src/platform/database.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { postgresProject, requires } from '../helpers/requires.js';

describe('PostgreSQL sessions', requires(postgresProject), () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp(); });
  afterAll(async () => { await t?.close(); });

  it('have JIT off and name the application', async () => {
    const rows = executedRows(await t.app.db.db.execute(sql`select current_setting('jit') as jit, current_setting('application_name') as app`));
    expect(rows[0]).toEqual({ jit: 'off', app: 'radar-platform' });
  });
});
