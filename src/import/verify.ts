/**
 * `npm run import -- --verify …` (issue 32 item 5): compares the sources with the target after an
 * import, reading both and writing nothing. Per table: the source's row count against the rows
 * the bookkeeping says were imported and the target still has, and for a random sample of source
 * rows (default 1,000 a table) every imported field against the target row it became.
 */
import type { Sql } from 'postgres';
import type { DatabaseConfig } from '../config.js';
import { IdMap, type Row, type TableSpec, type Tx } from './engine.js';
import { appserverTables, hasQuartzTables } from './radar-appserver.js';
import { MANAGEMENTPORTAL_TABLES } from './managementportal.js';

export interface TableVerification {
  sourceRows: number;
  /** Rows the bookkeeping records as imported whose target row exists. */
  importedRows: number;
  sampled: number;
  mismatches: Array<{ key: string; reason: string }>;
}

export interface VerifyReport {
  tables: Record<string, TableVerification>;
  ok: boolean;
}

const composite = (spec: TableSpec) => spec.link === true || spec.conflict.length > 1;
/** The target row's key as the bookkeeping writes it. */
const targetKeyOf = (spec: TableSpec) => (composite(spec)
  ? `concat_ws(':', ${spec.conflict.map((c) => `t."${c}"::text`).join(', ')})`
  : `t."${spec.conflict[0]}"::text`);

export async function verifyImport(opts: {
  target: Extract<DatabaseConfig, { kind: 'postgres' }>; managementportal?: string; appserver?: string; sample?: number;
  /** The `--history` the import ran with (which sent Appserver messages it took). */
  history?: string;
}): Promise<VerifyReport> {
  const sources: Array<[string, string | undefined, (source: Tx) => Promise<TableSpec[]>]> = [
    ['managementportal', opts.managementportal, () => Promise.resolve(MANAGEMENTPORTAL_TABLES)],
    ['appserver', opts.appserver, async (source) => appserverTables(opts.history ?? null, await hasQuartzTables(source))],
  ];
  const { default: postgres } = await import('postgres');
  const target = postgres(opts.target.url, { max: 1, username: opts.target.username, password: opts.target.password, onnotice: () => {} });
  const tables: Record<string, TableVerification> = {};
  try {
    for (const [name, url, specsOf] of sources) {
      if (!url) continue;
      const source = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await source.begin('isolation level repeatable read read only', async (src) => {
          const specs = await specsOf(src as unknown as Tx);
          await target.begin('isolation level repeatable read read only', async (tgt) => {
            const ids = new IdMap();
            const rows = await tgt<Array<{ source_table: string; source_key: string; target_key: string }>>`
              select source_table, source_key, target_key from import.imported_rows where source = ${name} and source_key <> target_key`;
            const targetOf = new Map(specs.map((s) => [s.name, s.target]));
            for (const r of rows) if (targetOf.has(r.source_table)) ids.set(targetOf.get(r.source_table)!, r.source_key, r.target_key);
            for (const spec of specs) {
              tables[`${name}.${spec.name}`] = await verifyTable(name, spec, src as unknown as Tx, tgt as unknown as Tx, ids, opts.sample ?? 1000);
            }
          });
        });
      } finally {
        await source.end({ timeout: 5 });
      }
    }
  } finally {
    await target.end({ timeout: 5 });
  }
  const ok = Object.values(tables).every((t) => t.mismatches.length === 0);
  return { tables, ok };
}

async function verifyTable(sourceName: string, spec: TableSpec, source: Tx, target: Tx | Sql, ids: IdMap, sample: number): Promise<TableVerification> {
  const [count] = await source.unsafe<Array<{ n: number }>>(`select count(*)::int as n from (${spec.select}) q`);
  const [imported] = await target.unsafe<Array<{ n: number }>>(
    `select count(*)::int as n from import.imported_rows b where b.source = $2 and b.source_table = $1
       and exists (select 1 from ${spec.target} t where ${targetKeyOf(spec)} = b.target_key)`,
    [spec.name, sourceName],
  );
  const result: TableVerification = { sourceRows: count!.n, importedRows: imported!.n, sampled: 0, mismatches: [] };
  if (result.sourceRows !== result.importedRows) {
    result.mismatches.push({ key: '*', reason: `${result.sourceRows} rows in the source, ${result.importedRows} imported rows here` });
  }

  const picked = await source.unsafe<Row[]>(`select * from (${spec.select}) q order by random() limit $1`, [sample]);
  if (picked.length === 0) return result;
  const incoming: Row[] = [];
  for (const raw of picked) {
    if (spec.rewrittenAtStart?.(raw)) continue;
    try {
      incoming.push({ ...spec.map(raw, ids), _key: String(raw._key) });
    } catch (err) {
      result.mismatches.push({ key: String(raw._key), reason: `not importable: ${(err as Error).message}` });
    }
  }
  result.sampled = incoming.length;
  if (incoming.length === 0) return result;
  // The key columns of a kept-id table may differ (merged rows): the bookkeeping joins them.
  const compared = spec.columns.map(([c]) => c).filter((c) => composite(spec) || !spec.conflict.includes(c));
  const diff = compared.map((c) => `case when t."${c}" is distinct from x."${c}" then '${c}' end`).join(', ');
  const cols = [['_key', 'text'] as [string, string], ...spec.columns].map(([c, t]) => `"${c}" ${t}`).join(', ');
  const found = await target.unsafe<Array<{ key: string; imported: boolean; present: boolean; columns: string[] }>>(
    `select x._key as key, b.target_key is not null as imported, t.ctid is not null as present,
       ${diff ? `array_remove(array[${diff}], null)` : `'{}'::text[]`} as columns
     from jsonb_to_recordset($1::text::jsonb) as x(${cols})
     left join import.imported_rows b on b.source = $3 and b.source_table = $2 and b.source_key = x._key
     left join ${spec.target} t on ${targetKeyOf(spec)} = b.target_key`,
    [JSON.stringify(incoming), spec.name, sourceName],
  );
  for (const f of found) {
    if (!f.imported) result.mismatches.push({ key: f.key, reason: 'not imported' });
    else if (!f.present) result.mismatches.push({ key: f.key, reason: 'imported, but gone here' });
    else if (f.columns.length > 0) result.mismatches.push({ key: f.key, reason: `differs in ${f.columns.join(', ')}` });
  }
  return result;
}
