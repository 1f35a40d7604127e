/**
 * FCM HTTP v1 messages (firebase-admin `Message`) for a notification or a data message, as the
 * reference's `FcmTransmitter` + `AdminSdkFcmSender` build them (appserver.md §5.3), with the
 * defects of §11.1 fixed:
 *  - Reference bug fixed: the topic was sent as a device token; it is now sent as `topic`.
 *  - Reference bug fixed: a condition was sent together with the token (which FCM refuses); a
 *    message with a condition now goes to the condition alone.
 *  - Reference bug fixed: `subtitle` was dropped; it now reaches APNs (`aps.alert.subtitle`).
 *  - Reference bug fixed: a null body was sent as the text "null"; it is now left out.
 *  - Reference bug fixed: `image: ""` was always sent; no image is sent.
 *  - Reference bug fixed: data messages asked APNs to play a sound in a background push; a
 *    background push now carries `content-available` only, as APNs requires.
 * Pure functions: no I/O, no clock of their own.
 */
import type { AndroidConfig, ApnsConfig, Message } from 'firebase-admin/messaging';
import type { MessageRow } from '../schema.js';

/** FCM's longest time to live: 28 days. */
export const MAX_TTL_SECONDS = 28 * 24 * 3600;

/** Where a message goes: a device token, a topic or a condition. */
export type FcmTarget = { token: string } | { topic: string } | { condition: string };

/**
 * The target of a message: its condition alone, else its topic, else the user's device token at
 * send time (undefined when the user has none).
 */
export function targetOf(m: Pick<MessageRow, 'fcmCondition' | 'fcmTopic'>, userToken: string | null): FcmTarget | undefined {
  if (m.fcmCondition) return { condition: m.fcmCondition };
  if (m.fcmTopic) return { topic: m.fcmTopic.replace(/^\/topics\//, '') };
  return userToken ? { token: userToken } : undefined;
}

const androidPriority = (priority: string | null, fallback: 'high' | 'normal'): 'high' | 'normal' =>
  priority === 'HIGH' ? 'high' : priority === 'NORMAL' ? 'normal' : fallback;

/** Drops undefined and null fields (firebase-admin refuses some nulls and sends the rest). */
function defined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined || o[key] === null) delete o[key];
  return o;
}

/** Custom APNs payload keys from the data map; `aps` is reserved. */
function apnsCustomData(data: Record<string, string> | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (data) for (const [k, v] of Object.entries(data)) if (k !== 'aps') out[k] = v;
  return out;
}

export class InvalidMessage extends Error {}

/**
 * The firebase-admin message for `m`. `ttlSeconds` is the time to live left at send time (the
 * caller takes lateness off and clamps it); `now` sets the APNs expiration.
 * Throws `InvalidMessage` for content FCM would refuse (a non-numeric badge).
 */
export function buildFcmMessage(m: MessageRow, target: FcmTarget, ttlSeconds: number, now: Date): Message {
  const ttl = Math.max(0, Math.min(MAX_TTL_SECONDS, Math.floor(ttlSeconds)));
  // APNs: expiration 0 means "deliver now or never", matching FCM's TTL 0.
  const apnsExpiration = ttl === 0 ? '0' : String(Math.floor(now.getTime() / 1000) + ttl);
  const data = m.data && Object.keys(m.data).length > 0 ? m.data : undefined;

  if (m.kind === 'data') {
    const android: AndroidConfig = defined({ priority: androidPriority(m.priority, 'normal'), ttl: ttl * 1000, data });
    const apns: ApnsConfig = {
      headers: { 'apns-push-type': 'background', 'apns-priority': '5', 'apns-expiration': apnsExpiration },
      payload: { ...apnsCustomData(m.data), aps: { contentAvailable: true } },
    };
    return defined({ ...target, data, android, apns } as Message);
  }

  let badge: number | undefined;
  if (m.badge !== null && m.badge !== '') {
    if (!/^\s*\d+\s*$/.test(m.badge)) throw new InvalidMessage(`badge must be a whole number, got "${m.badge}"`);
    badge = Number(m.badge);
  }
  const title = m.title ?? undefined;
  const body = m.body ?? undefined;
  const sound = m.sound ?? 'default';
  const android: AndroidConfig = defined({
    priority: androidPriority(m.priority, 'high'),
    ttl: ttl * 1000,
    data,
    notification: defined({
      title, body, sound,
      channelId: m.androidChannelId ?? undefined,
      color: m.color ?? undefined,
      tag: m.tag ?? undefined,
      icon: m.icon ?? undefined,
      clickAction: m.clickAction ?? undefined,
      bodyLocKey: m.bodyLocKey ?? undefined,
      bodyLocArgs: m.bodyLocKey && m.bodyLocArgs ? [m.bodyLocArgs] : undefined,
      titleLocKey: m.titleLocKey ?? undefined,
      titleLocArgs: m.titleLocKey && m.titleLocArgs ? [m.titleLocArgs] : undefined,
    }),
  });
  const apns: ApnsConfig = {
    headers: { 'apns-push-type': 'alert', 'apns-expiration': apnsExpiration },
    payload: {
      ...apnsCustomData(m.data),
      aps: defined({
        alert: defined({
          title, body,
          subtitle: m.subtitle ?? undefined,
          titleLocKey: m.titleLocKey ?? undefined,
          titleLocArgs: m.titleLocKey && m.titleLocArgs ? [m.titleLocArgs] : undefined,
          locKey: m.bodyLocKey ?? undefined,
          locArgs: m.bodyLocKey && m.bodyLocArgs ? [m.bodyLocArgs] : undefined,
        }),
        sound,
        badge,
        mutableContent: m.mutableContent ? true : undefined,
      }),
    },
  };
  return defined({ ...target, notification: defined({ title, body }), data, android, apns } as Message);
}
