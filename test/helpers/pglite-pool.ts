/**
 * PGlite instances reused from test file to test file within a worker (the `<db>` projects run
 * with `isolate: false`): booting one from the migrated snapshot costs about a second of CPU,
 * emptying one about a tenth of that, and a run builds ~150 apps.
 *
 * An instance is lent only in the state of a fresh snapshot. When the app hands it back, its
 * session is reset (DISCARD ALL: settings, advisory locks, prepared statements, temporary tables),
 * its tables are emptied and its sequences restarted; it is kept only if its schema still matches
 * the snapshot's (a test that adds a trigger or a function gets a fresh instance next time) and it
 * is not closed; otherwise it is closed.
 */
import type { PGlite } from '@electric-sql/pglite';
import { createPglite, type PgliteLease } from '../../src/platform/database.js';

const MAX_IDLE = 2;
const SCHEMAS = ['management', 'appserver', 'import'];

const EMPTY_TABLES = `DO $$ DECLARE r record; BEGIN
  EXECUTE (SELECT 'TRUNCATE ' || string_agg(format('%I.%I', schemaname, tablename), ', ') || ' RESTART IDENTITY CASCADE'
    FROM pg_tables WHERE schemaname IN (${SCHEMAS.map((s) => `'${s}'`).join(', ')}));
  FOR r IN SELECT schemaname, sequencename FROM pg_sequences WHERE schemaname IN (${SCHEMAS.map((s) => `'${s}'`).join(', ')}) LOOP
    EXECUTE format('ALTER SEQUENCE %I.%I RESTART', r.schemaname, r.sequencename);
  END LOOP;
END $$`;

/** Everything a test could add to or change in the schema: columns, constraints, indexes, triggers, functions, schemas. */
const SCHEMA_FINGERPRINT = `SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) AS fingerprint FROM (
  SELECT concat_ws('.', table_schema, table_name, column_name, data_type, is_nullable, column_default) AS x
    FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT schemaname || ' ' || indexdef FROM pg_indexes WHERE schemaname <> 'pg_catalog'
  UNION ALL SELECT nspname FROM pg_namespace
  UNION ALL SELECT proname || ' ' || pronamespace::regnamespace::text
    FROM pg_proc WHERE pronamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema')
) AS s`;

const idle: PGlite[] = [];
let snapshotFingerprint: Promise<string> | undefined;

export async function fingerprintOf(client: PGlite): Promise<string> {
  const { rows } = await client.query<{ fingerprint: string }>(SCHEMA_FINGERPRINT);
  return rows[0]!.fingerprint;
}

/** Empties a used instance back to the snapshot's state; false when it cannot be (then it is closed). */
async function reset(client: PGlite): Promise<boolean> {
  if (client.closed) return false;
  try {
    await client.exec('ROLLBACK'); // a transaction left open would otherwise hold the reset
    await client.exec('DISCARD ALL');
    await client.exec(EMPTY_TABLES);
    if (await fingerprintOf(client) === await snapshotFingerprint) return true;
  } catch {
    // falls through: an instance that cannot be reset is not reused
  }
  await client.close().catch(() => {});
  return false;
}

/** A PGlite in the state of `snapshot` (the migrated data directory), lent until the app closes. */
export async function leasePglite(snapshot: () => Blob): Promise<PgliteLease> {
  let client = idle.pop();
  if (!client) {
    client = await createPglite(snapshot());
    snapshotFingerprint ??= fingerprintOf(client);
    await snapshotFingerprint;
  }
  const lent = client;
  let released = false;
  return {
    client: lent,
    async release() {
      if (released) return; // handed back once: a second close must not lend it twice
      released = true;
      if (await reset(lent) && idle.length < MAX_IDLE) idle.push(lent);
      else if (!lent.closed) await lent.close().catch(() => {});
    },
  };
}
