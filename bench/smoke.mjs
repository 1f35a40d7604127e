// The performance guard (issue 30 item 6): `npm run bench:smoke`, about a minute. Short runs of
// the headline benchmarks, each against its peer or bound in the same run, and one line per
// figure with its ratio, its target and the smoke's floor. A short run swings more than a full
// one, so the smoke fails (exit 1) only when a figure misses its target by more than 30 %: a ratio
// below 0.7 × an at-least target, or above an at-most target ÷ 0.7. Run it before and after a
// change to a hot path (token endpoint, batch, scheduler, start-up); the full benchmarks and
// bench/README.md hold the recorded figures. It needs the build (npm run build) and PostgreSQL
// (BENCH_DATABASE_URL, or TEST_DATABASE_URL, or postgres://postgres@127.0.0.1:5432/test).
//   node bench/smoke.mjs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const MARGIN = 0.7;

/** Runs a benchmark script and returns the JSON summary it prints last on stdout. */
function run(script, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${BENCH}${script}`, ...args], {
      cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => {
      const start = out.lastIndexOf('\n{');
      if (code !== 0 || start < 0 && !out.startsWith('{')) return reject(new Error(`${script} exited with ${code}:\n${err.slice(-2000)}`));
      resolve(JSON.parse(out.slice(start < 0 ? 0 : start + 1)));
    });
  });
}

const lines = [];
let failed = false;
/** One figure: `kind` 'min' for an at-least target, 'max' for an at-most one. */
function figure(name, value, kind, target, unit = '×') {
  const floor = kind === 'min' ? target * MARGIN : target / MARGIN;
  const ok = kind === 'min' ? value >= floor : value <= floor;
  const meets = kind === 'min' ? value >= target : value <= target;
  if (!ok) failed = true;
  const fmt = (n) => (unit === '×' ? n.toFixed(2) : String(Math.round(n)));
  lines.push(`${ok ? (meets ? 'ok  ' : 'low ') : 'FAIL'} ${name}: ${fmt(value)} ${unit} (target ${kind === 'min' ? '≥' : '≤'} ${fmt(target)}, smoke ${kind === 'min' ? 'floor' : 'ceiling'} ${fmt(floor)})`);
  console.log(lines.at(-1));
}

const started = Date.now();
const tokens = await run('oauth-client-credentials.mjs', ['1', '10', '2'], { WARM_UP_SECONDS: '0.5' });
figure('client_credentials / oidc-provider', tokens.median.oursVsOidcProvider, 'min', 2);
figure('client_credentials / bare bound', tokens.median.oursVsBound, 'min', 0.8);

const batch = await run('batch-notifications.mjs', ['1.5', '8', 'default', '2']);
figure('batch (default path) / direct multi-row INSERT', batch.results[0].medians.serviceOverBound, 'min', 0.4);

const prod = (await run('startup.mjs', ['2', 'prod'])).results[0];
figure('start-up prod / bare start', prod.ratio.ofMedians, 'max', 1.5);
figure('start-up prod', prod.service.startupMsMedian, 'max', 1500, 'ms');
figure('idle RSS prod', prod.service.idleRssMiBMedian, 'max', 150, 'MiB');
const dev = (await run('startup.mjs', ['1', 'dev'])).results[0];
figure('start-up dev / PGlite with migrations', dev.ratio.ofMedians, 'max', 1.5);

console.log(`bench:smoke ${failed ? 'failed' : 'passed'} in ${Math.round((Date.now() - started) / 1000)} s (ok: meets the target; low: misses it by less than 30 %; FAIL: by more)`);
process.exitCode = failed ? 1 : 0;
