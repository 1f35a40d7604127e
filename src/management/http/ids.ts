/**
 * The management API's id fields. Ids are `bigint` columns read as JavaScript numbers, so an id is
 * a safe integer: `1e308` is a 400 with the field, never a database error (a 500). A coerced
 * `Infinity` (query `1e309`) passes AJV's range checks; platform/input-guard.ts refuses it.
 */
import { Type, type TNumberOptions } from 'typebox';

/** An integer id (or id cursor) within ±`Number.MAX_SAFE_INTEGER`; options may narrow it. */
export const EntityId = (options: TNumberOptions = {}) =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...options });
