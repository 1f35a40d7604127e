/**
 * `npm test`'s pretest: typecheck, lint and build side by side. Each is one single-threaded
 * process, so together they keep both cores of a small machine busy instead of one after another.
 * Prints each step's output and time; fails when any step fails.
 */
import { spawn } from 'node:child_process';

const STEPS = ['typecheck', 'lint', 'build'];

function run(step) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('npm', ['run', '--silent', step], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.on('close', (code) => resolve({ step, code, output, seconds: (performance.now() - started) / 1000 }));
  });
}

const results = await Promise.all(STEPS.map(run));
for (const { step, code, output, seconds } of results) {
  process.stdout.write(`${step}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds.toFixed(1)} s\n${output}`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
