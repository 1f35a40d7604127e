/**
 * One import run (issue 32): migrate the target, make sure it is a new installation (or this
 * importer's own earlier target), then each source in its own read-only repeatable-read
 * transaction, table by table (engine.ts), and a report.
 *
 * Writes: each batch commits with its bookkeeping rows, so a run killed anywhere is resumed by
 * running it again. `dryRun` runs the same reads, checks and writes in one target transaction that
 * is rolled back at the end (the migrations, which the service would run at its start anyway, are
 * the only thing a dry run leaves behind).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Sql } from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { openDatabase, redactUrl } from '../platform/database.js';
import { IdMap, importTable, type TableReport, type TableSpec, type Tx } from './engine.js';
import { appserverTables, hasQuartzTables } from './radar-appserver.js';
import { MANAGEMENTPORTAL_TABLES, managementPortalSource } from './managementportal.js';

export interface ImportOptions {
  /** The target: this service's PostgreSQL (the prod settings' `DATABASE_URL`). */
  target: Extract<DatabaseConfig, { kind: 'postgres' }>;
  managementportal?: string;
  appserver?: string;
  dryRun?: boolean;
  overwrite?: boolean;
  /** `--history`: sent Appserver messages scheduled within this ISO-8601 period come too (default none). */
  history?: string;
  batchSize?: number;
  log: FastifyBaseLogger;
  progress?: (table: string, rows: number, seconds: number) => void;
}

export interface ImportReport {
  runId: string;
  dryRun: boolean;
  overwrite: boolean;
  startedAt: string;
  finishedAt: string;
  sources: Record<string, string>;
  tables: Record<string, TableReport & { rowsPerSecond: number }>;
  /** The schema version of each source read (`managementportal`: `2.1.x` or `3.0.0`). */
  versions: Record<string, string>;
  /** What the report says besides the tables: what did not move, and why. */
  notes: string[];
  /** Rows skipped for an error (conflicts, rows the target refused): the run failed when > 0. */
  skippedForError: number;
  ok: boolean;
}

/** The import refuses to start: the target holds data that did not come from this importer. */
export class TargetNotNew extends Error {}

/** Built-in and dev demo rows a new installation may hold (managementportal.md §9, demo-data.ts). */
const BUILT_IN_LOGINS = `(login = any(array['admin', 'padmin', 'padmin2', 'oadmin']) or login ~ '^sub-[0-9]+$')`;
/** The app server's dev demo data (appserver/demo-data.ts): project `radar`, its users and their messages. */
const DEMO_APP_USERS = `user_id in (select u.id from appserver.users u join appserver.projects p on p.id = u.project_id where p.project_id = 'radar')`;
const NEW_INSTALLATION_CHECKS: Array<{ table: string; source: string; sourceTables: string[]; builtIn: string }> = [
  { table: 'management.users', source: 'managementportal', sourceTables: ['radar_user'], builtIn: BUILT_IN_LOGINS },
  { table: 'management.organizations', source: 'managementportal', sourceTables: ['radar_organization'], builtIn: `name = 'main'` },
  { table: 'management.projects', source: 'managementportal', sourceTables: ['project'], builtIn: `project_name in ('radar', 'Radar-Pilot-01')` },
  { table: 'management.subjects', source: 'managementportal', sourceTables: ['subject'], builtIn: `user_id in (select id from management.users where ${BUILT_IN_LOGINS})` },
  { table: 'management.sources', source: 'managementportal', sourceTables: ['radar_source'], builtIn: `source_name = 'source-1'` },
  { table: 'appserver.projects', source: 'appserver', sourceTables: ['projects'], builtIn: `project_id = 'radar'` },
  { table: 'appserver.users', source: 'appserver', sourceTables: ['users'], builtIn: `project_id in (select id from appserver.projects where project_id = 'radar')` },
  { table: 'appserver.messages', source: 'appserver', sourceTables: ['notifications', 'data_messages'], builtIn: DEMO_APP_USERS },
  { table: 'appserver.tasks', source: 'appserver', sourceTables: ['tasks'], builtIn: DEMO_APP_USERS },
];

