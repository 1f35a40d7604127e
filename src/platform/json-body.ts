/**
 * JSON body parser that accepts an empty body. The questionnaire app sends
 * `Content-Type: application/json` on GET and DELETE without a body (clients.md §2.1), which
 * Fastify's default parser rejects with 400.
 *
 * Parsing goes through `secure-json-parse`, as Fastify's own parser does: a `__proto__` key or a
 * `constructor.prototype` path is refused with 400 rather than handed to code that might merge it
 * into an object (prototype poisoning).
 */
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { DomainError } from './errors.js';

export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
    } catch (err) {
      // Not the parser's message: V8 quotes a piece of the body in it, which may be a password
      // (and the error's message reaches the reply, and the log when a scope logs it).
      const poisoned = /forbidden prototype property/.test((err as Error).message);
      return done(new DomainError(400, poisoned ? 'Malformed JSON: forbidden __proto__ or constructor.prototype key' : 'Malformed JSON'), undefined);
    }
    done(null, parsed);
  });
}
