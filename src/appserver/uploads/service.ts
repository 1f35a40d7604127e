/**
 * The file upload (RADAR-Appserver v2.4.5's `S3StorageService.store`): checks the file is not
 * empty, names it (object-key.ts) and streams it to the storage.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { InvalidDetails } from '../errors.js';
import { objectKey } from './object-key.js';
import type { FileStorage } from './storage.js';

export const EMPTY_UPLOAD = 'File, project, subject and topic IDs must not be empty';

export interface UploadSettings {
  prefix: string;
  collectPerDay: boolean;
}

export interface UploadIds {
  projectId: string;
  subjectId: string;
  topicId: string;
}

export interface UploadDeps {
  storage: FileStorage;
  settings: UploadSettings;
  /** Epoch milliseconds (tests fix the time). */
  now?: () => number;
  uuid?: () => string;
}

/** The first non-empty chunk of `content`, and the rest of it; `undefined` when it is empty. */
async function peek(content: AsyncIterable<Uint8Array>): Promise<Readable | undefined> {
  const iterator = content[Symbol.asyncIterator]();
  let first: IteratorResult<Uint8Array>;
  do first = await iterator.next();
  while (!first.done && first.value.length === 0);
  if (first.done) return undefined;
  const head = first.value;
  return Readable.from((async function* rest() {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })(), { objectMode: false });
}

export function createUploadService({ storage, settings, now = Date.now, uuid = randomUUID }: UploadDeps) {
  return {
    /**
     * Stores `content` (the client's file `filename`) and returns its object key. Throws
     * `InvalidDetails` (417) for an empty file or blank id, before anything is stored; whatever
     * `content` throws (the size limit) and the storage's `StorageUnavailable` (503), with
     * nothing left under the key.
     */
    async store(ids: UploadIds, filename: string, content: AsyncIterable<Uint8Array>): Promise<string> {
      if (!ids.projectId || !ids.subjectId || !ids.topicId) throw new InvalidDetails(EMPTY_UPLOAD);
      const body = await peek(content);
      if (!body) throw new InvalidDetails(EMPTY_UPLOAD);
      const key = objectKey({ ...ids, ...settings, filename, now: new Date(now()), uuid: uuid() });
      await storage.store(key, body);
      return key;
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
