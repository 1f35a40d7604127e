/**
 * A migrated PGlite data directory, kept between starts. An in-memory PGlite starts with initdb
 * and then applies every migration: ~5 s of CPU on this 2-core host, every dev start. Loading a
 * dump of the migrated directory instead (`loadDataDir`, as the tests' global setup does) skips
 * both. The dump is named after what it depends on (`snapshotKey`: the migrations folder's files
 * and the PGlite version), so a changed, added or removed migration, or another PGlite, makes a
 * new one; the migrator still runs after loading and finds nothing to apply.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** Where dumps are kept: the system's temporary directory (a cache: removing it costs one slow start). */
export const SNAPSHOT_DIR = join(tmpdir(), 'radar-platform-pglite');

const PREFIX = 'migrated-';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
}

/** SHA-256 over every file of `migrationsFolder` (path and content) and `pgliteVersion`. */
export async function snapshotKey(migrationsFolder: string, pgliteVersion: string): Promise<string> {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion}\0`);
  for (const file of await filesUnder(migrationsFolder)) {
    hash.update(`${relative(migrationsFolder, file)}\0`).update(await readFile(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

const fileOf = (dir: string, key: string) => join(dir, `${PREFIX}${key}.tar`);

/** The dump for `key`, or undefined when there is none (or it cannot be read). */
export async function readSnapshot(dir: string, key: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(fileOf(dir, key))]);
  } catch {
    return undefined;
  }
}

/**
 * Stores the dump for `key` and removes the dumps of other keys. Written under a temporary name
 * and renamed, so a process starting meanwhile (or a crash halfway) never sees half a file.
 */
export async function writeSnapshot(dir: string, key: string, dump: Blob): Promise<void> {
  await mkdir(dir, { recursive: true });
  const target = fileOf(dir, key);
  const partial = `${target}.${process.pid}.${Date.now()}.partial`;
  await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
  await rename(partial, target);
  for (const name of await readdir(dir)) {
    if (name.startsWith(PREFIX) && name.endsWith('.tar') && join(dir, name) !== target) await rm(join(dir, name), { force: true });
  }
}

/** Removes the dump for `key` (one that PGlite could not load). */
export async function dropSnapshot(dir: string, key: string): Promise<void> {
  await rm(fileOf(dir, key), { force: true });
}
