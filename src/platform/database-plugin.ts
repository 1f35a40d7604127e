/** Opens the database, runs migrations and start-up work under the start-up lock, closes on shutdown. */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type DatabaseHandle, type PgliteLease } from './database.js';

export interface DatabasePluginOptions {
  pgliteDataDir?: Blob;
  pglite?: PgliteLease;
  pgliteSnapshotDir?: string | undefined;
  /** Start-up work that writes (demo data, file imports); runs after migrations, under the lock. */
  startupTasks: ((db: DatabaseHandle) => Promise<void>)[];
}

export const databasePlugin = fp(async (app: FastifyInstance, opts: DatabasePluginOptions) => {
  const log = app.logLevels.component('database');
  const handle = await openDatabase(app.config.database, {
    log,
    bootWaitSeconds: app.config.bootWaitSeconds,
    pgliteDataDir: opts.pgliteDataDir,
    pglite: opts.pglite,
    pgliteSnapshotDir: opts.pgliteSnapshotDir,
  });
  app.decorate('db', handle);
  app.addHook('onClose', async () => handle.close());
  try {
    await handle.exclusive(async () => {
      const started = Date.now();
      await handle.migrate();
      log.info({ kind: handle.kind, ms: Date.now() - started }, 'migrations applied');
      for (const task of opts.startupTasks) await task(handle);
    });
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}, { name: 'platform-database', dependencies: ['platform-config'] });
