import { Type, type Static } from 'typebox';
import { messageBodyFields, messageDtoFields, optionalStringField as s } from '../messages/schemas.js';
import { nullable, ref, StringMap } from '../schemas.js';

const notificationFields = {
  title: Type.String({ minLength: 1 }),
  body: s,
  type: Type.String({ minLength: 1 }),
  additionalData: Type.Optional(nullable(StringMap)),
  sound: s,
  badge: Type.Optional(nullable(Type.String({ pattern: '^\\d+$', description: 'iOS badge number' }))),
  subtitle: s,
  icon: s,
  color: Type.Optional(nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '#rrggbb' }))),
  bodyLocKey: s,
  bodyLocArgs: s,
  titleLocKey: s,
  titleLocArgs: s,
  androidChannelId: s,
  tag: s,
  clickAction: s,
  emailEnabled: Type.Optional(Type.Boolean({ default: false })),
  emailTitle: s,
  emailBody: s,
};

export const FcmNotificationBody = Type.Object({ ...messageBodyFields, ...notificationFields }, { additionalProperties: false });

const nullableString = nullable(Type.String());
export const FcmNotificationDto = Type.Object({
  ...messageDtoFields,
  title: Type.String(),
  body: nullableString,
  type: Type.String(),
  additionalData: nullable(StringMap),
  sound: nullableString,
  badge: nullableString,
  subtitle: nullableString,
  icon: nullableString,
  color: nullableString,
  bodyLocKey: nullableString,
  bodyLocArgs: nullableString,
  titleLocKey: nullableString,
  titleLocArgs: nullableString,
  androidChannelId: nullableString,
  tag: nullableString,
  clickAction: nullableString,
  emailEnabled: Type.Boolean(),
  emailTitle: nullableString,
  emailBody: nullableString,
});

export const FcmNotificationDtoRef = ref<typeof FcmNotificationDto>('FcmNotificationDto');
export const FcmNotificationsOut = Type.Object({ notifications: Type.Array(FcmNotificationDtoRef) });
/** The same list as JSON text (PostgreSQL writes a user's list): one schema for the document, a string for the handler. */
export const FcmNotificationsText = Type.Unsafe<string>(FcmNotificationsOut);
export const FcmNotificationsIn = Type.Object({
  notifications: Type.Array(FcmNotificationBody, { maxItems: 200 }),
}, { additionalProperties: false });

export const DuplicateNotification = Type.Object({
  message: Type.String(),
  errorMessage: Type.String({ examples: ['The Notification Already exists. Please Use update endpoint'] }),
  dto: FcmNotificationDtoRef,
}, { description: 'A notification with the same sourceId, scheduledTime, title, body, type and ttlSeconds exists' });

export type FcmNotificationBodyT = Static<typeof FcmNotificationBody>;
export type FcmNotificationDtoT = Static<typeof FcmNotificationDto>;
