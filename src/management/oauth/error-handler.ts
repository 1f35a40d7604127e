/**
 * The OAuth scope's error handler (modelled on node-oidc-provider `lib/helpers/err_out.js`):
 * every error leaves as `{error, error_description}` with `Cache-Control: no-store` and
 * `Pragma: no-cache`. A 401 carries `WWW-Authenticate` (Basic for client authentication, Bearer
 * for tokens). Fastify's own client errors (validation, media type, body size) become
 * `invalid_request` with their status, as do the domain's own 4xx errors (a malformed JSON body, a
 * NUL character: `DomainError` carries Fastify's `statusCode`); the database down is
 * `temporarily_unavailable` (503); anything else is logged and answered `server_error`.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, sqlState } from '../../platform/database.js';
import { errorPlace, logServerError } from '../../platform/errors.js';
import { OAuthError } from './errors.js';

const quote = (s: string) => s.replace(/["\\]/g, '\\$&');

export function oauthErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (error instanceof OAuthError) {
    if (error.status >= 500) logServerError(request, error, 'oauth server error');
    else request.log.info({ error: error.error, status: error.status }, 'oauth request refused');
    if (error.challenge === 'Basic') reply.header('www-authenticate', 'Basic realm="oauth2/client"');
    else if (error.challenge === 'Bearer') reply.header('www-authenticate', `Bearer error="${error.error}", error_description="${quote(error.message)}"`);
    return reply.code(error.status).send({ error: error.error, error_description: error.message, ...error.extra });
  }
  const fe = error as FastifyError;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (fe.validation || (status >= 400 && status < 500)) {
    return reply.code(fe.validation ? 400 : status).send({ error: 'invalid_request', error_description: fe.message });
  }
  if (isDatabaseUnavailable(error)) {
    // RFC 6749's code for a server that is temporarily unable to answer.
    request.log.warn({ ...errorPlace(request), sqlState: sqlState(error) }, 'database unavailable');
    return reply.code(503).header('retry-after', '5').send({ error: 'temporarily_unavailable', error_description: 'The database cannot be reached, try again later' });
  }
  // As the API logs a 5xx (platform/errors.ts): method, route, and a database error's code only.
  logServerError(request, error, 'unhandled error');
  return reply.code(500).send({ error: 'server_error', error_description: 'Internal Server Error' });
}
