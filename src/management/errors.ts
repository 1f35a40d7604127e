/**
 * The management domain's two reference error bodies (managementportal.md §1):
 * - `RadarWebApplicationExceptionVM` `{message, entityName, errorCode, params: {timestamp, …}}`
 *   with the headers `X-managementPortalApp-error` and `X-managementPortalApp-params`;
 * - `ErrorVM` `{message: "error.xxx", description, fieldErrors}` for access denied, validation
 *   and everything the framework answers (404, 405, 415, 500).
 * The OAuth endpoints have their own body (oauth/errors.ts, oauth/error-handler.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorFormat } from '../platform/errors.js';
import { isUniqueViolation } from '../platform/database.js';
import { ValidationFailed } from './http/validation.js';

/** `yyyy-MM-dd HH:mm:ss` in UTC, the reference's `params.timestamp`. */
const timestamp = (d = new Date()) => d.toISOString().slice(0, 19).replace('T', ' ');

export class RadarWebApplicationException extends DomainError {
  constructor(status: number, message: string, readonly entityName: string, readonly errorCode: string, readonly params: Record<string, string> = {}) {
    super(status, message);
    this.name = 'RadarWebApplicationException';
  }
}

export class NotFound extends RadarWebApplicationException {
  constructor(message: string, entityName: string, errorCode: string, params?: Record<string, string>) { super(404, message, entityName, errorCode, params); }
}
export class Conflict extends RadarWebApplicationException {
  constructor(message: string, entityName: string, errorCode: string, params?: Record<string, string>) { super(409, message, entityName, errorCode, params); }
}
export class BadRequest extends RadarWebApplicationException {
  constructor(message: string, entityName: string, errorCode: string, params?: Record<string, string>) { super(400, message, entityName, errorCode, params); }
}
/** 403 for a request that may not change what it targets (e.g. a protected OAuth client). */
export class Forbidden extends RadarWebApplicationException {
  constructor(message: string, entityName: string, errorCode: string, params?: Record<string, string>) { super(403, message, entityName, errorCode, params); }
}

/** An `ErrorVM` body with its own message key (e.g. 400 `error.projectNotEmpty`). */
export class ErrorVmException extends DomainError {
  constructor(status: number, readonly key: string, description: string) { super(status, description); this.name = 'ErrorVmException'; }
}

/** `ErrorVM` 403 `error.accessDenied`. */
export class AccessDenied extends DomainError {
  constructor(description = 'Access is denied') { super(403, description); this.name = 'AccessDenied'; }
}

const ERROR_KEYS: Readonly<Record<number, string>> = {
  400: 'error.validation', 401: 'error.unauthorized', 403: 'error.accessDenied', 404: 'error.notFound',
  405: 'error.methodNotSupported', 409: 'error.concurrencyFailure', 413: 'error.payloadTooLarge', 415: 'error.unsupportedMediaType',
};

export const managementErrorFormat: ErrorFormat = {
  body(status, message, _request, error) {
    if (status >= 500 && status !== 503) return { message: 'error.internalServerError', description: 'Internal server error', fieldErrors: null };
    const validation = (error as { validation?: { instancePath?: string; message?: string; keyword?: string }[]; validationContext?: string } | null)?.validation;
    if (validation) {
      const context = (error as { validationContext?: string }).validationContext ?? 'request';
      return {
        message: 'error.validation',
        description: message,
        fieldErrors: validation.map((v) => ({ objectName: context, field: (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.'), message: `${v.keyword ?? 'invalid'}: ${v.message ?? ''}` })),
      };
    }
    return { message: ERROR_KEYS[status] ?? `error.http.${status}`, description: message, fieldErrors: null };
  },
  custom(error: unknown, _request: FastifyRequest, reply: FastifyReply) {
    if (error instanceof RadarWebApplicationException) {
      return reply.code(error.status)
        .header('x-managementportalapp-error', error.errorCode)
        .header('x-managementportalapp-params', error.entityName)
        .send({ message: error.message, entityName: error.entityName, errorCode: error.errorCode, params: { timestamp: timestamp(), ...error.params } });
    }
    if (error instanceof ErrorVmException) {
      return reply.code(error.status).send({ message: error.key, description: error.message, fieldErrors: null });
    }
    if (error instanceof ValidationFailed) {
      return reply.code(400).send({ message: 'error.validation', description: error.message, fieldErrors: error.fieldErrors });
    }
    if (isUniqueViolation(error)) {
      return reply.code(409).send({ message: 'error.concurrencyFailure', description: 'The entity already exists', fieldErrors: null });
    }
    return undefined;
  },
};
