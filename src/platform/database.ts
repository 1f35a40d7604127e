/**
 * The database: Drizzle over PGlite (in-memory, dev and tests) or postgres.js (PostgreSQL).
 * Both run the same migrations from /migrations and the same queries (ARCHITECTURE rule 4).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgDatabase, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import type { FastifyBaseLogger } from 'fastify';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import type { DatabaseConfig } from '../config.js';
import { dropSnapshot, readSnapshot, snapshotKey, writeSnapshot } from './pglite-snapshot.js';

export type Database = PgDatabase<PgQueryResultHKT, Record<string, never>>;
/** The database or a transaction: what query functions take as their first argument. */
export type Executor = Database | PgTransaction<PgQueryResultHKT, Record<string, never>>;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Advisory-lock key for start-up work that writes (migrations, seeding): "radarstr" in ASCII. */
const STARTUP_LOCK_KEY = 0x7261646172737472n;

export interface DatabaseHandle {
  db: Database;
  kind: DatabaseConfig['kind'];
  /** Runs `fn` while holding the cluster-wide start-up lock, so instances starting together take turns. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs the migrations (call inside `exclusive`). */
  migrate(): Promise<void>;
  /** Cheap liveness query for health checks, on its own connection (not queued behind the pool's work). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  log: FastifyBaseLogger;
  /** How long to retry the first PostgreSQL connection. */
  bootWaitSeconds: number;
  /** PGlite only: start from a data directory dump (tests use a migrated snapshot). */
  pgliteDataDir?: Blob;
  /** PGlite only: use this open instance instead of opening one (tests lend one per worker). */
  pglite?: PgliteLease;
  /**
   * PGlite only, without `pgliteDataDir`: keep a migrated snapshot in this directory and start from
   * it (pglite-snapshot.ts). Without it every start runs initdb and every migration.
   */
  pgliteSnapshotDir?: string;
}

/**
 * An open PGlite lent to the app: the app migrates it as usual and, when it closes, hands it back
 * instead of closing it (a test worker resets it and lends it to the next test file, which saves
 * PGlite's start-up of about a second per file).
 */
export interface PgliteLease {
  client: PGlite;
  release(): Promise<void>;
}
/**
 * An in-memory PGlite from the migrated snapshot of `dir` (pglite-snapshot.ts). Without one (first
 * start, or the migrations changed) it is made: initdb, the migrations, a dump stored for the next
 * start. A snapshot that cannot be stored or loaded costs only the time it would have saved.
 */
async function openFromSnapshot<C extends { dumpDataDir(compression: 'none'): Promise<Blob | File>; close(): Promise<void> }>(
  dir: string, log: FastifyBaseLogger, pglite: { create(loadDataDir?: Blob): Promise<C>; migrate(client: C): Promise<void> },
): Promise<C> {
  const version = (JSON.parse(await readFile(fileURLToPath(new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))), 'utf8')) as { version: string }).version;
  const key = await snapshotKey(MIGRATIONS_FOLDER, version);
  const snapshot = await readSnapshot(dir, key);
  if (snapshot) {
    try {
      const client = await pglite.create(snapshot);
      log.info({ snapshot: dir, key }, 'PGlite opened from the migrated snapshot');
      return client;
    } catch (err) {
      log.warn({ snapshot: dir, key, reason: (err as Error).message }, 'PGlite snapshot could not be loaded: removed, migrating afresh');
      await dropSnapshot(dir, key).catch(() => {});
    }
  }
  const client = await pglite.create();
  await pglite.migrate(client);
  try {
    await writeSnapshot(dir, key, await client.dumpDataDir('none'));
    log.info({ snapshot: dir, key }, 'PGlite snapshot of the migrated schema stored for the next start');
  } catch (err) {
    log.warn({ snapshot: dir, reason: (err as Error).message }, 'PGlite snapshot could not be stored: the next start migrates afresh');
  }
  return client;
}

export async function openDatabase(config: DatabaseConfig, opts: OpenOptions): Promise<DatabaseHandle> {
  return config.kind === 'pglite' ? openPglite(opts) : openPostgres(config, opts);
}

/**
 * PGlite's WebAssembly (PostgreSQL and initdb, compiled) and its file-system bundle, loaded once per
 * process and shared by every PGlite it opens: the service opens one, a test worker one per test
 * file, which otherwise compiled 9 MB of WebAssembly each time.
 */
