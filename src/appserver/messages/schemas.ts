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
