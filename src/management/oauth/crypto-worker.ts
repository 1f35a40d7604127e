/**
 * The JWT signatures of a key set, made and checked on one dedicated worker thread.
 *
 * Why not node:crypto's callback form (libuv's pool)? Under load its hand-off cost the event loop
 * 25–60 µs per signature on this 2-core machine (four pool threads contending for OpenSSL's locks
 * with the main thread), about what signing inline costs. Why not inline? The event loop is the
 * token endpoint's bottleneck, and an ES256 signature is 40–60 µs of it here (bench/README.md,
 * "What moved the token endpoint" item 4, and the 2026-11-24 17:15 client_credentials row).
 *
 * Messages are what the worker costs: each one is a structured clone and, when the thread sleeps,
 * a wake-up (a system call and a context switch, 10–20 µs of the event loop on this VM, and more
 * under load). So at most one batch is in flight: jobs submitted while the worker is busy wait
 * for its answer and go in the next message together, and an idle worker is sent the jobs of a
 * whole event-loop turn at once (`setImmediate`, after the poll phase has read every ready
 * request) instead of one message per request (issue 30: `postMessage` was the largest item of
 * the token endpoint's profile). The worker's code is a string so it runs the same from `src/`
 * (tests) and `dist/`.
 *
 * The thread belongs to the `CryptoWorker` object (owned in turn by token-signing.ts's
 * `TokenSigning`, which the management plugin creates and closes): it starts with the first job,
 * so an app that never signs starts none, and a thread that dies is replaced by the next job.
 */
import { Worker } from 'node:worker_threads';
import type { KeySet } from './keystore.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { sign, verify } = require('node:crypto');
const withEncoding = (alg, key) => (alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
const signing = withEncoding(workerData.signing.alg, workerData.signing.key);
const checking = workerData.verification.map((k) => ({ kid: k.kid, alg: k.alg, key: withEncoding(k.alg, k.key) }));
// A job is a signing input (string), or [kid or null, alg, input, signature] to verify.
function run(job) {
  if (typeof job === 'string') return sign('sha256', Buffer.from(job), signing).toString('base64url');
  const [kid, alg, input, signature] = job;
  const data = Buffer.from(input);
  const sig = Buffer.from(signature, 'base64url');
  return checking.some((k) => (kid === null || k.kid === kid) && k.alg === alg && verify('sha256', data, k.key, sig));
}
parentPort.on('message', (jobs) => {
  parentPort.postMessage(jobs.map((job) => { try { return run(job); } catch { return false; } }));
});
`;

type Job = string | [kid: string | null, alg: string, input: string, signature: string];
interface Pending { resolve: (result: string | boolean) => void; reject: (err: Error) => void }

export interface CryptoWorker {
  /** The base64url signature of `input` with the signing key. */
  sign(input: string): Promise<string>;
  /** Whether `signature` (base64url) signs `input` with key `kid` (any key of `alg` when null). */
  verify(kid: string | null, alg: string, input: string, signature: string): Promise<boolean>;
  /** Stops the thread; what it had not answered is rejected, and so is every later job. */
  close(): Promise<void>;
}

export function createCryptoWorker(keys: KeySet): CryptoWorker {
  const workerData = {
    signing: { alg: keys.signing.alg, key: keys.signing.privateKey },
    verification: keys.verification.map((k) => ({ kid: k.kid, alg: k.alg, key: k.publicKey })),
  };
  let worker: Worker | undefined;
  /** The batch sent and not yet answered (at most one). */
  let inFlight: Pending[] | undefined;
  let jobs: Job[] = [];
  let waiting: Pending[] = [];
  let flushQueued = false;
  let closed = false;

  function spawn(): Worker {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData });
    w.on('message', (results: (string | boolean)[]) => {
      const batch = inFlight!;
      inFlight = undefined;
      // What arrived meanwhile goes at once, before the answers' continuations add more.
      if (jobs.length > 0) flush();
      // An idle worker does not keep the process alive.
      else w.unref();
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
    });
    w.on('error', (err) => fail(w, err));
    w.on('exit', (code) => fail(w, new Error(`crypto worker exited with code ${code}`)));
    return w;
  }

  /** Rejects what the worker had; the jobs waiting go to a new one. */
  function fail(w: Worker, err: Error): void {
    if (worker !== w) return;
    worker = undefined;
    const batch = inFlight ?? [];
    inFlight = undefined;
    for (const p of batch) p.reject(err);
    if (jobs.length > 0) scheduleFlush();
  }

  function flush(): void {
    flushQueued = false;
    if (closed || inFlight || jobs.length === 0) return;
    worker ??= spawn();
    worker.ref();
    inFlight = waiting;
    worker.postMessage(jobs);
    jobs = [];
    waiting = [];
  }

  function scheduleFlush(): void {
    if (flushQueued || inFlight) return;
    flushQueued = true;
    setImmediate(flush);
  }

  function submit(job: Job): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      if (closed) {
        reject(new Error('crypto worker closed'));
        return;
      }
      jobs.push(job);
      waiting.push({ resolve, reject });
      // While a batch is in flight its answer sends these; else at the end of this loop turn.
      scheduleFlush();
    });
  }

  return {
    sign: async (input) => submit(input) as Promise<string>,
    verify: async (kid, alg, input, signature) => submit([kid, alg, input, signature]) as Promise<boolean>,
    async close() {
      closed = true;
      const error = new Error('crypto worker closed');
      // Jobs whose flush has not run yet (it will find `closed` and send nothing).
      for (const p of waiting.splice(0)) p.reject(error);
      jobs = [];
      const w = worker;
      worker = undefined;
      await w?.terminate();
      const batch = inFlight ?? [];
      inFlight = undefined;
      for (const p of batch) p.reject(error);
    },
  };
}
