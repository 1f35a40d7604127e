/**
 * One error handler factory; each domain supplies the body shape of its reference service.
 * Client errors (4xx) keep their status; anything else is a 500 that is logged as a bug.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, sqlState } from './database.js';

/** An error a domain raises on purpose; its formatter turns it into the domain's body. */
export class DomainError extends Error {
  constructor(readonly status: number, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'DomainError';
  }

  /**
   * Fastify's name for the status: a scope whose error handler knows only Fastify's errors (the
   * sign-in pages) still answers a domain error, such as the JSON parser's 400, with its status.
   */
  get statusCode(): number {
    return this.status;
  }
}

export interface ErrorFormat {
  /** Body for a domain error, an HTTP client error from Fastify (4xx) or a 500. */
  body(status: number, message: string, request: FastifyRequest, error: unknown): unknown;
  /** Optional: fully custom reply for some domain errors (e.g. the 409 duplicate body). */
  custom?(error: unknown, request: FastifyRequest, reply: FastifyReply): unknown;
}

/** Maps Fastify's own client-error codes to a readable message. */
function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return 'Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return 'Unsupported media type';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return 'Request body is empty';
    default: return error.message;
  }
}

export function createErrorHandler(format: ErrorFormat) {
  return function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (format.custom) {
      const handled = format.custom(error, request, reply);
      if (handled !== undefined) return handled;
    }
    if (error instanceof DomainError) {
      return reply.code(error.status).send(format.body(error.status, error.message, request, error));
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const message = `Validation failed: ${fe.validationContext ?? 'request'}${fe.message.replace(/^(body|querystring|params|headers)/, '')}`;
      return reply.code(400).send(format.body(400, message, request, error));
    }
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(format.body(status, clientMessage(fe), request, error));
    }
    // A database error carries the query parameters (which may hold personal data): log its code only.
    // Method and route (the pattern, not the URL) tell Sentry and the reader where it happened.
    const where = { method: request.method, route: request.routeOptions.url ?? '(no route)' };
    // The database down or restarting is an outage, not a bug: 503, so clients and load balancers retry.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ ...where, sqlState: sqlState(error) }, 'database unavailable');
      return reply.code(503).header('retry-after', '5').send(format.body(503, 'Service unavailable: the database cannot be reached, try again later', request, error));
    }
    const state = sqlState(error);
    if (state) request.log.error({ ...where, sqlState: state, constraint: (error as { cause?: { constraint_name?: string } }).cause?.constraint_name }, 'database error');
    else request.log.error({ ...where, err: error }, 'unhandled error');
    return reply.code(500).send(format.body(500, 'Internal server error', request, error));
  };
}
