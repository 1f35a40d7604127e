/** How data messages map between the wire (FcmDataMessageDto) and the messages table. */
import { randomUUID } from 'node:crypto';
import { AlreadyExists } from '../errors.js';
import { epochSeconds, parseInstant } from '../instant.js';
import type { MessageCodec } from '../messages/service.js';
import type { FcmDataMessageBodyT, FcmDataMessageDtoT } from './schemas.js';

export const dataMessageCodec: MessageCodec<FcmDataMessageBodyT, FcmDataMessageDtoT> = {
  kind: 'data',
  label: 'Data message',

  toRow: (b) => ({
    scheduledTime: parseInstant(b.scheduledTime, 'scheduledTime'),
    ttlSeconds: b.ttlSeconds ?? 0,
    sourceId: b.sourceId,
    fcmMessageId: b.fcmMessageId || randomUUID(),
    fcmTopic: b.fcmTopic ?? null,
    fcmCondition: b.fcmCondition ?? null,
    appPackage: b.appPackage,
    sourceType: b.sourceType,
    priority: b.priority ? b.priority.toUpperCase() : null,
    mutableContent: b.mutableContent ?? false,
    data: b.dataMap ?? null,
  }),

  dedupeFields: (r) => [r.sourceId, (r.scheduledTime as Date).getTime(), r.ttlSeconds ?? 0],

  toDto: (r) => ({
    id: r.id,
    scheduledTime: epochSeconds(r.scheduledTime),
    delivered: r.delivered,
    ttlSeconds: r.ttlSeconds,
    sourceId: r.sourceId,
    fcmMessageId: r.fcmMessageId,
    fcmTopic: r.fcmTopic,
    fcmCondition: r.fcmCondition,
    appPackage: r.appPackage,
    sourceType: r.sourceType,
    dataMap: r.data,
    priority: r.priority,
    mutableContent: r.mutableContent,
    createdAt: epochSeconds(r.createdAt),
    updatedAt: epochSeconds(r.updatedAt),
  }),

  // Kept from the reference: a repeated data message answers 208 ALREADY_REPORTED.
  duplicate: (existing) => new AlreadyExists(`The Data Message Already exists. Please Use update endpoint (id ${existing.id})`),
};