/**
 * Rows of the target that are neither built-in (nor dev demo data) nor written by an earlier run
 * of this importer: one line per table that has any.
 */
export async function foreignRows(target: Sql): Promise<string[]> {
  const found: string[] = [];
  for (const check of NEW_INSTALLATION_CHECKS) {
    const [row] = await target.unsafe<Array<{ n: string }>>(
      `select count(*)::text as n from ${check.table} t where not (${check.builtIn})
       and not exists (select 1 from import.imported_rows b where b.source = $1 and b.source_table = any($2::text[]) and b.target_key = t.id::text)`,
      [check.source, check.sourceTables],
    );
    if (row && row.n !== '0') found.push(`${check.table}: ${row.n} rows`);
  }
  return found;
}

class DryRunRollback extends Error {}

/**
 * Batches of one table written at once (engine.ts): the target's work per row is most of an
 * import's, and one writer keeps one of its backends busy while this process mostly waits.
 */
const WRITERS = 2;

export async function runImport(opts: ImportOptions): Promise<ImportReport> {
  if (!opts.managementportal && !opts.appserver) throw new Error('nothing to import: give --managementportal and/or --appserver');
  const appserverSpecs = appserverTables(opts.history ?? null);
  const startedAt = new Date();
  const runId = randomUUID();
  const dryRun = opts.dryRun ?? false;

  // The service's own migrator, under its start-up lock: instances starting meanwhile wait.
  const handle = await openDatabase({ ...opts.target, poolSize: 2 }, { log: opts.log, bootWaitSeconds: 10 });
  try {
    await handle.exclusive(() => handle.migrate());
  } finally {
    await handle.close();
  }

  const { default: postgres } = await import('postgres');
  const target = postgres(opts.target.url, {
    // Each source writes up to WRITERS batches at once on connections of its own (engine.ts).
    max: 2 * WRITERS, username: opts.target.username, password: opts.target.password, onnotice: () => {},
    // Each batch commits without waiting for its WAL flush: a crash of the target's server can lose
    // the last batches, each whole with its bookkeeping rows, and the next run writes them again.
    connection: { application_name: 'radar-import', synchronous_commit: 'off' },
  });
  const sources: Record<string, string> = {};
  if (opts.managementportal) sources.managementportal = redactUrl(opts.managementportal);
  if (opts.appserver) sources.appserver = redactUrl(opts.appserver);
  const tables: ImportReport['tables'] = {};
  const versions: ImportReport['versions'] = {};
  const notes: string[] = [];
  try {
    const foreign = await foreignRows(target);
    if (foreign.length > 0) {
      throw new TargetNotNew(`the target is not a new installation (rows that are neither built-in nor from an earlier import: ${foreign.join(', ')}); import into a new database`);
    }
    if (!dryRun) await target`insert into import.runs (id, sources) values (${runId}, ${target.json(sources)})`;

    const ids = new IdMap();
    // The dry run's one transaction writes one batch after the other.
    const settings = { dryRun, overwrite: opts.overwrite ?? false, batchSize: opts.batchSize ?? 500, ids, progress: opts.progress, writers: dryRun ? 1 : WRITERS };
    const bySource: Record<string, ImportReport['tables']> = { managementportal: {}, appserver: {} };
    const importManagementPortal = async (run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>) => {
      await loadIdMap(target, 'managementportal', MANAGEMENTPORTAL_TABLES, ids);
      await importSource('managementportal', opts.managementportal!, async (tx) => {
        const found = await managementPortalSource(tx);
        versions.managementportal = found.version;
        notes.push(...found.notes);
        return MANAGEMENTPORTAL_TABLES;
      }, run, bySource.managementportal!, settings);
    };
    const importAppserver = async (run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>) => {
      await loadIdMap(target, 'appserver', appserverSpecs, ids);
      // Which messages are on the reference's schedule: its Quartz tables say, when it has them.
      await importSource('appserver', opts.appserver!, async (tx) => appserverTables(opts.history ?? null, await hasQuartzTables(tx)), run, bySource.appserver!, settings);
    };
    /**
     * The two sources write tables of their own (no reference between the two schemas, ids mapped
     * per target table), so a run that commits batch by batch imports both at once, each on its own
     * target connection; the dry run's one transaction takes them one after the other.
     */
    const work = async (run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>, together: boolean) => {
      const jobs = [
        ...(opts.managementportal ? [() => importManagementPortal(run)] : []),
        ...(opts.appserver ? [() => importAppserver(run)] : []),
      ];
      if (together) {
        // Both run to their end (a failing one does not leave the other writing unobserved).
        const failed = (await Promise.allSettled(jobs.map((job) => job()))).find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
      } else {
        for (const job of jobs) await job();
      }
      Object.assign(tables, bySource.managementportal, bySource.appserver);
    };
    if (dryRun) {
      await target.begin(async (outer) => {
        await work((fn) => outer.savepoint((sp) => fn(sp as unknown as Tx)) as Promise<Awaited<ReturnType<typeof fn>>>, false);
        throw new DryRunRollback();
      }).catch((err: unknown) => {
        if (!(err instanceof DryRunRollback)) throw err;
      });
    } else {
      await work((fn) => target.begin((tx) => fn(tx as unknown as Tx)) as Promise<Awaited<ReturnType<typeof fn>>>, true);
    }

    const skippedForError = Object.values(tables).reduce((n, t) => n + t.skipped.filter((s) => s.error).length, 0);
    const report: ImportReport = {
      runId, dryRun, overwrite: opts.overwrite ?? false, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(),
      sources, versions, tables, notes, skippedForError, ok: skippedForError === 0,
    };
    if (!dryRun) await target`update import.runs set finished_at = now(), report = ${target.json(JSON.parse(JSON.stringify(report)))} where id = ${runId}`;
    return report;
  } finally {
    await target.end({ timeout: 5 });
  }
}

