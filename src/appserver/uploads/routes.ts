/**
 * `POST /projects/{projectId}/users/{subjectId}/files/topics/{topicId}/upload` (the reference's
 * `UploadController`): the file in the multipart part `file` → 201, no body, `Location: <object
 * key>` (relative, as the reference answers; exposed to CORS by platform/http-security.ts).
 *
 * `@fastify/multipart` is registered in this route's scope only, streaming: the file goes to the
 * storage as it arrives, never whole in memory. Other parts are read and dropped.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BadRequest } from '../errors.js';
import { EmptyBody, errors } from '../schemas.js';
import { FileTooLarge } from './errors.js';
import type { UploadService } from './service.js';

const tags = ['appserver: file upload'];

/**
 * A path id that is safe as one part of an object key (and of a file path for the `local`
 * storage): no `/`, `\` or control characters; `.` and `..` are refused by the handler.
 */
const KeyPart = (description: string) => Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\\\u0000-\\u001f\\u007f]+$', description });
const DOT_SEGMENT = /^\.\.?$/;
export const UploadParams = Type.Object({
  projectId: KeyPart('Project id'),
  subjectId: KeyPart('Subject id'),
  topicId: KeyPart('Topic the file belongs to'),
});

/** The OpenAPI description of the multipart body; a request without a body part is validated by the handler (400). */
const UploadBody = Type.Unsafe<unknown>({
  type: ['object', 'null'],
  properties: { file: { type: 'string', format: 'binary', description: 'The file; its name\'s extension is kept' } },
  description: 'multipart/form-data with the file in the part `file`',
});

export const MISSING_FILE_PART = "Required part 'file' is not present.";

/** The file's bytes; throws `FileTooLarge` once busboy cut the file at the limit, so it is never stored cut. */
async function* withinLimit(file: Readable & { truncated?: boolean }, maxBytes: number): AsyncGenerator<Uint8Array> {
  const iterator = file[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next() as IteratorResult<Uint8Array>;
    } catch (err) {
      // The body broke off or is malformed: the client's fault, and nothing is stored.
      throw multipartError(err, maxBytes);
    }
    if (file.truncated) throw new FileTooLarge(maxBytes);
    if (next.done) return;
    yield next.value;
  }
}

/** The multipart parser's errors as the domain's: the limit 413, a malformed body 400. */
function multipartError(err: unknown, maxBytes: number): Error {
  const { code, statusCode } = err as { code?: string; statusCode?: number };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new FileTooLarge(maxBytes);
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return err as Error;
  // busboy's parse errors ("Unexpected end of form", "Malformed part header") carry no status.
  return new BadRequest(`Malformed multipart body: ${(err as Error).message}`);
}

export const uploadRoutes: FastifyPluginAsyncTypebox<{ uploads: UploadService; maxBytes: number }> = async (app, { uploads, maxBytes }) => {
  // Only multipart in this scope: a JSON body gets 415.
  app.removeAllContentTypeParsers();
  // Loaded here, not at the module's top: only a service with uploads enabled pays for it at start-up.
  const { default: multipart } = await import('@fastify/multipart');
  await app.register(multipart, {
    limits: { fileSize: maxBytes, fields: 20, fieldSize: 64 * 1024, parts: 40, headerPairs: 100 },
    throwFileSizeLimit: true,
  });

  app.post('/projects/:projectId/users/:subjectId/files/topics/:topicId/upload', {
    schema: {
      tags, summary: 'Upload a file of the subject for a topic; `Location` names its object key',
      consumes: ['multipart/form-data'],
      params: UploadParams,
      body: UploadBody,
      response: {
        201: { ...EmptyBody, description: 'Stored; the `Location` header holds the object key', headers: { Location: { type: 'string' } } },
        ...errors(400, 413, 417, 503),
      },
    },
  }, async (req, reply) => {
    const { projectId, subjectId, topicId } = req.params;
    // A URL parser resolves these, but a raw HTTP request may carry them (`%2E%2E`).
    if ([projectId, subjectId, topicId].some((id) => DOT_SEGMENT.test(id))) throw new BadRequest('A path id must not be "." or ".."');
    let key: string | undefined;
    let failure: unknown;
    // Every part is read to the end, so the answer comes after the whole request (a client
    // still sending would otherwise see a reset instead of it).
    try {
      for await (const part of req.parts()) {
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'file' || key !== undefined || failure !== undefined) {
          part.file.resume();
          continue;
        }
        try {
          key = await uploads.store(req.params, part.filename, withinLimit(part.file, maxBytes));
        } catch (err) {
          failure = err;
          part.file.resume();
        }
      }
    } catch (err) {
      failure ??= multipartError(err, maxBytes);
    }
    if (failure !== undefined) throw failure;
    if (key === undefined) throw new BadRequest(MISSING_FILE_PART);
    req.log.info({ key }, 'file uploaded');
    return reply.code(201).header('location', encodeURI(key)).send(undefined);
  });
};
