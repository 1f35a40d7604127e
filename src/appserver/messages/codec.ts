/** The fields notifications and data messages share on the wire and in the messages table. */
import { randomUUID } from 'node:crypto';
import { parseInstant } from '../instant.js';

interface MessageBody {
  scheduledTime: string | number;
  ttlSeconds?: number;
  sourceId: string;
  fcmMessageId?: string | null;
  fcmTopic?: string | null;
  fcmCondition?: string | null;
  appPackage: string;
  sourceType: string;
  priority?: string | null;
  mutableContent?: boolean;
}

/** Stored columns common to both kinds; `data` is the FCM data map (additionalData / dataMap). */
export const messageRow = (b: MessageBody, data: Record<string, string> | null | undefined) => ({
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
  data: data ?? null,
});
