/**
 * Failed-authentication limiter (issue 9 item 11): failed client authentications (wrong secret,
 * unknown client) and failed user authentications (wrong password) are counted per (name, client
 * IP) in fixed one-minute windows. Once a name has failed `maxPerMinute` times from one IP in the
 * current window, every further attempt for that name from that IP is refused with 429 and
 * `Retry-After` until the window ends. Successful attempts are never counted.
 *
 * The check runs before the credentials are verified: refusing only wrong guesses would still
 * tell a guesser which guess was right. A legitimate user elsewhere is unaffected (the key holds
 * the IP).
 *
 * Counters live in memory per instance (the issue allows it) and are bounded: windows that ended
 * are swept, and past `MAX_KEYS` the oldest windows are dropped first.
 */
import { OAuthError } from './errors.js';

const WINDOW_MS = 60_000;
const MAX_KEYS = 100_000;
/** Sweep ended windows every this many recorded failures. */
const SWEEP_EVERY = 1000;

/** 429 with `Retry-After`. RFC 6749 §4.1.2.1 names this condition `temporarily_unavailable`. */
export class TooManyFailedAttempts extends OAuthError {
  readonly error = 'temporarily_unavailable';
  override readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('Too many failed authentication attempts; try again later');
  }
}

export interface FailedAttemptLimiter {
  /** Throws `TooManyFailedAttempts` while `name` is blocked for `ip`. */
  check(name: string, ip: string): void;
  /** Counts one failed authentication of `name` from `ip`. */
  recordFailure(name: string, ip: string): void;
  /** Number of live counters (tests of the memory bound). */
  size(): number;
}

export function createFailedAttemptLimiter(deps: { maxPerMinute: number; now?: () => number; maxKeys?: number }): FailedAttemptLimiter {
  const now = deps.now ?? Date.now;
  const maxKeys = deps.maxKeys ?? MAX_KEYS;
  /** key → window; Map order is insertion order, so the first entries are the oldest windows. */
  const windows = new Map<string, { start: number; failures: number }>();
  let sinceSweep = 0;
  const keyOf = (name: string, ip: string) => `${name}\u0000${ip}`;

  function sweep(at: number) {
    for (const [key, w] of windows) if (w.start + WINDOW_MS <= at) windows.delete(key);
    sinceSweep = 0;
  }

  return {
    check(name, ip) {
      const w = windows.get(keyOf(name, ip));
      if (!w || w.failures < deps.maxPerMinute) return;
      const left = w.start + WINDOW_MS - now();
      if (left > 0) throw new TooManyFailedAttempts(Math.ceil(left / 1000));
    },
    recordFailure(name, ip) {
      const at = now();
      const key = keyOf(name, ip);
      const w = windows.get(key);
      if (w && w.start + WINDOW_MS > at) {
        w.failures++;
        return;
      }
      if (w) windows.delete(key); // re-inserted below, so insertion order stays oldest-first
      if (++sinceSweep >= SWEEP_EVERY || windows.size >= maxKeys) sweep(at);
      while (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
      windows.set(key, { start: at, failures: 1 });
    },
    size: () => windows.size,
  };
}
