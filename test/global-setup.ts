/**
 * Per project (vitest.config.ts): a PGlite project migrates one PGlite and dumps its data
 * directory (each test file loads it in ~0.5 s instead of a 2.4 s initdb); a PostgreSQL project
 * migrates a template database of its own on TEST_DATABASE_URL's server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { MIGRATIONS_FOLDER } from '../src/platform/database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    pgTemplate: string;
  }
}

export async function setup(project: TestProject) {
  if (project.name.startsWith('postgres')) return setupPostgres(project);
  project.provide('pgTemplate', '');
  const dir = mkdtempSync(join(tmpdir(), 'radar-test-'));
  const snapshot = join(dir, 'pglite.tar');
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const client = await PGlite.create();
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  const dump = await client.dumpDataDir('none');
  writeFileSync(snapshot, Buffer.from(await dump.arrayBuffer()));
  await client.close();
  project.provide('pgliteSnapshot', snapshot);
  return () => rmSync(dir, { recursive: true, force: true });
}

async function setupPostgres(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL!;
  const template = `radar_test_template_${process.pid}_${project.name.replace(/\W/g, '_')}`;
  project.provide('pgTemplate', template);
  project.provide('pgliteSnapshot', '');
  const { default: postgres } = await import('postgres');
  const { drizzle: pgDrizzle } = await import('drizzle-orm/postgres-js');
  const { migrate: pgMigrate } = await import('drizzle-orm/postgres-js/migrator');
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${template}`);
  await admin.unsafe(`CREATE DATABASE ${template}`);
  const target = new URL(url);
  target.pathname = `/${template}`;
  const sql = postgres(target.toString(), { max: 1, onnotice: () => {} });
  await pgMigrate(pgDrizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
  await sql.end();
  await admin.end();

  return async () => {
    const dropper = postgres(url, { max: 1, onnotice: () => {} });
    await dropper.unsafe(`DROP DATABASE IF EXISTS ${template}`);
    await dropper.end();
  };
}
