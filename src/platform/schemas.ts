/** Schema builders both domains use. */
import { Type, type Static, type TSchema } from 'typebox';

/**
 * `T | null`. Simple types become a type array (`['string', 'null']`) rather than an anyOf: in an
 * anyOf, AJV's type coercion turns null into "" or 0 in the first branch.
 */
export function nullable<T extends TSchema>(schema: T) {
  const { type } = schema as { type?: unknown };
  if (typeof type === 'string' || Array.isArray(type)) {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [...[type].flat(), 'null'] });
  }
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
}
