/**
 * Many-row INSERT with one JSON parameter: `INSERT … SELECT … FROM jsonb_array_elements($1)`,
 * each row a JSON array of its column values.
 * Drizzle's `insert().values()` builds one bound parameter per value and spends most of a
 * 200-row batch in query building; here the rows travel as one JSON document, which costs almost
 * nothing to build and runs the same on PGlite and PostgreSQL.
 */
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { executedRows, type Executor } from './database.js';

type Row = Record<string, unknown>;

const toJsonValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export interface BulkInsertOptions { onConflictDoNothing?: boolean; returning: readonly string[] }

/**
 * The INSERT of `bulkInsert` built once for a table and its columns: the returned function takes
 * the rows already serialized as a JSON array of arrays (column values in `columnKeys` order),
 * so a caller that queues rows can serialize each one as it arrives.
 */
export function bulkInsertStatement<T extends PgTable>(
  table: T,
  columnKeys: readonly (keyof T['_']['columns'] & string)[],
  opts: BulkInsertOptions,
): (json: string) => SQL {
  const all = getTableColumns(table) as Record<string, PgColumn>;
  const columns = columnKeys.map((key) => all[key]!);
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  // jsonb values keep their JSON; every other column is cast from the element's text.
  const values = columns.map((c, i) => (c.getSQLType() === 'jsonb' ? `NULLIF(e->${i}, 'null'::jsonb)` : `(e->>${i})::${c.getSQLType()}`)).join(', ');
  const { schema } = getTableConfig(table);
  const target = `${schema ? `"${schema}".` : ''}"${getTableName(table)}"`;
  const head = `INSERT INTO ${target} (${names}) SELECT ${values} FROM jsonb_array_elements(`;
  const tail = `) AS e${opts.onConflictDoNothing ? ' ON CONFLICT DO NOTHING' : ''} RETURNING ${opts.returning.map((r) => `"${r}"`).join(', ')}`;
  return (json) => sql.raw(head).append(sql`${json}::jsonb`).append(sql.raw(tail));
}

/** One row as the JSON array `bulkInsertStatement` takes (dates as ISO strings). */
export const rowJson = (values: readonly unknown[]): string => JSON.stringify(values.map((v) => toJsonValue(v ?? null)));

/**
 * Rows (objects keyed by the table's property names) as the JSON `bulkInsertStatement` takes.
 * `JSON.stringify` already writes a Date as its ISO string and an undefined array element as
 * null, so the values go in as they are.
 */
export function rowsJson(rows: readonly Row[], columnKeys: readonly string[]): string {
  const arrays = new Array<unknown[]>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const values = new Array<unknown>(columnKeys.length);
    for (let c = 0; c < columnKeys.length; c++) values[c] = row[columnKeys[c]!];
    arrays[r] = values;
  }
  return JSON.stringify(arrays);
}

/**
 * Inserts `rows` (objects keyed by the table's property names; every row must carry every
 * column listed in `columns`) and returns the `returning` columns of the inserted rows, keyed by
 * database column name. With `onConflictDoNothing`, rows that violate a unique index are skipped.
 */
export async function bulkInsert<T extends PgTable>(
  db: Executor,
  table: T,
  columnKeys: readonly (keyof T['_']['columns'] & string)[],
  rows: Row[],
  opts: BulkInsertOptions,
): Promise<Row[]> {
  if (rows.length === 0) return [];
  return executedRows(await db.execute(bulkInsertStatement(table, columnKeys, opts)(rowsJson(rows, columnKeys))));
}
