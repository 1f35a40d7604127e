/** How data messages map between the wire (FcmDataMessageDto) and the messages table. */
import { AlreadyExists } from '../errors.js';
import { epochSeconds } from '../instant.js';
import { messageRow } from '../messages/codec.js';
import type { MessageCodec } from '../messages/service.js';
import type { FcmDataMessageBodyT, FcmDataMessageDtoT } from './schemas.js';

export const dataMessageCodec: MessageCodec<FcmDataMessageBodyT, FcmDataMessageDtoT> = {
  kind: 'data',
  label: 'Data message',
  toRow: (b) => messageRow(b, b.dataMap),
  dedupeFields: (r) => [r.sourceId, (r.scheduledTime as Date).getTime(), r.ttlSeconds ?? 0],
  // One literal with every field, as notificationCodec.toDto (why: there).
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
    priority: r.priority,
    mutableContent: r.mutableContent,
    createdAt: epochSeconds(r.createdAt),
    updatedAt: epochSeconds(r.updatedAt),
    dataMap: r.data,
  }),
  // toDto's fields, for the user's list that PostgreSQL writes (test/appserver/messages/dto-json.test.ts holds them equal).
  dtoJson: [
    ['id', 'id'], ['scheduledTime', 'scheduledTime'], ['delivered', 'delivered'], ['ttlSeconds', 'ttlSeconds'], ['sourceId', 'sourceId'],
    ['fcmMessageId', 'fcmMessageId'], ['fcmTopic', 'fcmTopic'], ['fcmCondition', 'fcmCondition'], ['appPackage', 'appPackage'],
    ['sourceType', 'sourceType'], ['priority', 'priority'], ['mutableContent', 'mutableContent'], ['createdAt', 'createdAt'], ['updatedAt', 'updatedAt'],
    ['dataMap', 'data'],
  ],
  // Kept from the reference: a repeated data message answers 208 ALREADY_REPORTED.
  duplicate: (existing) => new AlreadyExists(`The Data Message Already exists. Please Use update endpoint (id ${existing.id})`),
};
