/**
 * The built service as a real process (`node dist/main.js`, built by `pretest`), for black-box
 * tests of start-up, shutdown and several instances on one database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Need } from './requires.js';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
export const built = existsSync(MAIN);
export const builtService: Need = [built, 'dist/main.js is missing (npm run build)'];
export const TEST_KEYSTORE = fileURLToPath(new URL('../fixtures/keystores/keytool-ec.p12', import.meta.url));

/** The one-line start-up banner; group 4 is the base URL. */
export const BANNER = /^RADAR platform (\S+) \((dev|prod), (PGlite|PostgreSQL)\) listening on (http:\/\/\S+) · app server \S+ · management \S+ · API docs \S+\/swagger-ui\/ · health \S+\/actuator\/health · started in \d+\.\d s$/m;

export interface ServiceProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: ServiceProcess[] = [];

/** Starts dist/main.js on a free loopback port with only `env` (plus PATH, and no `.env` file) in its environment. */
export function spawnService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [MAIN], {
    // ENV_FILE empty: a developer's `.env` in the working directory does not reach the tests.
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ENV_FILE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  child.stderr!.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const proc = { child, stdout: () => out, stderr: () => err, exited };
  running.push(proc);
  return proc;
}

/** Kills (SIGKILL) every process started here that still runs, and waits for them. */
export async function killServices(): Promise<void> {
  for (const proc of running.splice(0)) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

/** Polls `probe` every 50 ms until it returns a value, or fails after `seconds`. */
export async function waitFor<T>(what: string, seconds: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await sleep(50);
  }
}

/** Waits for the start-up banner (or an early exit) and returns the base URL. */
export async function started(proc: ServiceProcess, seconds = 60): Promise<string> {
  let exited = false;
  void proc.exited.then(() => { exited = true; });
  const banner = await waitFor('the start-up banner', seconds, () => {
    if (exited) throw new Error(`exited before start-up.\nstderr: ${proc.stderr()}\nstdout: ${proc.stdout()}`);
    return BANNER.exec(proc.stdout()) ?? undefined;
  });
  return banner[4]!;
}

/** A POST whose headers and first half of the body are sent; `finish()` sends the rest and resolves with the answer. */
export function halfSent(url: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const half = Math.floor(body.length / 2);
  let finish!: () => Promise<{ status: number; body: string }>;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, {
      method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, half));
    finish = () => {
      req.end(body.slice(half));
      return answer;
    };
  });
  return { finish: () => finish() };
}
