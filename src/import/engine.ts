/**
 * The importer's table engine: streams one source table through a cursor, maps each row onto its
 * target table, and writes it together with its bookkeeping row (schema.ts), one transaction per
 * batch, so a run killed at any point leaves only whole batches behind and the next run carries on
 * from there (rows already written and unchanged are counted "unchanged").
 *
 * The target is written with SQL against its tables (not through the domains' services or Drizzle
 * schemas): the importer keeps the source's ids, which no service lets a caller choose, and the
 * lint boundaries keep `src/import` out of both domains' code (eslint.config.js).
 *
 * Per source row, in this order:
 *  1. already imported (bookkeeping row): same content hash → unchanged; else written over its
 *     target row → updated;
 *  2. else the target rows with the same id or the same natural key (login, name, client id…):
 *     none → inserted with the source's id; a built-in row every installation has (`merge`) → the
 *     source's content written over it, its id kept; the same content → adopted; anything else →
 *     skipped as a conflict (an error) unless `--overwrite`.
 * After the stream, target rows imported earlier whose source row is gone are deleted.
 *
 * What a run can know saves work: a table with no bookkeeping rows yet (its first run) skips the
 * per-batch bookkeeping lookup, since each source key comes once (a key that repeats turns the
 * lookup back on); and a run that met every bookkeeping row of an earlier run again, each key once,
 * has nothing to delete and skips asking the source which keys it still has.
 */
import { hash } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';

export type Row = Record<string, unknown>;
/** A transaction (or savepoint) on the source or target. */
export type Tx = TransactionSql<Record<string, unknown>>;

export interface Skip { key: string; reason: string; error: boolean }

export interface TableReport {
  read: number;
  imported: number;
  updated: number;
  unchanged: number;
  deleted: number;
  skipped: Skip[];
  seconds: number;
}

/** Maps source ids to target ids where they differ (merged built-in rows, roles). */
export class IdMap {
  private readonly maps = new Map<string, Map<string, string>>();
  set(table: string, sourceKey: string, targetKey: string): void {
    if (sourceKey === targetKey) {
      this.maps.get(table)?.delete(sourceKey);
      return;
    }
    let m = this.maps.get(table);
    if (!m) this.maps.set(table, m = new Map());
    m.set(sourceKey, targetKey);
  }
  /** The target id of a source id of `table` (null stays null). */
  get(table: string, sourceKey: unknown): string | null {
    if (sourceKey === null || sourceKey === undefined) return null;
    const key = String(sourceKey);
    return this.maps.get(table)?.get(key) ?? key;
  }
}

export interface TableSpec {
  /** Name in the report and in the bookkeeping (the source's table name). */
  name: string;
  /** Target table, schema-qualified (`management.users`). */
  target: string;
  /** The source query, ordered by its key; each row carries `_key` (text). */
  select: string;
  /** Target columns and their SQL types, in insert order (the first is the id or the first key column). */
  columns: Array<[string, string]>;
  /** Conflict target of the upsert (`id`, or the link table's key columns). */
  conflict: string[];
  /** SQL condition (aliases `t` target, `x` incoming) for "the same natural key", besides the same id. */
  naturalKey?: string;
  /**
   * `naturalKey` as a string, when it is plain equality of columns: rows whose strings differ never
   * match each other by natural key (a null may compare equal here, never the reverse). With it,
   * batches whose rows share no natural key are written at once (see `importTable`).
   */
  naturalKeyOf?(row: Row): string;
  /** Columns compared to decide whether an existing target row has "the same content". */
  compare?: string[];
  /** Source row → target row (ids mapped); undefined skips the row with the reason thrown. */
  map(row: Row, ids: IdMap): Row;
  /** Built-in rows every installation has, merged with the source winning. */
  merge?(row: Row): boolean;
  /**
   * Rows `--verify` does not compare field by field, because the service rewrites them at every
   * start from its own settings (`ManagementPortalapp`).
   */
  rewrittenAtStart?(row: Row): boolean;
  /** A natural-key match is always adopted (roles: shared rows, ids no client holds). */
  adoptByNaturalKey?: boolean;
  /** Link tables: nothing to update, the key is the whole row. */
  link?: boolean;
  /**
   * Columns whose update keeps a value of the target row: the SQL (aliases `t` the target row,
   * `excluded` the incoming one) set instead of the incoming value when an existing row is written over.
   */
  onUpdate?: Record<string, string>;
  /**
   * The target's id is its own (no client holds it, the source has no single-column id): a new
   * row takes the next values of the id sequence, the bookkeeping keeps which.
   */
  generatedId?: boolean;
  /**
   * Runs once before the stream, in its own batch: makes room in the target (`source` still in
   * its snapshot). Must be idempotent.
   */
  prepare?(source: Tx, target: Tx, opts: EngineOptions): Promise<void>;
  /** Whether `id` is a bigserial whose sequence must pass the imported ids. */
  sequence?: boolean;
  /**
   * Which of the keys `$1` (text[]) the source still has, as rows of `_key`: a query that can use
   * the source's index (the default filters the whole `select`).
   */
  present?: string;
  /**
   * How many keys one `present` query checks (default 1,000): larger for a `present` that scans a
   * table of the source (no index there to use), so the scans stay few.
   */
  presentPage?: number;
}

