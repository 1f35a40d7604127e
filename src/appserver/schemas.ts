/** Schemas shared by the app server's routes. */
import { Type, type Static, type TNumberOptions, type TSchema } from 'typebox';

/** Input instant: ISO-8601 string or epoch seconds (a type array keeps AJV from coercing). */
export const InstantIn = Type.Unsafe<string | number>({
  type: ['string', 'number'],
  description: 'ISO-8601 instant or epoch seconds',
  examples: ['2030-06-29T15:25:58.054Z', 1908977158.054],
});

/** Output instant: epoch seconds with the milliseconds as fraction. */
export const InstantOut = Type.Unsafe<number>({ type: 'number', description: 'Epoch seconds', examples: [1908977158.054] });
export const NullableInstantOut = Type.Unsafe<number | null>({ type: ['number', 'null'], description: 'Epoch seconds', examples: [1908977158.054] });

export { nullable } from '../platform/schemas.js';

export const StringMap = Type.Record(Type.String(), Type.String(), { maxProperties: 100 });

export const ErrorDetails = Type.Object({
  timestamp: InstantOut,
  status: Type.Integer(),
  message: Type.String(),
  cause: Type.Optional(Type.String()),
  path: Type.String({ examples: ['uri=/projects/radar'] }),
}, { description: 'The app server error body' });

/** `{ 404: ErrorDetails, … }` for a route's declared error statuses. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const details = ref<typeof ErrorDetails>('ErrorDetails');
  return Object.fromEntries(statuses.map((s) => [s, details]));
}

export const ProjectIdParams = Type.Object({ projectId: Type.String({ minLength: 1 }) });
export const SubjectParams = Type.Object({ projectId: Type.String({ minLength: 1 }), subjectId: Type.String({ minLength: 1 }) });
/** A row id: a positive safe integer, so `1e308` is a 400 (a coerced `Infinity` is platform/input-guard.ts's). */
export const Id = (options: TNumberOptions = {}) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...options });

export const IdQuery = Type.Object({ id: Type.Optional(Id()) });
export const ScheduleQuery = Type.Object({ schedule: Type.Boolean({ default: true }) });

/** 200 with an empty body, as the reference answers deletes. */
export const EmptyBody = Type.Unsafe<undefined>({ type: 'null', description: 'Empty body' });

/**
 * A reference to a shared schema (registered with `addSchema` under `id`, see `component`).
 * Fastify refuses a schema with `$id` used inline in a route, so routes use references only.
 */
export const ref = <T extends TSchema>(id: string) => Type.Unsafe<Static<T>>({ $ref: `${id}#` });

/** The shared-schema form of a DTO, for `addSchema`; it becomes an OpenAPI component. */
export const component = (id: string, schema: TSchema): TSchema => ({ ...schema, $id: id });

export const MessageIdParams = Type.Object({ ...SubjectParams.properties, notificationId: Id() });
export const IdParams = Type.Object({ id: Id() });
export const SubjectIdParams = Type.Object({ ...SubjectParams.properties, id: Id() });
