/**
 * `npm start`'s prestart: runs `npm run build`'s two steps (`tsc -p tsconfig.build.json`, then
 * scripts/bundle.mjs) only when dist/ is older than its
 * inputs, so a second start skips the ~10 s compile. A fresh clone has no stamp and builds.
 *
 * The stamp (dist/.build-stamp) is written only after tsc succeeds and carries the time the
 * build started: a failed build is retried at the next start (as `npm run build` in prestart
 * did), and a file saved during the compile still counts as newer. `npm run build` alone leaves
 * no stamp, so the next start builds once more.
 *
 * It then builds the code documentation (`npm run docs`, dist/java-docs) when it is missing.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The code documentation (`npm run docs`), built when missing. */
export const DOCS_INDEX = join('dist', 'java-docs', 'index.html');

/** What the compiled output depends on, relative to the repository root. */
export const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
export const STAMP = join('dist', '.build-stamp');

/**
 * The newest modification under `path` as `{ path, mtimeMs }`, or undefined if it does not
 * exist. Directories count too: deleting or renaming a source file changes only its folder.
 */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
  let best = { path, mtimeMs: stat.mtimeMs };
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) {
      const inner = newest(join(path, entry));
      if (inner && inner.mtimeMs > best.mtimeMs) best = inner;
    }
  }
  return best;
}

/**
 * Why `root`'s build is stale (a sentence naming the newer input), or null when the stamp is
 * newer than every input. Missing inputs are skipped (a checkout without a lockfile).
 */
export function staleReason(root, inputs = BUILD_INPUTS, stamp = STAMP) {
  const built = newest(join(root, stamp));
  if (!built) return 'no previous build';
  for (const input of inputs) {
    const changed = newest(join(root, input));
    if (changed && changed.mtimeMs > built.mtimeMs) return `${relative(root, changed.path)} changed`;
  }
  return null;
}

/** Compiles with tsc and bundles (scripts/bundle.mjs), then stamps dist/ with the start time. Returns the first failing exit code. */
function build(root, reason) {
  const startedAt = new Date();
  console.log(`building dist/ (${reason})`);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) return run.status ?? 1;
  const bundle = spawnSync(process.execPath, [join('scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
  if (bundle.status !== 0) return bundle.status ?? 1;
  const stamp = join(root, STAMP);
  mkdirSync(dirname(stamp), { recursive: true });
  closeSync(openSync(stamp, 'w'));
  utimesSync(stamp, startedAt, startedAt);
  return 0;
}

/**
 * Builds the code documentation with TypeDoc when `root` has none. Returns TypeDoc's exit code;
 * 0 without TypeDoc (a production install), where the docs are simply not served.
 */
function buildDocsIfMissing(root) {
  if (existsSync(join(root, DOCS_INDEX))) return 0;
  let typedoc;
  try {
    typedoc = createRequire(import.meta.url).resolve('typedoc/bin/typedoc');
  } catch {
    console.log('no code documentation and no TypeDoc to build it (a production install): /java-docs/ will answer 404');
    return 0;
  }
  console.log('building the code documentation (dist/java-docs)');
  return spawnSync(process.execPath, [typedoc], { cwd: root, stdio: 'inherit' }).status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const reason = staleReason(root);
  if (reason === null) console.log('dist/ is up to date, not rebuilding');
  const built = reason === null ? 0 : build(root, reason);
  process.exitCode = built !== 0 ? built : buildDocsIfMissing(root);
}