export interface EngineOptions {
  source: string;
  dryRun: boolean;
  overwrite: boolean;
  batchSize: number;
  ids: IdMap;
  progress?: (table: string, rows: number, seconds: number) => void;
  /** How many batches of a table may be written at once (each in its own transaction; default 1). */
  writers?: number;
}

const hashOf = (row: Row, columns: Array<[string, string]>) =>
  hash('sha256', JSON.stringify(columns.map(([c]) => row[c] ?? null)), 'base64url');

/**
 * A value as the text its column's type reads: what `JSON.stringify` would have written, unquoted
 * (a Date as its ISO instant, an invalid one or a non-finite number as null), a json/jsonb value as
 * its JSON text, an array for an array column as an array literal.
 */
export function textOf(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'json' || type === 'jsonb') return JSON.stringify(value);
  if (value instanceof Date) return value.toJSON();
  if (type.endsWith('[]') && Array.isArray(value)) return arrayLiteral(value.map((v) => (v === null || v === undefined ? null : String(v))));
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A text array's literal (`{"a","b \\"c\\"",NULL}`). */
const arrayLiteral = (values: Array<string | null>) =>
  `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;

/**
 * Rows sent to the target as one text array per column (`rowParams`: each an array literal, sent as
 * it is), read back as typed rows by `rowsFrom`: the database parses an array of text several times
 * faster than json_to_recordset's objects (a hash table per object), and the casts are the same
 * input functions.
 */
const rowsFrom = (columns: Array<[string, string]>, first: number) =>
  `(select ${columns.map(([c, t], i) => `u.c${i}::${t} as "${c}"`).join(', ')}
    from unnest(${columns.map((_, i) => `$${first + i}::text[]`).join(', ')}) as u(${columns.map((_, i) => `c${i}`).join(', ')}))`;
/** One array literal per column of `rows`; `column`'s values from `values` instead (no row copied to change one value). */
const rowParams = (rows: Row[], columns: Array<[string, string]>, column?: string, values?: string[]) =>
  columns.map(([c, t]) => arrayLiteral(c === column ? values! : rows.map((r) => textOf(r[c], t))));
/** `rowParams` of incoming rows with their source key as column `_key` (the lookups' `x._key`). */
const keyedParams = (items: Incoming[], columns: Array<[string, string]>) =>
  rowParams(items.map((i) => i.row), columns, '_key', items.map((i) => i.key));
const colList = (columns: string[], prefix = '') => columns.map((c) => `${prefix}"${c}"`).join(', ');

interface Incoming { key: string; row: Row; hash: string }

/** Tables keyed by several columns: their target key is those columns' values joined by `:`. */
const composite = (spec: TableSpec) => spec.link === true || spec.conflict.length > 1;

/**
 * Imports one table. `source` is the source's read-only transaction, `target` the target client;
 * `run(fn)` wraps each batch's writes (a committed transaction, or a savepoint of the dry run's
 * one transaction that is rolled back at the end).
 */
export async function importTable(
  spec: TableSpec, source: Tx, run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>, opts: EngineOptions,
): Promise<TableReport> {
  const started = performance.now();
  const report: TableReport = { read: 0, imported: 0, updated: 0, unchanged: 0, deleted: 0, skipped: [], seconds: 0 };
  const tick = () => opts.progress?.(spec.name, report.read, (performance.now() - started) / 1000);

  if (spec.prepare) await run((tx) => spec.prepare!(source, tx, opts));
  // What earlier runs wrote of this table: none (a first run) → no batch can find a bookkeeping
  // row of its keys (each key comes once, see `lastKey`), and nothing can be gone.
  const [counted] = await run((tx) => tx<Array<{ n: number }>>`
    select count(*)::int as n from import.imported_rows where source = ${opts.source} and source_table = ${spec.name}`);
  const bookedBefore = counted?.n ?? 0;
  const state: BatchState = { lookup: bookedBefore > 0, known: 0 };
  let keysUnique = true;
  let lastKey: string | undefined;

  // One batch is written while the next is read from the source and mapped: the source, this
  // process and the target work at the same time. Up to `opts.writers` batches of a table are
  // written at once, each on its own connection, when their rows cannot meet in the target: each
  // key once so far (so each id once), not a link table, and no natural key or none shared with a
  // batch still being written (`naturalKeyOf`). Otherwise the batch waits for those before it, so
  // that of two rows with the same natural key the first is always the one imported.
  const writing: Array<{ done: Promise<void>; keys?: Set<string> }> = [];
  let batch: Incoming[] = [];
  const flush = async (drain = false) => {
    const current = batch;
    batch = [];
    const keys = spec.naturalKeyOf && current.length > 0 ? new Set(current.map((i) => spec.naturalKeyOf!(i.row))) : undefined;
    const parallel = !spec.link && keysUnique && (spec.naturalKey === undefined || keys !== undefined)
      && !(keys && writing.some((w) => w.keys && [...keys].some((k) => w.keys!.has(k))));
    const limit = drain || !parallel ? 0 : Math.max(1, opts.writers ?? 1) - 1;
    while (writing.length > limit) await writing.shift()!.done;
    if (current.length === 0) return;
    const lookup = state.lookup;
    const done = run((tx) => writeBatch(spec, tx, current, opts, report, state, lookup)).then(tick);
    // Awaited by a later flush; an error before then must not go unhandled.
    done.catch(() => {});
    writing.push({ done, keys });
  };
  const cursor = source.unsafe(spec.select).cursor(opts.batchSize)[Symbol.asyncIterator]();
  let next = Promise.resolve(cursor.next());
  let finished = false;
  try {
    for (;;) {
      const fetched = await next;
      if (fetched.done) {
        finished = true;
        break;
      }
      // Ask for the next batch now: the source reads it while this one is mapped and written.
      next = Promise.resolve(cursor.next());
      next.catch(() => {});
      for (const raw of fetched.value as Row[]) {
        report.read++;
        const key = String(raw._key);
        // The select is ordered by its key: a key that comes twice comes in a row. Then the
        // bookkeeping is looked up from here on, as for a repeated run.
        if (key === lastKey) {
          keysUnique = false;
          state.lookup = true;
        }
        lastKey = key;
        let row: Row;
        try {
          row = spec.map(raw, opts.ids);
        } catch (err) {
          report.skipped.push({ key, reason: (err as Error).message, error: true });
          continue;
        }
        batch.push({ key, row, hash: hashOf(row, spec.columns) });
        if (batch.length >= opts.batchSize) await flush();
      }
    }
    await flush(true);
    await flush(true);
  } catch (err) {
    // The batches still being written end (committed or not) before the error goes on.
    await Promise.allSettled(writing.map((w) => w.done));
    throw err;
  } finally {
    // Stopped early (an error): close the cursor once the batch asked for has come, so the
    // source's transaction can end.
    if (!finished && !(await next.catch(() => ({ done: true }))).done) await cursor.return?.();
  }
  // Every bookkeeping row of an earlier run was met again (each key once): none is gone.
  if (bookedBefore > 0 && !(keysUnique && state.known === bookedBefore)) {
    await run((tx) => deleteGone(spec, source, tx, opts, report));
  }
  if (spec.sequence) await run((tx) => advanceSequence(tx, spec.target));
  // Fresh statistics for what was written (a new target has none): for the service's queries,
  // before autovacuum gets to it. The bookkeeping's are renewed once per source (run.ts): sampling
  // it after each table read most of its pages again and again, and only a later run looks it up.
  if (report.imported + report.updated + report.deleted > 0) await run((tx) => tx.unsafe(`analyze ${spec.target}`));
  report.seconds = (performance.now() - started) / 1000;
  tick();
  return report;
}

/** Per table: whether batches look up the bookkeeping, and how many of its rows they found. */
interface BatchState { lookup: boolean; known: number }

async function writeBatch(
  spec: TableSpec, tx: Tx, batch: Incoming[], opts: EngineOptions, report: TableReport, state: BatchState, lookup: boolean,
): Promise<void> {
  const known = new Map<string, { targetKey: string; hash: string }>();
  if (lookup) {
    // A join on the keys, not `source_key = any(…)`: the prepared statement's generic plan, made
    // while the table had no statistics yet, read every bookkeeping row of the table through
    // (source, source_table) for each batch, and a run slowed down with every batch it wrote.
    const rows = await tx<{ source_key: string; target_key: string; content_hash: string }[]>`
      select b.source_key, b.target_key, b.content_hash from unnest(${batch.map((b) => b.key)}::text[]) k
      join import.imported_rows b on b.source = ${opts.source} and b.source_table = ${spec.name} and b.source_key = k`;
    for (const r of rows) known.set(r.source_key, { targetKey: r.target_key, hash: r.content_hash });
    state.known += rows.length;
  }

  const ownKey = (item: Incoming) =>
    (composite(spec) ? spec.conflict.map((c) => String(item.row[c])).join(':') : String(item.row[spec.conflict[0]!]));
  // A first run's batch (no bookkeeping row, each key once) of a table without a natural key: its
  // rows can meet target rows only by their key, a unique index, so plain inserts that succeed are
  // what matching them first would have led to (no match), without matching. Should one fail (a row
  // with that key there, or one the target refuses), the batch goes the long way below.
  if (!lookup && spec.naturalKey === undefined && !spec.generatedId) {
    const all = batch.map((item) => ({ ...item, targetKey: ownKey(item) }));
    try {
      await tx.savepoint((sp) => upsert(spec, sp, all, opts, true));
      report.imported += all.length;
      return;
    } catch {
      // The long way.
    }
  }

  // `fresh`: matched nothing in the target (see `upsert`).
  const writes: Array<Incoming & { targetKey: string; kind: 'imported' | 'updated'; fresh?: boolean }> = [];
  const fresh: Incoming[] = [];
  for (const item of batch) {
    const k = known.get(item.key);
    if (!k) fresh.push(item);
    else if (k.hash === item.hash) report.unchanged++;
    else writes.push({ ...item, targetKey: k.targetKey, kind: 'updated' });
  }

  if (fresh.length > 0 && spec.generatedId) {
    const made = await tx.unsafe<Array<{ id: string }>>(
      `select nextval(pg_get_serial_sequence($1, 'id'))::text as id from generate_series(1, $2::int)`, [spec.target, fresh.length],
    );
    fresh.forEach((item, i) => writes.push({ ...item, targetKey: made[i]!.id, kind: 'imported', fresh: true }));
  } else if (fresh.length > 0) {
    const matches = await findMatches(spec, tx, fresh);
    for (const item of fresh) {
      const found = matches.get(item.key) ?? [];
      if (found.length === 0) {
        writes.push({ ...item, targetKey: ownKey(item), kind: 'imported', fresh: true });
        continue;
      }
      const byName = found.find((f) => f.by_name);
      const byId = found.find((f) => f.by_id);
      if (spec.link) {
        // The link exists already (a built-in membership): adopt it.
        writes.push({ ...item, targetKey: ownKey(item), kind: 'imported' });
      } else if (byName && (spec.merge?.(item.row) || spec.adoptByNaturalKey)) {
        // A built-in row (admin, ManagementPortalapp, main) or a shared role: the source wins, the target's id stays.
        if (!spec.adoptByNaturalKey || !byName.same) writes.push({ ...item, targetKey: byName.target_key, kind: 'imported' });
        else await adopt(spec, tx, opts, item, byName.target_key, report);
      } else if (!byName && byId && spec.adoptByNaturalKey) {
        // Only the id is taken (by another role): a new id from the sequence.
        writes.push({ ...item, targetKey: '', kind: 'imported' });
      } else if (found.length === 1 && found[0]!.same && found[0]!.by_id && found[0]!.by_name) {
        await adopt(spec, tx, opts, item, found[0]!.target_key, report);
      } else if (opts.overwrite && found.length === 1) {
        writes.push({ ...item, targetKey: found[0]!.target_key, kind: 'imported' });
      } else {
        const what = found.map((f) => (f.by_id && f.by_name ? `row ${f.target_key} has the same id and key` : f.by_id ? `row ${f.target_key} has the same id` : `row ${f.target_key} has the same key`));
        report.skipped.push({
          key: item.key, error: true,
          reason: `conflict: ${what.join('; ')} with different content here${found.length === 1 ? ' (--overwrite replaces it)' : ''}`,
        });
      }
    }
  }
  if (writes.length === 0) return;

  // All at once; on an error, row by row, so one bad row skips only itself. Without the bookkeeping
  // lookup (a first run, each key once so far) no key of the batch has a bookkeeping row either.
  const allFresh = !lookup && writes.every((w) => w.fresh === true);
  try {
    await tx.savepoint((sp) => upsert(spec, sp, writes, opts, allFresh));
    for (const w of writes) report[w.kind]++;
  } catch {
    for (const w of writes) {
      try {
        await tx.savepoint((sp) => upsert(spec, sp, [w], opts));
        report[w.kind]++;
      } catch (err) {
        report.skipped.push({ key: w.key, reason: describeError(err), error: true });
      }
    }
  }
}

async function adopt(spec: TableSpec, tx: Tx, opts: EngineOptions, item: Incoming, targetKey: string, report: TableReport) {
  await tx`insert into import.imported_rows (source, source_table, source_key, target_key, content_hash)
    values (${opts.source}, ${spec.name}, ${item.key}, ${targetKey}, ${item.hash})
    on conflict (source, source_table, source_key) do update set target_key = excluded.target_key, content_hash = excluded.content_hash, imported_at = now()`;
  opts.ids.set(spec.target, item.key, targetKey);
  report.imported++;
}

interface Match { key: string; target_key: string; by_id: boolean; by_name: boolean; same: boolean }

/** The incoming columns (alias `x`) an SQL condition names. */
const namedColumns = (condition: string) => new Set([...condition.matchAll(/\bx\.("?)(\w+)\1/g)].map((m) => m[2]!));

/**
 * The keys of `items` that have a target row with the same id or natural key: only those columns
 * go to the target, once, and each join can use its index. Most batches of an import into a new
 * target have none, and skip `findMatches`' full comparison.
 */
async function probeMatches(spec: TableSpec, tx: Tx, items: Incoming[]): Promise<Set<string>> {
  const needed = new Set([...spec.conflict, ...(spec.naturalKey ? namedColumns(spec.naturalKey) : [])]);
  const cols = [['_key', 'text'] as [string, string], ...spec.columns.filter(([c]) => needed.has(c))];
  const idCond = spec.conflict.map((c) => `t."${c}" = x."${c}"`).join(' and ');
  const probe = (on: string) => `select x._key from x join ${spec.target} t on ${on}`;
  const found = await tx.unsafe<Array<{ _key: string }>>(
    `with x as materialized ${rowsFrom(cols, 1)}
     ${probe(idCond)}${spec.naturalKey ? ` union ${probe(spec.naturalKey)}` : ''}`,
    keyedParams(items, cols) as never[],
  );
  return new Set(found.map((f) => String(f._key)));
}

async function findMatches(spec: TableSpec, tx: Tx, all: Incoming[]): Promise<Map<string, Match[]>> {
  const out = new Map<string, Match[]>();
  const matched = await probeMatches(spec, tx, all);
  if (matched.size === 0) return out;
  const items = all.filter((i) => matched.has(i.key));
  const keyCol = spec.conflict[0]!;
  const cols = [['_key', 'text'] as [string, string], ...spec.columns];
  const idCond = spec.conflict.map((c) => `t."${c}" = x."${c}"`).join(' and ');
  const compare = spec.compare ?? spec.columns.map(([c]) => c);
  const same = compare.length ? `(${colList(compare, 't.')}) is not distinct from (${colList(compare, 'x.')})` : 'true';
  // Two joins, by id and by natural key, each able to use its index (one join on `a or b` cannot).
  const pick = `select x._key as key, t."${keyCol}"::text as target_key, (${idCond}) as by_id,
       ${spec.naturalKey ? `coalesce(${spec.naturalKey}, false)` : 'false'} as by_name, ${same} as same`;
  const from = `from x join ${spec.target} t`;
  const found = await tx.unsafe<Array<Omit<Match, 'target_key'> & { target_key: unknown }>>(
    `with x as materialized ${rowsFrom(cols, 1)}
     ${pick} ${from} on ${idCond}${spec.naturalKey ? ` union ${pick} ${from} on ${spec.naturalKey}` : ''}`,
    keyedParams(items, cols) as never[],
  );
  for (const f of found) {
    const list = out.get(f.key) ?? [];
    list.push({ ...f, target_key: String(f.target_key) });
    out.set(f.key, list);
  }
  return out;
}

/**
 * The bookkeeping rows of a batch (`$1` source, `$2` table, `$3`–`$5` keys, target keys, hashes);
 * `fresh`: every key is new to the bookkeeping, so a plain insert (no ON CONFLICT: no arbiter
 * index probe before each row).
 */
const bookkeeping = (fresh: boolean) => `insert into import.imported_rows (source, source_table, source_key, target_key, content_hash)
  select $1, $2, b.k, b.t, b.h from unnest($3::text[], $4::text[], $5::text[]) as b(k, t, h)${fresh ? '' : `
  on conflict (source, source_table, source_key) do update set target_key = excluded.target_key, content_hash = excluded.content_hash, imported_at = now()`}`;

/**
 * Writes rows and their bookkeeping. `fresh`: no row of the batch can exist in the target or in the
 * bookkeeping (a first run's batch whose keys matched nothing), so plain inserts; should one exist
 * after all, the statement fails and the caller writes row by row with `fresh` false, as always.
 */
async function upsert(
  spec: TableSpec, tx: Tx, writes: Array<Incoming & { targetKey: string }>, opts: EngineOptions, fresh = false,
): Promise<void> {
  const keyCol = spec.conflict[0]!;
  const newIds = writes.filter((w) => w.targetKey === '');
  const kept = writes.filter((w) => w.targetKey !== '');
  const names = spec.columns.map(([c]) => c);
  const book = () => [opts.source, spec.name, writes.map((w) => w.key), writes.map((w) => w.targetKey), writes.map((w) => w.hash)];
  let booked = false;
  if (kept.length > 0) {
    const params = composite(spec)
      ? rowParams(kept.map((w) => w.row), spec.columns)
      : rowParams(kept.map((w) => w.row), spec.columns, keyCol, kept.map((w) => w.targetKey));
    const update = spec.link ? 'do nothing' : `do update set ${names.filter((c) => !spec.conflict.includes(c)).map((c) => `"${c}" = ${spec.onUpdate?.[c] ?? `excluded."${c}"`}`).join(', ')}`;
    const insert = (first: number) => `insert into ${spec.target} as t (${colList(names)})
       select ${colList(names)} from ${rowsFrom(spec.columns, first)} x${fresh ? '' : `
       on conflict (${colList(spec.conflict)}) ${update}`}`;
    // Every target key known: the rows and their bookkeeping in one statement.
    booked = newIds.length === 0;
    await (booked
      ? tx.unsafe(`with written as (${insert(6)}) ${bookkeeping(fresh)}`, [...book(), ...params] as never[])
      : tx.unsafe(insert(1), params as never[]));
  }
  for (const w of newIds) {
    const rest = spec.columns.filter(([c]) => c !== keyCol);
    const [made] = await tx.unsafe<Array<{ id: string }>>(
      `insert into ${spec.target} (${colList(rest.map(([c]) => c))}) select ${colList(rest.map(([c]) => c))} from ${rowsFrom(rest, 1)} x
       returning "${keyCol}"::text as id`,
      rowParams([w.row], rest) as never[],
    );
    w.targetKey = made!.id;
  }
  if (!booked) await tx.unsafe(bookkeeping(fresh), book() as never[]);
  for (const w of writes) opts.ids.set(spec.target, w.key, w.targetKey);
}

/**
 * Deletes the target rows imported earlier whose source row is gone: the bookkeeping rows of this
 * table are read in pages, and the source (still in its snapshot) says which keys it still has.
 */
async function deleteGone(spec: TableSpec, source: Tx, tx: Tx, opts: EngineOptions, report: TableReport): Promise<void> {
  let after = '';
  for (;;) {
    const page = await tx<{ source_key: string; target_key: string }[]>`
      select source_key, target_key from import.imported_rows
      where source = ${opts.source} and source_table = ${spec.name} and source_key > ${after}
      order by source_key limit ${spec.presentPage ?? 1000}`;
    if (page.length === 0) return;
    after = page.at(-1)!.source_key;
    const keys = page.map((p) => p.source_key);
    const present = new Set((await source.unsafe<Array<{ _key: string }>>(
      spec.present ?? `select q._key from (${spec.select}) q where q._key = any($1::text[])`, [keys],
    )).map((r) => String(r._key)));
    const gone = page.filter((p) => !present.has(p.source_key));
    if (gone.length === 0) continue;
    if (composite(spec)) {
      await tx.unsafe(
        `delete from ${spec.target} t where concat_ws(':', ${spec.conflict.map((c) => `t."${c}"::text`).join(', ')}) = any($1::text[])`,
        [gone.map((g) => g.target_key)],
      );
    } else {
      await tx.unsafe(`delete from ${spec.target} where "${spec.conflict[0]}"::text = any($1::text[])`, [gone.map((g) => g.target_key)]);
    }
    await tx`delete from import.imported_rows where source = ${opts.source} and source_table = ${spec.name} and source_key = any(${gone.map((g) => g.source_key)})`;
    report.deleted += gone.length;
  }
}

/** Moves the id sequence of `table` past its largest id (never back). */
export async function advanceSequence(tx: Tx | Sql, table: string): Promise<void> {
  await tx.unsafe(
    `select setval(q.s, q.m) from (select pg_get_serial_sequence($1, 'id')::regclass as s, (select max(id) from ${table}) as m) q
     where q.m is not null and q.m > coalesce(pg_sequence_last_value(q.s), 0)`,
    [table],
  );
}

/** A database error as a reason: SQLSTATE, constraint and message, never the row's values. */
export function describeError(err: unknown): string {
  const e = err as { code?: string; constraint_name?: string; message?: string };
  return [e.code && `SQLSTATE ${e.code}`, e.constraint_name && `constraint ${e.constraint_name}`, e.message].filter(Boolean).join(': ');
}
