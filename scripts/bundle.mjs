/**
 * `npm run build`'s second step: bundles tsc's output for start-up (issue 30 item 5).
 *
 * Node 20 loads each ES module file on its own (resolve, read, compile, link), about 0.7 ms a file
 * here: the ~830 files of dist/ and of the ES-module-only packages (typebox alone has 373, then
 * drizzle-orm and jose) took ~0.5 s of CPU before the first line of buildApp ran. esbuild joins
 * dist/main.js's graph with those packages into dist/main.js and a few chunks beside it
 * (dist/main-chunk-*.js: what is imported dynamically, e.g. PGlite's driver or Sentry, stays out
 * of the start until used, and Sentry still starts before the app's packages load). The CommonJS
 * packages (fastify, pino, firebase-admin …) stay external: node_modules as installed.
 *
 * Every file of dist/ but main.js stays as tsc wrote it (bench scripts and tools import them), so
 * `tsc -p tsconfig.build.json` alone gives a working, unbundled dist/main.js again. Modules that
 * find files next to themselves (`new URL('../../migrations', import.meta.url)`) get the URL of
 * their own dist/ file: every bundle file sits in dist/ itself, so the path from there is fixed.
 *   node scripts/bundle.mjs
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const ENTRY = join(DIST, 'main.js');
const MARK = '// Bundled by scripts/bundle.mjs';
/** ES-module-only packages of many small files: bundled. Everything else under node_modules stays external. */
const BUNDLED_PACKAGES = new Set(['typebox', 'drizzle-orm', 'jose']);

const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

if ((await readFile(ENTRY, 'utf8')).startsWith(MARK)) {
  process.stderr.write('dist/main.js is bundled already: run `tsc -p tsconfig.build.json` first (`npm run build` runs both)\n');
  process.exit(1);
}

const { build } = await import('esbuild');
const result = await build({
  entryPoints: { main: ENTRY },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: DIST,
  chunkNames: 'main-chunk-[hash]',
  write: false,
  // tsc's source maps are read in and carried through: stack traces under --enable-source-maps name src/.
  sourcemap: 'linked',
  banner: { js: `${MARK} from tsc's output; \`tsc -p tsconfig.build.json\` restores the unbundled entry.` },
  logLevel: 'warning',
  plugins: [{
    name: 'radar-dist',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') || !BUNDLED_PACKAGES.has(packageOf(args.path))
        ? { path: args.path, external: true } : undefined));
      // Each module's own URL, from wherever in dist/ its code now runs.
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(DIST)) return undefined;
        const source = await readFile(args.path, 'utf8');
        const own = JSON.stringify(`./${relative(DIST, args.path)}`);
        return { contents: source.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`), loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  }],
});

for (const name of await readdir(DIST)) {
  if (name.startsWith('main-chunk-')) await rm(join(DIST, name));
}
for (const file of result.outputFiles) await writeFile(file.path, file.contents);
const bundled = result.outputFiles.filter((f) => f.path.endsWith('.js'));
process.stdout.write(`bundled dist/main.js and ${bundled.length - 1} chunks (${Math.round(bundled.reduce((n, f) => n + f.contents.length, 0) / 1024)} KiB)\n`);
