/**
 * The dev profile's in-memory PGlite starts from a migrated snapshot (issue 30 item 5): the first
 * start stores it, the next loads it with the whole schema, a changed migration makes another
 * one, and a damaged file costs only a fresh migration.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase, executedRows } from '../../src/platform/database.js';
import { snapshotKey } from '../../src/platform/pglite-snapshot.js';
import { pgliteProject, requires } from '../helpers/requires.js';

const scratch = mkdtempSync(join(tmpdir(), 'radar-snapshot-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A logger whose messages the test reads. */
function recordingLog() {
  const messages: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { messages.push((JSON.parse(chunk.toString()) as { msg: string }).msg); done(); } });
  return { log: pino({ level: 'info' }, stream), messages };
}

async function open(dir: string) {
  const { log, messages } = recordingLog();
  const handle = await openDatabase({ kind: 'pglite' }, { log, bootWaitSeconds: 1, pgliteSnapshotDir: dir });
  await handle.migrate();
  const tables = executedRows(await handle.db.execute("select count(*)::int as n from information_schema.tables where table_schema in ('management', 'appserver')"))[0]!.n;
  await handle.close();
  return { messages, tables: tables as number };
}

describe('PGlite snapshot key', () => {
  it('changes with any migration file (edited, added, removed) and with the PGlite version, and only then', async () => {
    const folder = join(scratch, 'migrations');
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const key = await snapshotKey(folder, '1.0.0');
    expect(await snapshotKey(folder, '1.0.0')).toBe(key);
    expect(await snapshotKey(folder, '1.0.1')).not.toBe(key);

    const sql = readdirSync(folder).find((name) => name.endsWith('.sql'))!;
    appendFileSync(join(folder, sql), '\n-- edited\n');
    const edited = await snapshotKey(folder, '1.0.0');
    expect(edited).not.toBe(key);

    writeFileSync(join(folder, '9999_added.sql'), 'select 1;');
    const added = await snapshotKey(folder, '1.0.0');
    expect(added).not.toBe(edited);
    rmSync(join(folder, '9999_added.sql'));
    expect(await snapshotKey(folder, '1.0.0')).toBe(edited);

    writeFileSync(join(folder, 'meta', '_journal.json'), '{}');
    expect(await snapshotKey(folder, '1.0.0')).not.toBe(edited);
  });
});

describe('PGlite from a snapshot', requires(pgliteProject), () => {
  it('the first start stores the migrated schema, the next loads it; a damaged file is replaced', { timeout: 120_000 }, async () => {
    const dir = join(scratch, 'snapshots');
    const first = await open(dir);
    expect(first.messages).toContain('PGlite snapshot of the migrated schema stored for the next start');
    const files = readdirSync(dir);
    expect(files).toEqual([expect.stringMatching(/^migrated-[0-9a-f]{32}\.tar$/)]);

    const second = await open(dir);
    expect(second.messages).toContain('PGlite opened from the migrated snapshot');
    expect(second.tables).toBe(first.tables);
    expect(second.tables).toBeGreaterThan(20);

    writeFileSync(join(dir, files[0]!), 'not a tar file');
    const third = await open(dir);
    expect(third.messages).toContain('PGlite snapshot could not be loaded: removed, migrating afresh');
    expect(third.messages).toContain('PGlite snapshot of the migrated schema stored for the next start');
    expect(third.tables).toBe(first.tables);
    expect(readdirSync(dir)).toEqual(files);
  });
});
