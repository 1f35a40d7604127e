/**
 * `npm run import -- [--managementportal <postgres-url>] [--appserver <postgres-url>] [--dry-run]
 * [--overwrite] [--history <ISO-8601 period>] [--report file.json] [--batch-size n]`, and `… --verify [--sample n]` after an
 * import: the switch-over importer's process entry
 * (issue 32). Its own entry, never loaded by the service (`src/main.ts` does not import it).
 *
 * The target is the database of the prod settings, read as `npm start` reads them (`.env`, the
 * environment, `loadConfig`). Progress goes to stderr when it is a terminal, the JSON report to
 * `--report` (and a summary to stdout).
 *
 * Exit codes: 0 when nothing was skipped for an error, 1 when something was (or the run failed),
 * 2 for bad arguments or a target that is not a new installation, 78 for invalid configuration.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { DEFAULT_ENV_FILE, loadDotEnv } from '../dotenv.js';
import { redactUrl } from '../platform/database.js';
import { ISO_PERIOD } from './radar-appserver.js';
import { runImport, TargetNotNew, type ImportReport } from './run.js';
import { verifyImport, type VerifyReport } from './verify.js';

const USAGE = 'usage: npm run import -- [--managementportal <postgres-url>] [--appserver <postgres-url>] [--dry-run] [--overwrite] [--history P30D] [--report file.json] [--batch-size n]\n' +
  '       npm run import -- --verify [--managementportal <postgres-url>] [--appserver <postgres-url>] [--history P30D] [--sample n] [--report file.json]';

function fail(code: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      managementportal: { type: 'string' },
      appserver: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      overwrite: { type: 'boolean', default: false },
      history: { type: 'string' },
      report: { type: 'string' },
      'batch-size': { type: 'string', default: '500' },
      verify: { type: 'boolean', default: false },
      sample: { type: 'string', default: '1000' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  }).values;
}
try {
  args = parse();
} catch (err) {
  fail(2, `${(err as Error).message}\n${USAGE}`);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!args.managementportal && !args.appserver) fail(2, `give at least one source\n${USAGE}`);
const batchSize = Number(args['batch-size']);
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) fail(2, '--batch-size: an integer from 1 to 10000');
const sample = Number(args.sample);
if (!Number.isInteger(sample) || sample < 0 || sample > 1_000_000) fail(2, '--sample: an integer from 0 to 1000000');
if (args.history !== undefined && !ISO_PERIOD.test(args.history)) fail(2, `--history: an ISO-8601 period such as P30D, got ${args.history}`);
for (const [name, url] of [['--managementportal', args.managementportal], ['--appserver', args.appserver]] as const) {
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) fail(2, `${name}: a postgres:// URL, got ${redactUrl(url)}`);
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
let config: ReturnType<typeof loadConfig>;
try {
  const envFile = process.env.ENV_FILE;
  if (envFile !== '') loadDotEnv(envFile ?? DEFAULT_ENV_FILE, process.env, { required: envFile !== undefined });
  config = loadConfig(process.env, pkg.version);
} catch (err) {
  if (err instanceof ConfigError) fail(78, err.message);
  throw err;
}
if (config.database.kind !== 'postgres') fail(78, 'DATABASE_URL: the import needs the target PostgreSQL (set DATABASE_URL as for `npm start`)');

if (args.verify) {
  let verification: VerifyReport;
  try {
    verification = await verifyImport({ target: config.database, managementportal: args.managementportal, appserver: args.appserver, sample, history: args.history });
  } catch (err) {
    fail(1, `verify failed: ${(err as Error).message}`);
  }
  if (args.report) writeFileSync(args.report, `${JSON.stringify(verification, null, 2)}\n`);
  for (const [table, t] of Object.entries(verification.tables)) {
    process.stdout.write(`${table}: ${t.sourceRows} rows in the source, ${t.importedRows} imported, ${t.sampled} compared, ${t.mismatches.length} mismatches\n`);
    for (const m of t.mismatches) process.stdout.write(`  ${m.key}: ${m.reason}\n`);
  }
  process.stdout.write(verification.ok ? 'verified: source and target agree\n' : 'verify found mismatches\n');
  process.exit(verification.ok ? 0 : 1);
}

const log = pino({ level: 'warn' }, pino.destination(2));
const tty = process.stderr.isTTY;
// The sources import at the same time: one status line with each source's current table; a
// source's finished table stays on a line of its own above it.
const tableOf = new Map<string, string>();
const statusOf = new Map<string, string>();
let lastTable = '';
const progress = tty ? (table: string, rows: number, seconds: number) => {
  const source = table.split('.')[0]!;
  const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
  const before = tableOf.get(source);
  if (before !== undefined && before !== table) process.stderr.write(`\r\x1b[K${statusOf.get(source)}\n`);
  tableOf.set(source, table);
  statusOf.set(source, `${table}: ${rows} rows, ${rate} rows/s`);
  lastTable = table;
  process.stderr.write(`\r\x1b[K${[...statusOf.values()].join('  |  ')}`);
} : undefined;

let report: ImportReport;
try {
  report = await runImport({
    target: config.database,
    managementportal: args.managementportal,
    appserver: args.appserver,
    dryRun: args['dry-run'],
    overwrite: args.overwrite,
    history: args.history,
    batchSize,
    log,
    progress,
  });
} catch (err) {
  if (tty && lastTable) process.stderr.write('\n');
  fail(err instanceof TargetNotNew ? 2 : 1, `import failed: ${(err as Error).message}`);
}
if (tty && lastTable) process.stderr.write('\n');

if (args.report) writeFileSync(args.report, `${JSON.stringify(report, null, 2)}\n`);
for (const [table, t] of Object.entries(report.tables)) {
  process.stdout.write(`${table}: read ${t.read}, imported ${t.imported}, updated ${t.updated}, unchanged ${t.unchanged}, deleted ${t.deleted}, skipped ${t.skipped.length} (${t.rowsPerSecond} rows/s)\n`);
  for (const s of t.skipped) process.stdout.write(`  skipped ${s.key}: ${s.reason}\n`);
}
for (const [source, version] of Object.entries(report.versions)) process.stdout.write(`${source}: schema ${version}\n`);
for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
const changed = Object.values(report.tables).some((t) => t.imported + t.updated + t.deleted > 0);
process.stdout.write(`${report.dryRun ? 'dry run, nothing written: ' : ''}${changed ? 'done' : 'nothing changed'}; ${report.skippedForError} rows skipped for an error\n`);
process.exit(report.ok ? 0 : 1);
