/** JSON shaping shared by the management DTOs. */

/**
 * Drops null and undefined members: the reference's `@JsonInclude(NON_NULL)` DTOs omit them. (Do
 * not send nulls through a response schema that says `string`: the serializer would write "".)
 */
export function nonNull<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = value[key];
    if (v !== null && v !== undefined) out[key] = v;
  }
  return out as { [K in keyof T]: Exclude<T[K], null> };
}
