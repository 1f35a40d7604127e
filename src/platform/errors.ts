/**
 * One error handler factory; each domain supplies the body shape of its reference service.
 * Client errors (4xx) keep their status; anything else is a 500 that is logged as a bug.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { constraintName, isDatabaseUnavailable, sqlState } from './database.js';
import { setBaselineSecurityHeaders } from './http-security.js';

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

/** Where a request's error happened: its method and route (the pattern, so no ids or secrets of the URL). */
export function errorPlace(request: FastifyRequest): { method: string; route: string } {
  return { method: request.method, route: request.routeOptions.url ?? '(no route)' };
}

/**
 * Logs a 5xx at `error` with its method and route, as every scope (API, admin pages, OAuth pages)
 * does. A database error carries the statement's parameters (personal data, password hashes,
 * keys): only its SQLSTATE and constraint are logged, never the error itself.
 */
export function logServerError(request: FastifyRequest, error: unknown, message: string): void {
  const state = sqlState(error);
  if (state) request.log.error({ ...errorPlace(request), sqlState: state, constraint: constraintName(error) }, 'database error');
  else request.log.error({ ...errorPlace(request), err: error }, message);
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
    const where = errorPlace(request);
    // The database down or restarting is an outage, not a bug: 503, so clients and load balancers retry.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ ...where, sqlState: sqlState(error) }, 'database unavailable');
      return reply.code(503).header('retry-after', '5').send(format.body(503, 'Service unavailable: the database cannot be reached, try again later', request, error));
    }
    logServerError(request, error, 'unhandled error');
    return reply.code(500).send(format.body(500, 'Internal server error', request, error));
  };
}

/** Where an error format applies: under `prefix` (a context path, `''` for everything). */
export interface ErrorScope {
  prefix: string;
  format: ErrorFormat;
  /**
   * Optional: answers a router error itself (a domain's HTML error page for a browser); undefined
   * leaves it to `format`'s body.
   */
  page?(request: FastifyRequest, reply: FastifyReply, status: number, code: string): unknown;
}

/** The router's own errors, raised before a route (and so a scope) is known. */
const ROUTER_ERRORS: Readonly<Record<string, readonly [number, string]>> = {
  FST_ERR_BAD_URL: [400, 'Malformed URL: a path segment is not valid percent-encoded UTF-8'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A path parameter is too long'],
};

/**
 * Fastify's `frameworkErrors` option: the router's errors (a malformed URL, a path parameter over
 * `maxParamLength`) answered with the error body of the scope the URL falls in (the longest
 * matching prefix; the first scope when none matches), not Fastify's own `{error, code, message}`.
 */
export function routerErrorHandler(scopes: readonly ErrorScope[]) {
  const normalized = scopes.map((s) => ({ ...s, prefix: s.prefix.replace(/\/+$/, '') }));
  const byLength = [...normalized].sort((a, b) => b.prefix.length - a.prefix.length);
  return function routerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const [status, message] = ROUTER_ERRORS[error.code] ?? [500, 'Internal server error'];
    if (status >= 500) request.log.error({ err: error }, 'router error');
    const path = request.url.split('?')[0]!;
    const scope = byLength.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`)) ?? normalized[0]!;
    setBaselineSecurityHeaders(reply);
    const page = scope.page?.(request, reply, status, error.code);
    if (page !== undefined) return page;
    return reply.code(status).send(scope.format.body(status, message, request, error));
  };
}

/** The domain's error body schemas for the client errors any route may answer. */
export interface ClientErrorSchemas {
  /** 400: a malformed URL, or a NUL character or non-finite number anywhere (input-guard.ts). */
  badRequest: unknown;
  /** 414: a path parameter longer than the router takes. */
  uriTooLong: unknown;
  /** 415: a body of a media type the scope does not parse. */
  unsupportedMediaType: unknown;
}

/**
 * An `onRoute` hook that documents, on every route with response schemas, the client errors that
 * come from the framework rather than the route: 400 always, 414 when the path has parameters,
 * 415 when the method takes a body. A status the route declares itself is kept.
 */
export function documentClientErrors(schemas: ClientErrorSchemas) {
  return function clientErrorResponses(route: { method: string | string[]; url: string; schema?: { response?: Record<string, unknown>; hide?: boolean } }): void {
    const response = route.schema?.response;
    if (!response || route.schema?.hide) return;
    response[400] ??= schemas.badRequest;
    if (route.url.includes(':') || route.url.includes('*')) response[414] ??= schemas.uriTooLong;
    if ([route.method].flat().some((m) => m !== 'GET' && m !== 'HEAD')) response[415] ??= schemas.unsupportedMediaType;
  };
}
