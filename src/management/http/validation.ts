/**
 * Bean-validation-style 400s of the management API: `ErrorVM` `error.validation` with field
 * errors whose message is `"<Code>: <text>"`, as the reference writes them (§1 error body B).
 */
import { DomainError } from '../../platform/errors.js';
import { UNSTORABLE_PROBLEMS, type UnstorableValue } from '../../platform/input-guard.js';

export interface FieldError {
  objectName: string;
  field: string;
  message: string;
}

/** A 400 `error.validation` the management error format renders with `fieldErrors`. */
export class ValidationFailed extends DomainError {
  constructor(readonly fieldErrors: FieldError[]) {
    super(400, fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'ValidationFailed';
  }
}

export const fieldError = (objectName: string, field: string, code: string, text: string): ValidationFailed =>
  new ValidationFailed([{ objectName, field, message: `${code}: ${text}` }]);

/**
 * The management domain's 400 for a value the database cannot take (platform/input-guard.ts): an
 * `error.validation` with the field. The OAuth scopes render it as `invalid_request` or a 400 page.
 */
export const unstorableInput = (found: UnstorableValue): ValidationFailed =>
  fieldError(found.location, found.field, found.problem === 'nul' ? 'Pattern' : 'Range', UNSTORABLE_PROBLEMS[found.problem]);

/** 400 unless `value` is set: the reference's `@NotNull`. */
export function requireField<T>(value: T | null | undefined, objectName: string, field: string): T {
  if (value === null || value === undefined) throw fieldError(objectName, field, 'NotNull', 'must not be null');
  return value;
}

/**
 * An enum field given by name or, as the reference's Jackson accepts, by ordinal (`"status": 1`).
 * Undefined and null pass through; anything else unknown is a 400.
 */
export function enumValue<T extends string>(values: readonly T[], raw: unknown, objectName: string, field: string): T | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < values.length) return values[raw];
  if (typeof raw === 'string') {
    if ((values as readonly string[]).includes(raw)) return raw as T;
    if (/^\d+$/.test(raw) && Number(raw) < values.length) return values[Number(raw)];
  }
  throw fieldError(objectName, field, 'InvalidFormat', `must be one of ${values.join(', ')}`);
}
