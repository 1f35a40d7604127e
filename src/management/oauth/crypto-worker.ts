/**
 * The JWT signatures of a key set, made and checked on one dedicated worker thread.
 *
 * Why not node:crypto's callback form (libuv's pool)? Under load its hand-off cost the event loop
 * 25–60 µs per signature on this 2-core machine (four pool threads contending for OpenSSL's locks
 * with the main thread), about what signing inline costs. One worker and one message per
 * microtask checkpoint cost the event loop a few µs per signature, and the event loop is the
 * token endpoint's bottleneck (bench/README.md, "What moved the token endpoint" item 4, and the
 * 2026-11-24 17:15 client_credentials row). The worker's code is a string so it runs the same
 * from `src/` (tests) and `dist/`.
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
  /** Batches sent and not yet answered, oldest first: the worker answers them in order. */
  const inFlight: Pending[][] = [];
  let jobs: Job[] = [];
  let waiting: Pending[] = [];
  let flushQueued = false;
  let closed = false;

  function spawn(): Worker {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData });
    w.on('message', (results: (string | boolean)[]) => {
      const batch = inFlight.shift()!;
      for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
      // An idle worker does not keep the process alive.
      if (inFlight.length === 0) w.unref();
    });
    w.on('error', (err) => fail(w, err));
    w.on('exit', (code) => fail(w, new Error(`crypto worker exited with code ${code}`)));
    return w;
  }

  /** Rejects what the worker had; the next job starts a new one. */
  function fail(w: Worker, err: Error): void {
    if (worker !== w) return;
    worker = undefined;
    for (const batch of inFlight.splice(0)) for (const p of batch) p.reject(err);
  }

  function flush(): void {
    flushQueued = false;
    if (closed) return;
    worker ??= spawn();
    worker.ref();
    inFlight.push(waiting);
    worker.postMessage(jobs);
    jobs = [];
    waiting = [];
  }

  function submit(job: Job): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      if (closed) {
        reject(new Error('crypto worker closed'));
        return;
      }
      jobs.push(job);
      waiting.push({ resolve, reject });
      // Once per microtask checkpoint: the jobs of one request (two signatures) share a message,
      // and no job waits for the next turn of the event loop.
      if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flush);
      }
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
      for (const batch of inFlight.splice(0)) for (const p of batch) p.reject(error);
    },
  };
}
