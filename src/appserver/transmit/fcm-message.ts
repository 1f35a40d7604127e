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
import type { AndroidNotification, ApnsPayload, Aps, ApsAlert, Message } from 'firebase-admin/messaging';
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

/** Custom APNs payload keys from the data map (`aps` is reserved), with `aps` last. */
function apnsPayload(data: Record<string, string> | null, aps: Aps): ApnsPayload {
  const out: ApnsPayload = {} as ApnsPayload;
  if (data) for (const k of Object.keys(data)) if (k !== 'aps') out[k] = data[k];
  out.aps = aps;
  return out;
}

export class InvalidMessage extends Error {}

/** The fields of a message row that its FCM message is built from. */
export type FcmMessageFields = Pick<MessageRow,
  | 'kind' | 'data' | 'priority' | 'badge' | 'title' | 'body' | 'sound' | 'subtitle' | 'mutableContent'
  | 'androidChannelId' | 'color' | 'tag' | 'icon' | 'clickAction' | 'bodyLocKey' | 'bodyLocArgs' | 'titleLocKey' | 'titleLocArgs'>;

/**
 * The firebase-admin message for `m`. `ttlSeconds` is the time to live left at send time (the
 * caller takes lateness off and clamps it); `now` sets the APNs expiration.
 * Throws `InvalidMessage` for content FCM would refuse (a non-numeric badge).
 */
export function buildFcmMessage(m: FcmMessageFields, target: FcmTarget, ttlSeconds: number, now: Date): Message {
  const ttl = Math.max(0, Math.min(MAX_TTL_SECONDS, Math.floor(ttlSeconds)));
  // APNs: expiration 0 means "deliver now or never", matching FCM's TTL 0.
  const apnsExpiration = ttl === 0 ? '0' : String(Math.floor(now.getTime() / 1000) + ttl);
  const data = m.data && Object.keys(m.data).length > 0 ? m.data : undefined;
  // Each object is one literal, absent fields undefined (JSON leaves them out, as do
  // firebase-admin's checks), and the fields firebase-admin renames (camelCase to FCM's or APNs'
  // names: it adds the new key and deletes the old) only when present. Adding fields through a
  // generic setter, or deleting the absent ones, made V8 objects slow (megamorphic stores,
  // dictionaries) here and in firebase-admin's copy, checks and serialisation of every message.
  const { token, topic, condition } = target as { token?: string; topic?: string; condition?: string };

  if (m.kind === 'data') {
    return {
      token, topic, condition, data,
      android: { priority: androidPriority(m.priority, 'normal'), ttl: ttl * 1000, data },
      apns: {
        headers: { 'apns-push-type': 'background', 'apns-priority': '5', 'apns-expiration': apnsExpiration },
        payload: apnsPayload(m.data, { contentAvailable: true }),
      },
    } as Message;
  }

  let badge: number | undefined;
  if (m.badge !== null && m.badge !== '') {
    if (!/^\s*\d+\s*$/.test(m.badge)) throw new InvalidMessage(`badge must be a whole number, got "${m.badge}"`);
    badge = Number(m.badge);
  }
  const title = m.title ?? undefined;
  const body = m.body ?? undefined;
  const sound = m.sound ?? 'default';
  const titleLocArgs = m.titleLocKey && m.titleLocArgs ? [m.titleLocArgs] : undefined;
  const bodyLocArgs = m.bodyLocKey && m.bodyLocArgs ? [m.bodyLocArgs] : undefined;

  const android: AndroidNotification = { title, body, sound, color: m.color ?? undefined, tag: m.tag ?? undefined, icon: m.icon ?? undefined };
  if (m.androidChannelId !== null) android.channelId = m.androidChannelId;
  if (m.clickAction !== null) android.clickAction = m.clickAction;
  if (m.bodyLocKey !== null) android.bodyLocKey = m.bodyLocKey;
  if (bodyLocArgs) android.bodyLocArgs = bodyLocArgs;
  if (m.titleLocKey !== null) android.titleLocKey = m.titleLocKey;
  if (titleLocArgs) android.titleLocArgs = titleLocArgs;

  const alert: ApsAlert = { title, body, subtitle: m.subtitle ?? undefined };
  if (m.titleLocKey !== null) alert.titleLocKey = m.titleLocKey;
  if (titleLocArgs) alert.titleLocArgs = titleLocArgs;
  if (m.bodyLocKey !== null) alert.locKey = m.bodyLocKey;
  if (bodyLocArgs) alert.locArgs = bodyLocArgs;
  const aps: Aps = { alert, sound, badge };
  if (m.mutableContent) aps.mutableContent = true;

  return {
    token, topic, condition,
    notification: { title, body },
    data,
    android: { priority: androidPriority(m.priority, 'high'), ttl: ttl * 1000, data, notification: android },
    apns: { headers: { 'apns-push-type': 'alert', 'apns-expiration': apnsExpiration }, payload: apnsPayload(m.data, aps) },
  } as Message;
}
