/** How notifications map between the wire (FcmNotificationDto) and the messages table. */
import { randomUUID } from 'node:crypto';
import { NotificationAlreadyExists } from '../errors.js';
import { epochSeconds, parseInstant } from '../instant.js';
import type { MessageCodec } from '../messages/service.js';
import type { FcmNotificationBodyT, FcmNotificationDtoT } from './schemas.js';

export const notificationCodec: MessageCodec<FcmNotificationBodyT, FcmNotificationDtoT> = {
  kind: 'notification',
  label: 'Notification',

  toRow: (b) => ({
    scheduledTime: parseInstant(b.scheduledTime, 'scheduledTime'),
    ttlSeconds: b.ttlSeconds ?? 0,
    sourceId: b.sourceId,
    // Reference bug fixed: the client's fcmMessageId was replaced by a Java hashCode.
    fcmMessageId: b.fcmMessageId || randomUUID(),
    fcmTopic: b.fcmTopic ?? null,
    fcmCondition: b.fcmCondition ?? null,
    appPackage: b.appPackage,
    sourceType: b.sourceType,
    priority: b.priority ? b.priority.toUpperCase() : null,
    mutableContent: b.mutableContent ?? false,
    data: b.additionalData ?? null,
    title: b.title,
    body: b.body ?? null,
    type: b.type,
    sound: b.sound ?? null,
    badge: b.badge ?? null,
    subtitle: b.subtitle ?? null,
    icon: b.icon ?? null,
    color: b.color ?? null,
    bodyLocKey: b.bodyLocKey ?? null,
    bodyLocArgs: b.bodyLocArgs ?? null,
    titleLocKey: b.titleLocKey ?? null,
    titleLocArgs: b.titleLocArgs ?? null,
    androidChannelId: b.androidChannelId ?? null,
    tag: b.tag ?? null,
    clickAction: b.clickAction ?? null,
    emailEnabled: b.emailEnabled ?? false,
    emailTitle: b.emailTitle ?? null,
    emailBody: b.emailBody ?? null,
  }),

  dedupeFields: (r) => [r.sourceId, (r.scheduledTime as Date).getTime(), r.title, r.body ?? null, r.type, r.ttlSeconds ?? 0],

  toDto: (r) => ({
    id: r.id,
    scheduledTime: epochSeconds(r.scheduledTime),
    delivered: r.delivered,
    title: r.title ?? '',
    body: r.body,
    ttlSeconds: r.ttlSeconds,
    sourceId: r.sourceId,
    fcmMessageId: r.fcmMessageId,
    fcmTopic: r.fcmTopic,
    fcmCondition: r.fcmCondition,
    type: r.type ?? '',
    appPackage: r.appPackage,
    sourceType: r.sourceType,
    additionalData: r.data,
    priority: r.priority,
    sound: r.sound,
    badge: r.badge,
    subtitle: r.subtitle,
    icon: r.icon,
    color: r.color,
    bodyLocKey: r.bodyLocKey,
    bodyLocArgs: r.bodyLocArgs,
    titleLocKey: r.titleLocKey,
    titleLocArgs: r.titleLocArgs,
    androidChannelId: r.androidChannelId,
    tag: r.tag,
    clickAction: r.clickAction,
    emailEnabled: r.emailEnabled,
    emailTitle: r.emailTitle,
    emailBody: r.emailBody,
    mutableContent: r.mutableContent,
    createdAt: epochSeconds(r.createdAt),
    updatedAt: epochSeconds(r.updatedAt),
  }),

  duplicate: (existing) => new NotificationAlreadyExists(existing),
};
