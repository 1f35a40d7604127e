/**
 * The app server's error bodies (appserver.md §0): `ErrorDetails {timestamp, status, message,
 * path: "uri=…"}` (+ `cause`), and the 409 body of a duplicate notification, which the
 * questionnaire app reads (`err.error.dto`, clients.md §2.1).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorFormat } from '../platform/errors.js';
import { isUniqueViolation, sqlState } from '../platform/database.js';
import { epochSeconds } from './instant.js';

export class NotFound extends DomainError {
  constructor(message: string) { super(404, message); }
}

/** The reference's EXPECTATION_FAILED (417) for invalid or conflicting details. */
export class InvalidDetails extends DomainError {
  constructor(message: string, cause?: string) { super(417, message, cause ? { cause } : undefined); }
}

export class BadRequest extends DomainError {
  constructor(message: string) { super(400, message); }
}

/**
 * 400 unless a body field that names the entity repeats what the path names (`target`, e.g.
 * "the path (radar)"). An absent or empty field is fine: the path decides which entity changes.
 */
export function requireBodyMatchesPath<T>(field: string, bodyValue: T | null | undefined, expected: T, target: string): void {
  if (bodyValue !== undefined && bodyValue !== null && bodyValue !== '' && bodyValue !== expected) {
    throw new BadRequest(`The ${field} in the body (${String(bodyValue)}) does not match ${target}`);
  }
}

/** 401 (radar-spring-auth's `AuthorizationFailedException`); answered with `WWW-Authenticate: Bearer`. */
export class Unauthorized extends DomainError {
  constructor(message: string) { super(401, message); }
}

/** 403 (radar-spring-auth's `ResourceForbiddenException`). */
export class Forbidden extends DomainError {
  constructor(message = 'The requested resource is forbidden.') { super(403, message); }
}

export class Conflict extends DomainError {
  constructor(message: string) { super(409, message); }
}

/** 208 ALREADY_REPORTED: the reference's answer to a repeated data message. */
export class AlreadyExists extends DomainError {
  constructor(message: string) { super(208, message); }
}

const DUPLICATE_NOTIFICATION = 'The Notification Already exists. Please Use update endpoint';

/** A notification with the same user, sourceId, scheduledTime, title, body, type and ttlSeconds exists. */
export class NotificationAlreadyExists extends Error {
  constructor(readonly dto: unknown) {
    super(DUPLICATE_NOTIFICATION);
  }
}

const requestPath = (request: FastifyRequest) => `uri=${request.url.split('?')[0]}`;

export const appserverErrorFormat: ErrorFormat = {
  body(status, message, request, error) {
    const cause = error instanceof DomainError ? error.details?.cause : undefined;
    return {
      timestamp: epochSeconds(new Date()),
      status,
      message,
      ...(typeof cause === 'string' ? { cause } : {}),
      path: requestPath(request),
    };
  },
  custom(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof Unauthorized) {
      // Never the token: the path and the reason only.
      request.log.warn({ path: request.url.split('?')[0] }, error.message);
      return reply.code(401).header('www-authenticate', 'Bearer').send(appserverErrorFormat.body(401, error.message, request, error));
    }
    if (error instanceof NotificationAlreadyExists) {
      return reply.code(409).send({
        message: `${DUPLICATE_NOTIFICATION} ${JSON.stringify(error.dto)}`,
        errorMessage: DUPLICATE_NOTIFICATION,
        dto: error.dto,
      });
    }
    if (isUniqueViolation(error)) {
      // A concurrent request won a race the service's own checks could not see.
      return reply.code(409).send(appserverErrorFormat.body(409, 'A Constraint was violated while Persisting. The entity already exists.', request, error));
    }
    if (sqlState(error)?.startsWith('22')) {
      // A value the schemas let through but PostgreSQL cannot store or compare (class 22, data
      // exception): an id beyond bigint, a number beyond integer, a NUL character in a string.
      return reply.code(400).send(appserverErrorFormat.body(400, `Invalid value: the database refused it (SQLSTATE ${sqlState(error)})`, request, error));
    }
    return undefined;
  },
};
