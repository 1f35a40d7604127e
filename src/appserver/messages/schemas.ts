/** Schemas shared by notifications and data messages. */
import { Type, type Static } from 'typebox';
import { MESSAGE_STATES } from '../schema.js';
import { Id, InstantIn, InstantOut, nullable, StringMap } from '../schemas.js';

const optionalString = Type.Optional(nullable(Type.String()));

/** Request fields common to both kinds (the reference's `Message`). */
export const messageBodyFields = {
  id: Type.Optional(nullable(Id({ description: 'Required for updates' }))),
  scheduledTime: InstantIn,
  ttlSeconds: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'FCM time to live; 0 = now or never' })),
  sourceId: Type.String({ minLength: 1 }),
  fcmMessageId: optionalString,
  fcmTopic: optionalString,
  fcmCondition: optionalString,
  appPackage: Type.String({ minLength: 1 }),
  sourceType: Type.String({ minLength: 1 }),
  priority: Type.Optional(nullable(Type.String({ pattern: '^([Hh][Ii][Gg][Hh]|[Nn][Oo][Rr][Mm][Aa][Ll])$', description: 'Android priority HIGH or NORMAL' }))),
  mutableContent: Type.Optional(Type.Boolean({ default: false })),
  delivered: Type.Optional(Type.Boolean({ description: 'Ignored on input' })),
};

/** Response fields common to both kinds. */
export const messageDtoFields = {
  id: Type.Integer(),
  scheduledTime: InstantOut,
  delivered: Type.Boolean(),
  ttlSeconds: Type.Integer(),
  sourceId: Type.String(),
  fcmMessageId: Type.String(),
  fcmTopic: nullable(Type.String()),
  fcmCondition: nullable(Type.String()),
  appPackage: Type.String(),
  sourceType: Type.String(),
  priority: nullable(Type.String()),
  mutableContent: Type.Boolean(),
  createdAt: InstantOut,
  updatedAt: InstantOut,
};

export const optionalStringField = optionalString;
export const dataMapField = Type.Optional(nullable(StringMap));

export const NotificationStateEventDto = Type.Object({
  id: Type.Integer(),
  notificationId: Type.Integer(),
  state: Type.Unsafe<(typeof MESSAGE_STATES)[number]>({ type: 'string', enum: [...MESSAGE_STATES] }),
  time: InstantOut,
  associatedInfo: nullable(Type.String({ description: 'JSON object of strings, as a string' })),
});
export type NotificationStateEventDtoT = Static<typeof NotificationStateEventDto>;

export const StateEventBody = Type.Object({
  state: Type.String({ description: 'DELIVERED, OPENED, DISMISSED, ERRORED or UNKNOWN' }),
  time: Type.Optional(nullable(InstantIn)),
  associatedInfo: Type.Optional(nullable(Type.Union([Type.String(), StringMap]))),
  notificationId: Type.Optional(nullable(Type.Integer())),
}, { additionalProperties: false });

export type StateEventBodyT = Static<typeof StateEventBody>;

/**
 * The query of `/messaging/{notifications,data}/filtered`: every filter optional, `delivered` and
 * `ttlSeconds` as the DTOs show them, the scheduled time's bounds as instants are read elsewhere
 * (ISO-8601 with an offset, or epoch seconds). Reference stub fixed: it answered an empty body.
 */
export const DataMessageFilterQuery = Type.Object({
  delivered: Type.Optional(Type.Boolean()),
  ttlSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  startTime: Type.Optional(Type.String({ maxLength: 64, description: 'Scheduled at or after (ISO-8601 instant or epoch seconds)', examples: ['2026-01-01T00:00:00Z'] })),
  endTime: Type.Optional(Type.String({ maxLength: 64, description: 'Scheduled at or before (ISO-8601 instant or epoch seconds)' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many, by scheduled time' }),
});
export const NotificationFilterQuery = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 255, description: 'The notification type, exactly' })),
  ...DataMessageFilterQuery.properties,
});
