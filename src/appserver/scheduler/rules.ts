/**
 * The scheduler's rules as pure functions (no I/O, the time passed in): what to do with a claimed
 * message, and what an FCM failure means.
 */
import type { Message } from 'firebase-admin/messaging';
import { buildFcmMessage, InvalidMessage, MAX_TTL_SECONDS, targetOf } from '../transmit/fcm-message.js';
import type { ClaimedMessage } from './claim.js';

/** ERRORED details, stored as the state event's associatedInfo (the reference's `{error, error_description}`). */
export interface ErrorInfo { error: string; error_description: string }

export type Plan = { send: Message; lateness: number } | { fail: ErrorInfo };

/** Tokens the user service writes when another subject takes a device over: not deliverable. */
const isPlaceholderToken = (token: string | null) => token === null || token === '' || token.startsWith('unregistered_');

/**
 * What to send for a claimed message at `now`, or why it fails without a send:
 *  - `expired`: `ttlSeconds` > 0 and `scheduledTime + ttlSeconds` has passed;
 *  - `no_token`: no topic or condition, and the user has no device token (now);
 *  - `invalid_message`: content FCM would refuse.
 * A late message is sent with its TTL reduced by the lateness (at least 1 s); `ttlSeconds` 0 is
 * FCM's "now or never" and is sent with TTL 0 however late. TTL is at most 28 days.
 */
export function planMessage(c: ClaimedMessage, now: Date): Plan {
  const m = c.message;
  const lateness = Math.max(0, (now.getTime() - m.scheduledTime.getTime()) / 1000);
  let ttl = 0;
  if (m.ttlSeconds > 0) {
    const left = m.ttlSeconds - lateness;
    if (left <= 0) {
      return { fail: { error: 'expired', error_description: `Not sent: its time to live (${m.ttlSeconds} s from ${m.scheduledTime.toISOString()}) had passed at ${now.toISOString()}` } };
    }
    ttl = Math.min(MAX_TTL_SECONDS, Math.max(1, Math.floor(left)));
  }
  const target = targetOf(m, isPlaceholderToken(c.userToken) ? null : c.userToken);
  if (!target) return { fail: { error: 'no_token', error_description: `Subject ${c.subjectId} has no FCM token` } };
  try {
    return { send: buildFcmMessage(m, target, ttl, now), lateness };
  } catch (err) {
    if (err instanceof InvalidMessage) return { fail: { error: 'invalid_message', error_description: err.message } };
    throw err;
  }
}

/** SDK error codes worth another attempt: FCM UNAVAILABLE, INTERNAL, QUOTA_EXCEEDED, and the network. */
const RETRYABLE = new Set([
  'messaging/server-unavailable',
  'messaging/internal-error',
  'messaging/message-rate-exceeded',
  'messaging/device-message-rate-exceeded',
  'messaging/topics-message-rate-exceeded',
  'app/network-error',
  'app/network-timeout',
]);

export type FailureOutcome = { retry: true; info: ErrorInfo } | { retry: false; info: ErrorInfo; clearToken: boolean };

/**
 * What an FCM failure means. UNREGISTERED and invalid tokens fail the message and clear the
 * user's token (Reference bug fixed: the failing user's own token was kept); UNAVAILABLE,
 * INTERNAL and QUOTA_EXCEEDED are retried; anything else fails the message.
 */
export function classifyFailure(code: string, message: string): FailureOutcome {
  const description = `${code}: ${message}`;
  if (code === 'messaging/registration-token-not-registered') {
    return { retry: false, clearToken: true, info: { error: 'unregistered', error_description: description } };
  }
  if (code === 'messaging/invalid-registration-token' || (code === 'messaging/invalid-argument' && /registration token/i.test(message))) {
    return { retry: false, clearToken: true, info: { error: 'invalid_token', error_description: description } };
  }
  if (RETRYABLE.has(code)) return { retry: true, info: { error: 'unavailable', error_description: description } };
  return { retry: false, clearToken: false, info: { error: 'fcm_error', error_description: description } };
}

/** Wait before the next attempt after `attempts` sends: base × 2^(attempts − 1), at most an hour. */
export const retryDelaySeconds = (attempts: number, baseSeconds: number) =>
  Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1));