type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
// The compiler libs here have neither WebAssembly's global value nor (in the build) its types.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;
let pgliteAssets: Promise<{ pgliteWasmModule: WasmModule; initdbWasmModule: WasmModule; fsBundle: Blob }> | undefined;
function loadPgliteAssets() {
  pgliteAssets ??= (async () => {
    const asset = (name: string) => readFile(fileURLToPath(new URL(name, import.meta.resolve('@electric-sql/pglite'))));
    const [pglite, initdb, bundle] = await Promise.all([asset('pglite.wasm'), asset('initdb.wasm'), asset('pglite.data')]);
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([wasm.compile(pglite), wasm.compile(initdb)]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([bundle]) };
  })();
  return pgliteAssets;
}

/** Opens an in-memory PGlite, empty or from a data directory dump, on the process's shared WebAssembly. */
export async function createPglite(dataDir?: Blob): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const assets = await loadPgliteAssets();
  return PGlite.create({ ...assets, ...(dataDir ? { loadDataDir: dataDir } : {}) });
}

async function openPglite(opts: OpenOptions): Promise<DatabaseHandle> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const lease = opts.pglite ?? await (async () => {
    let opened: PGlite;
    if (opts.pgliteDataDir) {
      opened = await createPglite(opts.pgliteDataDir);
    } else if (opts.pgliteSnapshotDir) {
      opened = await openFromSnapshot(opts.pgliteSnapshotDir, opts.log, {
        create: (loadDataDir) => createPglite(loadDataDir),
        migrate: (fresh) => migrate(drizzle(fresh), { migrationsFolder: MIGRATIONS_FOLDER }),
      });
    } else {
      opened = await createPglite();
    }
    return { client: opened, release: () => opened.close() };
  })();
  const { client } = lease;
  const db = drizzle(client) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    // PGlite has one session in one process: nothing else can start concurrently.
    exclusive: (fn) => fn(),
    migrate: () => migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => { await client.query('select 1'); },
    close: () => lease.release(),
  };
}

/**
 * Drizzle sends every query unprepared (`prepare: false`), so PostgreSQL parses and plans the same
 * statement again on each call. This view of the client prepares them: postgres.js keeps one named
 * statement per query text and connection (connections are recycled within an hour, which bounds
 * the cache), and PostgreSQL reuses the plan.
 */
function preparedStatements<T extends object>(sql: T): T {
  return new Proxy(sql, {
    get(target, prop) {
      const value = (target as Record<PropertyKey, unknown>)[prop];
      if (typeof value !== 'function') return value;
      if (prop === 'unsafe') {
        return (query: string, args?: unknown[], options?: object) => (value as (...a: unknown[]) => unknown)(query, args, { ...options, prepare: true });
      }
      if (prop === 'begin' || prop === 'savepoint') {
        // Transactions run on their own connection object: prepare its statements too.
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: object) => unknown;
          return (value as (...a: unknown[]) => unknown)(...args, (tx: object) => fn(preparedStatements(tx)));
        };
      }
      return value;
    },
  });
}

