/**
 * Limits `reset_password/init`, which anyone may call and which sends mail: at most
 * `maxPerMinute` requests per client IP and per e-mail address in a one-minute window, whatever
 * their outcome, then 429 with `Retry-After`. Built on the token endpoint's fixed-window counters
 * (oauth/limiter.ts), where every request counts as an attempt. In memory per instance.
 */
import { RadarWebApplicationException } from '../errors.js';
import { createFailedAttemptLimiter, TooManyFailedAttempts } from '../oauth/limiter.js';

export const RESET_REQUESTS_PER_MINUTE = 5;

/** 429 body A; the route sets `Retry-After` from `retryAfterSeconds`. */
export class TooManyResetRequests extends RadarWebApplicationException {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too many password reset requests; try again later', 'userManagement', 'error.tooManyRequests');
  }
}

export interface RequestLimiter {
  /** Counts one request; throws `TooManyResetRequests` once the IP or the address is over the limit. */
  hit(ip: string, email: string): void;
}

export function createResetRequestLimiter(deps: { now: () => number; maxPerMinute?: number }): RequestLimiter {
  const counters = createFailedAttemptLimiter({ maxPerMinute: deps.maxPerMinute ?? RESET_REQUESTS_PER_MINUTE, now: deps.now });
  const keys = (ip: string, email: string): [string, string][] => [['ip', ip], ['email', email.trim().toLowerCase()]];
  return {
    hit(ip, email) {
      try {
        for (const [name, value] of keys(ip, email)) counters.check(name, value);
      } catch (err) {
        if (err instanceof TooManyFailedAttempts) throw new TooManyResetRequests(err.retryAfterSeconds);
        throw err;
      }
      for (const [name, value] of keys(ip, email)) counters.recordFailure(name, value);
    },
  };
}
