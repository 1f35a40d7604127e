/**
 * JSON body parser that accepts an empty body. The questionnaire app sends
 * `Content-Type: application/json` on GET and DELETE without a body (clients.md §2.1), which
 * Fastify's default parser rejects with 400.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from './errors.js';

export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new DomainError(400, `Malformed JSON: ${(err as Error).message}`), undefined);
    }
  });
}
