/**
 * Where uploaded files go: an S3-compatible object store (the reference's only kind, through
 * MinIO's client there, `@aws-sdk/client-s3` here) or a local folder. Both take the file as a
 * stream and never hold more of it than a few S3 parts (5 MiB each).
 *
 * Contract of `store`: on success the object is complete under `key`; when it throws, nothing is
 * left under `key` (an S3 multipart upload is aborted, a local temporary file removed). An error
 * the body stream raises (the size limit) is rethrown as it is; a storage failure becomes
 * `StorageUnavailable` (503), a missing bucket `BucketMissing` (503 naming it).
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../../platform/errors.js';
import { BucketMissing, StorageUnavailable } from './errors.js';

export interface FileStorage {
  store(key: string, body: Readable): Promise<void>;
  close(): Promise<void>;
}

/** S3's smallest part size; with at most two parts in flight an upload holds about 10 MiB. */
export const PART_SIZE = 5 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 2;
/**
 * Connections kept open to the S3 server (per origin): each upload holds at most
 * `PARTS_IN_FLIGHT`, so this many serve 32 uploads at once; more wait for a free connection.
 */
export const S3_CONNECTIONS = 64;
/** The commands that carry a file's bytes; their payload is not hashed for the signature (see below). */
const BODY_COMMANDS = new Set(['PutObjectCommand', 'UploadPartCommand']);

export interface S3Settings {
  url: string;
  region: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
}

const ownError = (err: unknown): err is DomainError => err instanceof DomainError;

/**
 * Reads `body` until `limit` bytes or its end. `rest()` gives what was read and the remainder,
 * once; while `ended`, the chunks are all of it.
 */
async function readUpTo(body: Readable, limit: number) {
  const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let bytes = 0;
  let ended = false;
  while (bytes < limit) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    bytes += next.value.length;
  }
  return {
    chunks, bytes, ended,
    async* rest(): AsyncGenerator<Buffer> {
      yield* chunks.splice(0);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
}

export function createS3Storage(settings: S3Settings, log: FastifyBaseLogger): FileStorage {
  const agentOptions = { keepAlive: true, maxSockets: S3_CONNECTIONS };
  const agents = { httpAgent: new HttpAgent(agentOptions), httpsAgent: new HttpsAgent(agentOptions) };
  const client = new S3Client({
    endpoint: settings.url,
    region: settings.region,
    credentials: { accessKeyId: settings.accessKey, secretAccessKey: settings.secretKey },
    // MinIO and most S3-compatible stores address buckets by path, not by host name.
    forcePathStyle: true,
    // Without this the SDK sends a streamed body with an aws-chunked checksum trailer, which
    // S3-compatible stores that predate it (s3rver, older MinIO) keep as part of the object.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Our own keep-alive agents: the SDK's default one is dropped for any request that carries
    // `Expect: 100-continue` (by default every body of 2 MiB or more, so every 5 MiB part), each
    // of which then opened a new connection and waited a round trip before sending the part.
    expectContinueHeader: false,
    requestHandler: agents,
  });
  // Over https the file's bytes are signed as `UNSIGNED-PAYLOAD` (S3's own value for it):
  // otherwise the SDK hashes every body it holds in memory (SHA-256 of each small file and each
  // part, ~1.5 ms per MB here) to sign it, while TLS already guards the bytes. Over plain http
  // the hash is all that ties the bytes to the signature, so it stays (security by default).
  if (new URL(settings.url).protocol === 'https:') {
    client.middlewareStack.add((next, context) => async (args) => {
      const { request } = args as { request?: { headers?: Record<string, string> } };
      if (request?.headers && BODY_COMMANDS.has(context.commandName ?? '')) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    }, { step: 'build', name: 'radarUnsignedPayload' });
  }
  return {
    async store(key, body) {
      try {
        // A file within one part goes up in one PutObject: lib-storage's `Upload` does the same
        // but, measured at 10 connections (bench/upload.mjs), answered at about 0.7× the rate.
        const head = await readUpTo(body, PART_SIZE);
        if (head.ended) {
          await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: key, Body: Buffer.concat(head.chunks), ContentLength: head.bytes }));
          return;
        }
        await new Upload({
          client,
          params: { Bucket: settings.bucket, Key: key, Body: Readable.from(head.rest()) },
          partSize: PART_SIZE,
          queueSize: PARTS_IN_FLIGHT,
          leavePartsOnError: false,
        }).done();
      } catch (err) {
        if (ownError(err)) throw err;
        const name = (err as { name?: string }).name;
        if (name === 'NoSuchBucket') {
          log.error({ bucket: settings.bucket }, 'upload bucket does not exist');
          throw new BucketMissing(settings.bucket);
        }
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        // Never the error itself: an SDK error can carry the request, signed headers included.
        log.error({ storage: 's3', error: name, status, code: (err as { code?: string }).code }, 'upload to S3 failed');
        throw new StorageUnavailable();
      }
    },
    async close() {
      client.destroy();
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}

/**
 * Files under `root`, at their object keys. A file is written under a temporary name beside its
 * key and renamed once complete, so a reader never sees a partial file under the key.
 */
export function createLocalStorage(root: string, log: FastifyBaseLogger): FileStorage {
  const base = resolve(root);
  return {
    async store(key, body) {
      const target = resolve(join(base, key));
      // The key's parts are checked where they come in (routes.ts); this is the last line.
      if (!target.startsWith(base + sep)) throw new StorageUnavailable('The file cannot be stored under that path');
      const temporary = `${target}.${randomUUID()}.part`;
      try {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(body, createWriteStream(temporary, { flags: 'wx', mode: 0o640 }));
        await rename(temporary, target);
      } catch (err) {
        await rm(temporary, { force: true });
        if (ownError(err)) throw err;
        log.error({ storage: 'local', code: (err as { code?: string }).code }, 'upload to the local storage failed');
        throw new StorageUnavailable();
      }
    },
    async close() {},
  };
}

/** Creates the local storage folder at start, so a wrong path stops the start. */
export async function prepareLocalStorage(root: string): Promise<void> {
  try {
    await mkdir(root, { recursive: true, mode: 0o750 });
  } catch (err) {
    throw new Error(`RADAR_STORAGE_LOCAL_PATH: cannot create "${root}": ${(err as { code?: string }).code ?? String(err)}`);
  }
}