async function openPostgres(config: Extract<DatabaseConfig, { kind: 'postgres' }>, opts: OpenOptions): Promise<DatabaseHandle> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const options = {
    username: config.username,
    password: config.password,
    onnotice: () => {},
    connect_timeout: 10,
    // Seconds before reconnecting after failed attempts. postgres.js's default grows to 20 s after a
    // few refused connections (they add up across the pool), and queued queries wait it out: after
    // a database restart, requests hung that long. 50 ms doubling, at most 1 s.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    // JIT off for this service's sessions: its queries are short, and PostgreSQL's default (`jit` on
    // above a plan cost of 100,000) compiled a user's whole notification list expression with LLVM
    // whenever the planner's estimate crossed that cost (stale or growing statistics): ~0.2–1 s of
    // CPU per list instead of ~5 ms, which filled the pool and answered 503s in the soaks.
    connection: { application_name: 'radar-platform', jit: 'off' },
  } as const;
  const client = postgres(config.url, { ...options, max: config.poolSize });
  // The health check's own connection. Through the pool, a probe waited behind every queued query
  // and answered DOWN (503) after its 2 s whenever a burst of load filled the pool, while the
  // database answered fine: a load balancer or Kubernetes would then take a busy instance out.
  // Here it measures what it says, whether PostgreSQL answers. Closed after a minute idle.
  const probe = postgres(config.url, { ...options, max: 1, idle_timeout: 60 });

  const deadline = Date.now() + opts.bootWaitSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      await client`select 1`;
      break;
    } catch (err) {
      const reason = (err as Error).message;
      if (Date.now() >= deadline) {
        await client.end({ timeout: 1 }).catch(() => {});
        throw new Error(`Cannot connect to PostgreSQL at ${redactUrl(config.url)} after ${opts.bootWaitSeconds} s (BOOT_WAIT_SECONDS): ${reason}`);
      }
      opts.log.warn({ attempt, reason }, 'database not reachable yet, retrying');
      await sleep(Math.min(1000, Math.max(50, deadline - Date.now())));
    }
  }

  // The notification queue inserts each message and updates it twice: with autovacuum off, dead
  // rows pile up and every query on the queue slows down (docs/reliability.md, the soak).
  const [autovacuum] = await client<{ setting: string }[]>`select setting from pg_settings where name = 'autovacuum'`;
  if (autovacuum?.setting !== 'on') opts.log.warn('PostgreSQL runs with autovacuum off: the notification queue will bloat and slow down; turn it on or VACUUM appserver.messages regularly');

  const db = drizzle(preparedStatements(client)) as unknown as Database;
  return {
    db,
    kind: 'postgres',
    async exclusive(fn) {
      // Session-level advisory lock on one reserved connection; the work itself may use the pool.
      const conn = await client.reserve();
      try {
        await conn`select pg_advisory_lock(${STARTUP_LOCK_KEY.toString()}::bigint)`;
        return await fn();
      } finally {
        await conn`select pg_advisory_unlock(${STARTUP_LOCK_KEY.toString()}::bigint)`.catch(() => {});
        conn.release();
      }
    },
    migrate: () => migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER }),
    ping: async () => { await probe`select 1`; },
    close: async () => { await Promise.all([client.end({ timeout: 5 }), probe.end({ timeout: 1 })]); },
  };
}

/** Hides the password of a database URL for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable url>';
  }
}

/**
 * The constraint a driver error names (postgres.js `constraint_name`, PGlite `constraint`), looking
 * through Drizzle's wrapper as `sqlState` does.
 */
export function constraintName(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { constraint_name: postgresJs, constraint: pglite } = e as { constraint_name?: unknown; constraint?: unknown };
    if (typeof postgresJs === 'string' && postgresJs) return postgresJs;
    if (typeof pglite === 'string' && pglite) return pglite;
  }
  return undefined;
}

/** SQLSTATE of a driver error, looking through Drizzle's `DrizzleQueryError` wrapper. */
export function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === '23505';

/** postgres.js and Node socket codes of a connection that failed or broke. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND',
]);

/**
 * Whether an error means the database cannot be reached right now (down, restarting, shutting
 * down, out of connections), rather than that the query was wrong: SQLSTATE class 08, 57P01–57P03
 * and 53300, or a connection-level code of the driver or socket, looking through wrappers.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const state = sqlState(err);
  if (state) return state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300';
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  }
  return false;
}

/** Result rows of `db.execute`: postgres.js returns an array, PGlite an object with `rows`. */
export function executedRows(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
}

/**
 * How many rows a statement changed. postgres.js returns an array (empty without RETURNING) that
 * carries `count`, so `count` is read before the length; PGlite reports `affectedRows`.
 */
export function affectedRows(result: unknown): number {
  const r = result as { count?: unknown; affectedRows?: unknown; length?: unknown };
  if (typeof r.count === 'number') return r.count;
  if (typeof r.affectedRows === 'number') return r.affectedRows;
  return Array.isArray(r) ? r.length : 0;
}

const dialect = new PgDialect();

/**
 * A constant SQL fragment (identifiers and SQL only, no parameters) rendered to text once. Drizzle
 * walks a fragment's every chunk each time a query is built, which for the big JSON sub-selects of
 * a list page cost more CPU than PostgreSQL spent running the query.
 */
export function renderedOnce<T>(fragment: SQL<T>): SQL<T> {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new Error('renderedOnce: the fragment has parameters');
  return sql.raw(text) as SQL<T>;
}
