/**
 * One guard for values a route's schema lets through but the database cannot take, so that they
 * answer 400 rather than 500 (ARCHITECTURE.md rule 8):
 * - a NUL character (U+0000) in any string or key: PostgreSQL refuses it in `text`;
 * - a number that is not finite: AJV coerces the query or path text `1e309` or `Infinity` to
 *   `Infinity` and then skips the type's finiteness and the `maximum` check (`minimum` and
 *   `maximum` only test finite numbers). Finite numbers out of range are the schemas' job
 *   (`maximum: Number.MAX_SAFE_INTEGER` on ids).
 *
 * Each domain registers the hook in its own scope with its own error, so the 400 carries the
 * domain's error body. It runs as `preHandler`, after validation and coercion, and before the
 * route's own hooks: nothing below it sees the value.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from './errors.js';

/** Deeper than this, nothing is inspected: request schemas end far earlier. */
const MAX_DEPTH = 32;

export interface UnstorableValue {
  /** The HTTP part, as Fastify names it in validation errors. */
  location: 'querystring' | 'params' | 'body';
  /** Dotted path of the value within its part (`''` for a text body). */
  field: string;
  problem: 'nul' | 'number';
}

/** What is wrong with the value, without where it is. */
export const UNSTORABLE_PROBLEMS: Readonly<Record<UnstorableValue['problem'], string>> = {
  nul: 'must not contain the NUL character (U+0000)',
  number: 'must be a finite number',
};

/** The guard's message for a value; domains may build their own body around it. */
export function describeUnstorable({ location, field, problem }: UnstorableValue): string {
  return `${field === '' ? location : `${location}.${field}`} ${UNSTORABLE_PROBLEMS[problem]}`;
}

/**
 * The path of the first NUL-bearing string (or key) or non-finite number in `value`, or undefined.
 * Strings cost one `includes`; objects and arrays are walked to `MAX_DEPTH`.
 */
function findUnstorable(value: unknown, depth: number): { path: (string | number)[]; problem: UnstorableValue['problem'] } | undefined {
  switch (typeof value) {
    case 'string':
      return value.includes('\u0000') ? { path: [], problem: 'nul' } : undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { path: [], problem: 'number' };
    case 'object': {
      if (value === null || depth >= MAX_DEPTH || ArrayBuffer.isView(value)) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const found = findUnstorable(value[i], depth + 1);
          if (found) {
            found.path.unshift(i);
            return found;
          }
        }
        return undefined;
      }
      // Query strings are null-prototype objects: `for…in` reads them as it reads parsed JSON.
      for (const key in value) {
        if (key.includes('\u0000')) return { path: [key], problem: 'nul' };
        const found = findUnstorable((value as Record<string, unknown>)[key], depth + 1);
        if (found) {
          found.path.unshift(key);
          return found;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function locate(value: unknown, location: UnstorableValue['location']): UnstorableValue | undefined {
  if (value === undefined || value === null) return undefined;
  const found = findUnstorable(value, 0);
  // A key's NUL is spelled out: the field name reaches the reply and, in some scopes, the log.
  return found && { location, field: found.path.join('.').replaceAll('\u0000', '\\u0000'), problem: found.problem };
}

/**
 * A `preHandler` hook that fails the request with `toError(found)` when its query, path
 * parameters or body hold an unstorable value. A callback hook: the token endpoint is hot, and an
 * async hook costs each request a promise.
 */
export function rejectUnstorableInput(toError: (found: UnstorableValue) => Error = (found) => new DomainError(400, describeUnstorable(found))) {
  return function unstorableInputGuard(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const found = locate(request.query, 'querystring') ?? locate(request.params, 'params') ?? locate(request.body, 'body');
    if (found) done(toError(found));
    else done();
  };
}