/** The target keys that differ from their source keys (merged built-in rows, roles) of earlier runs. */
async function loadIdMap(target: Sql, source: string, specs: TableSpec[], ids: IdMap): Promise<void> {
  const targetOf = new Map(specs.map((s) => [s.name, s.target]));
  const rows = await target<Array<{ source_table: string; source_key: string; target_key: string }>>`
    select source_table, source_key, target_key from import.imported_rows where source = ${source} and source_key <> target_key`;
  for (const r of rows) {
    const table = targetOf.get(r.source_table);
    if (table) ids.set(table, r.source_key, r.target_key);
  }
}

async function importSource(
  name: string, url: string, specsOf: TableSpec[] | ((source: Tx) => Promise<TableSpec[]>), run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>,
  tables: ImportReport['tables'], opts: { dryRun: boolean; overwrite: boolean; batchSize: number; ids: IdMap; progress?: ImportOptions['progress']; writers: number },
): Promise<void> {
  const { default: postgres } = await import('postgres');
  const source = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'radar-import (read-only)' } });
  try {
    // One snapshot of the whole source: its tables agree with each other, and nothing is written there.
    await source.begin('isolation level repeatable read read only', async (tx) => {
      const specs = typeof specsOf === 'function' ? await specsOf(tx as unknown as Tx) : specsOf;
      let written = false;
      for (const spec of specs) {
        const report = await importTable(spec, tx as unknown as Tx, run, {
          source: name, dryRun: opts.dryRun, overwrite: opts.overwrite, batchSize: opts.batchSize, ids: opts.ids, writers: opts.writers,
          progress: opts.progress && ((table, rows, seconds) => opts.progress!(`${name}.${table}`, rows, seconds)),
        });
        tables[`${name}.${spec.name}`] = { ...report, rowsPerSecond: report.seconds > 0 ? Math.round(report.read / report.seconds) : 0 };
        written ||= report.imported + report.updated + report.deleted > 0;
      }
      // Fresh statistics of the bookkeeping, for the next run's lookups.
      if (written) await run((target) => target.unsafe('analyze import.imported_rows'));
    });
  } finally {
    await source.end({ timeout: 5 });
  }
}
