/**
 * The test workers' PGlite reuse (test/helpers/pglite-pool.ts): a reused instance must be
 * indistinguishable from one fresh from the snapshot, or the files after the first would test
 * less than they claim.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { fingerprintOf, leasePglite } from '../helpers/pglite-pool.js';
import { createPglite } from '../../src/platform/database.js';
import { requires, pgliteProject } from '../helpers/requires.js';

const snapshot = () => new Blob([readFileSync(inject('pgliteSnapshot'))]);

describe('PGlite reuse between test files', requires(pgliteProject), () => {
  it('lends a returned instance again emptied: no rows, sequences restarted, session reset', async () => {
    const first = await leasePglite(snapshot);
    await first.client.exec(`INSERT INTO management.organizations (name, description, location) VALUES ('a', 'b', 'c'), ('d', 'e', 'f')`);
    await first.client.exec(`SET TIME ZONE 'Asia/Tokyo'`);
    await first.client.exec('BEGIN');
    await first.client.query('SELECT pg_advisory_lock(42)');
    await first.release();

    const second = await leasePglite(snapshot);
    expect(second.client).toBe(first.client);
    expect((await second.client.query('SELECT count(*)::int AS n FROM management.organizations')).rows).toEqual([{ n: 0 }]);
    const inserted = await second.client.query<{ id: string }>(`INSERT INTO management.organizations (name, description, location) VALUES ('g', 'h', 'i') RETURNING id::text`);
    expect(inserted.rows).toEqual([{ id: '1' }]);
    expect((await second.client.query<{ tz: string }>('SHOW TIME ZONE')).rows[0]).not.toEqual({ TimeZone: 'Asia/Tokyo' });
    // The same session would be granted its own lock again: count the locks instead.
    expect((await second.client.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`)).rows).toEqual([{ n: 0 }]);
    expect((await second.client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction'`)).rows).toEqual([{ n: 0 }]);
    await second.release();
  });

  it('has the schema of a fresh snapshot after reuse', async () => {
    const fresh = await createPglite(snapshot());
    const lease = await leasePglite(snapshot);
    expect(await fingerprintOf(lease.client)).toBe(await fingerprintOf(fresh));
    await fresh.close();
    await lease.release();
  });

  it('does not lend again an instance whose schema a test changed, nor a closed one', async () => {
    const changed = await leasePglite(snapshot);
    await changed.client.exec('CREATE FUNCTION management.added() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$');
    await changed.release();
    expect(changed.client.closed).toBe(true);

    const closed = await leasePglite(snapshot);
    await closed.client.close();
    await closed.release();
    const next = await leasePglite(snapshot);
    expect(next.client).not.toBe(closed.client);
    expect(next.client.closed).toBe(false);
    await next.release();
  });

  it('an instance handed back twice is lent once', async () => {
    const lease = await leasePglite(snapshot);
    await lease.release();
    await lease.release();
    const a = await leasePglite(snapshot);
    const b = await leasePglite(snapshot);
    expect(a.client).not.toBe(b.client);
    await a.release();
    await b.release();
  });
});
