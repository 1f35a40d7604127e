/**
 * Failed-authentication limiter (issue 9 item 11, issue 17 item 5): failed client authentications
 * (wrong secret, unknown client) and failed user authentications (wrong password) are counted in
 * fixed one-minute windows twice over:
 *  - per (name, client IP): once a name has failed `maxPerMinute` times from one IP in the current
 *    window, every further attempt for that name from that IP is refused;
 *  - per client IP over all names (when `maxPerAddressPerMinute` is set): once one IP has failed
 *    that often, every further attempt from it is refused, whatever the name. This stops password
 *    spraying, where each name is tried only a few times.
 * A refusal is 429 with `Retry-After` until the window that blocks ends. Successful attempts are
 * never counted.
 *
 * The check runs before the credentials are verified: refusing only wrong guesses would still
 * tell a guesser which guess was right. A legitimate user elsewhere is unaffected (the keys hold
 * the IP).
 *
 * Counters live in memory per instance (the issue allows it) and are bounded: windows that ended
 * are swept, and past `maxKeys` (per kind of counter) the oldest windows are dropped first.
 */
import { OAuthError } from './errors.js';

const WINDOW_MS = 60_000;
const MAX_KEYS = 100_000;
/** Sweep ended windows every this many new windows. */
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
  /** Throws `TooManyFailedAttempts` while `name` is blocked for `ip`, or `ip` is blocked for every name. */
  check(name: string, ip: string): void;
  /** Counts one failed authentication of `name` from `ip` (for the name and for the address). */
  recordFailure(name: string, ip: string): void;
  /** Number of live counters (tests of the memory bound). */
  size(): number;
}

/** Fixed one-minute windows by key, bounded to `maxKeys`. */
function createWindows(maxKeys: number) {
  /** key → window; Map order is insertion order, so the first entries are the oldest windows. */
  const windows = new Map<string, { start: number; failures: number }>();
  let sinceSweep = 0;

  function sweep(at: number) {
    for (const [key, w] of windows) if (w.start + WINDOW_MS <= at) windows.delete(key);
    sinceSweep = 0;
  }

  return {
    /** Milliseconds until `key`'s window ends when it holds at least `max` failures, else 0. */
    blockedFor(key: string, max: number, at: number): number {
      const w = windows.get(key);
      if (!w || w.failures < max) return 0;
      return Math.max(0, w.start + WINDOW_MS - at);
    },
    record(key: string, at: number) {
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

export function createFailedAttemptLimiter(deps: {
  maxPerMinute: number;
  /** Failures from one IP over all names per window; absent: no per-address limit. */
  maxPerAddressPerMinute?: number | undefined;
  now?: () => number;
  maxKeys?: number;
}): FailedAttemptLimiter {
  const now = deps.now ?? Date.now;
  const maxKeys = deps.maxKeys ?? MAX_KEYS;
  const perName = createWindows(maxKeys);
  const perAddress = createWindows(maxKeys);
  const keyOf = (name: string, ip: string) => `${name}\u0000${ip}`;

  return {
    check(name, ip) {
      const at = now();
      const left = Math.max(
        perName.blockedFor(keyOf(name, ip), deps.maxPerMinute, at),
        deps.maxPerAddressPerMinute === undefined ? 0 : perAddress.blockedFor(ip, deps.maxPerAddressPerMinute, at),
      );
      if (left > 0) throw new TooManyFailedAttempts(Math.ceil(left / 1000));
    },
    recordFailure(name, ip) {
      const at = now();
      perName.record(keyOf(name, ip), at);
      if (deps.maxPerAddressPerMinute !== undefined) perAddress.record(ip, at);
    },
    size: () => perName.size() + perAddress.size(),
  };
}
