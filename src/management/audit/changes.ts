/**
 * The fields a change changed, for its audit event (issue 31 item 8): one shared diff, so no
 * service lists its fields by hand. Values are compared as JSON; a field whose name is on the
 * deny-list (passwords, hashes, secrets, keys, tokens) is named but carries neither value.
 */
import type { AuditFieldChange } from '../schema.js';
import type { AuditEvent } from './audit-log.js';

/**
 * Field names whose values never enter the audit trail. `key` alone and `…Key` of credentials are
 * secrets (`resetKey`, `activationKey`, `privateKey`); other `…Key` fields such as `entityKey` or
 * `sourceTypeKey`-like names are not matched.
 */
const SECRET_FIELD = /password|secret|token|hash|^key$|(reset|activation|private|api|access|signing)key|credential|fcm/i;

export const isSecretField = (name: string): boolean => SECRET_FIELD.test(name);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Field name → `{ old, new }` for every top-level field that differs between `before` and `after`
 * (`undefined` before: a creation, every set field; undefined after: a deletion). Nested objects
 * are compared whole and recorded without their secret fields.
 */
export function diffFields(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): Record<string, AuditFieldChange> {
  const changes: Record<string, AuditFieldChange> = {};
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of names) {
    const old = before?.[name];
    const now = after?.[name];
    if (same(old, now)) continue;
    if (isSecretField(name)) {
      changes[name] = { redacted: true };
      continue;
    }
    changes[name] = { ...(old !== undefined ? { old: withoutSecrets(old) } : {}), ...(now !== undefined ? { new: withoutSecrets(now) } : {}) };
  }
  return changes;
}

/** A JSON value with every secret-named field removed, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>)
      .filter(([k]) => !isSecretField(k)).map(([k, v]) => [k, withoutSecrets(v)]));
  }
  return value;
}

/** Who made a change: a revision's author, and for the audit trail the address they came from. */
export interface ChangeAuthor { name: string; address?: string | undefined }

/**
 * The audit event of a create (`before` undefined), update or delete (`after` undefined) of an
 * entity: kind `ENTITY_*`, target `entityType` + `target`, the fields changed. A deletion records
 * the deleted entity's fields as old values.
 */
export function entityChangeEvent(
  author: ChangeAuthor, entityType: string, target: string, before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined, data: Record<string, string> = {}, date?: Date,
): AuditEvent {
  const type = before === undefined ? 'ENTITY_CREATED' : after === undefined ? 'ENTITY_DELETED' : 'ENTITY_UPDATED';
  return {
    principal: author.name, type, address: author.address, date,
    target: { type: entityType, id: target }, data: { entityType, ...data, target },
    changes: diffFields(before, after),
  };
}
