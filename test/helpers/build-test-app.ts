/**
 * One app per test file, on a fresh database: PGlite from the migrated snapshot, or (project
 * "postgres") a new PostgreSQL database copied from the migrated template and dropped afterwards.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type BuildOptions } from '../../src/app.js';
import type { Need } from './requires.js';
import { leasePglite } from './pglite-pool.js';

export const onPostgres = () => process.env.TEST_DB === 'postgres';
/**
 * The fault tests (outages of 10 s, 30 s in `npm run test:slow`) run once per `npm test`: on PostgreSQL when the run has it
 * (TEST_DATABASE_URL, as in CI), else on PGlite.
 */
export const onFaultDatabase = () => process.env.TEST_DB === (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
export const faultDatabase: Need = [onFaultDatabase(), 'fault tests run on one database a run (PostgreSQL when it has one)'];

/** A database for one test file: the settings that select it and a cleanup. */
export async function testDatabase(): Promise<{ env: Record<string, string>; pgliteDataDir?: Blob; drop(): Promise<void> }> {
  if (!onPostgres()) {
    return { env: {}, pgliteDataDir: new Blob([readFileSync(inject('pgliteSnapshot'))]), drop: async () => {} };
  }
  const url = process.env.TEST_DATABASE_URL!;
  const name = `radar_test_${randomBytes(6).toString('hex')}`;
  const { default: postgres } = await import('postgres');
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: target.toString() },
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  close(): Promise<void>;
}

/**
 * Builds the real app for tests: dev profile, no demo data, logging off unless asked, and no
 * scheduler unless `SCHEDULER_ENABLED` is passed (so it never sends what a test only stores).
 */
export async function buildTestApp(env: Record<string, string> = {}, options: BuildOptions = {}): Promise<TestApp> {
  const database = await testDatabase();
  const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', ...database.env, ...env }, '0.0.0-test');
  // On PGlite, an instance reused from an earlier test file, emptied to the snapshot's state.
  const pglite = config.database.kind === 'pglite' && database.pgliteDataDir ? await leasePglite(() => database.pgliteDataDir!) : undefined;
  const app = await buildApp(config, { logger: false, demoData: false, pgliteDataDir: database.pgliteDataDir, pglite, ...options });
  await app.ready();
  return {
    app,
    config,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
