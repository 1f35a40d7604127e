/**
 * Limits reads of `/api/meta-token/*`, which anyone may call and whose names are short secrets:
 * at most `maxPerMinute` reads per client IP in a one-minute window, whatever their outcome, then
 * 429 with `Retry-After`. The IP is Fastify's `request.ip`, which honours `X-Forwarded-For` only
 * when TRUST_PROXY is set (as for the token endpoint's limiter).
 *
 * Deviation from the reference, which left this to upstream proxies (managementportal.md §5):
 * an 8-character name is guessable at a high enough request rate.
 *
 * Built on the token endpoint's fixed-window counters (oauth/limiter.ts), where every read counts
 * as an attempt. In memory per instance, bounded like those.
 */
import { RadarWebApplicationException } from '../errors.js';
import { createFailedAttemptLimiter, TooManyFailedAttempts } from '../oauth/limiter.js';

/** 429 body A; the route sets `Retry-After` from `retryAfterSeconds`. */
export class TooManyMetaTokenReads extends RadarWebApplicationException {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too many meta-token requests; try again later', 'meta-token', 'error.tooManyRequests');
  }
}

export interface MetaTokenReadLimiter {
  /** Counts one read from `ip`; throws `TooManyMetaTokenReads` once the IP is over the limit. */
  hit(ip: string): void;
}

export function createMetaTokenReadLimiter(deps: { maxPerMinute: number; now: () => number }): MetaTokenReadLimiter {
  const counters = createFailedAttemptLimiter({ maxPerMinute: deps.maxPerMinute, now: deps.now });
  return {
    hit(ip) {
      try {
        counters.check('meta-token', ip);
      } catch (err) {
        if (err instanceof TooManyFailedAttempts) throw new TooManyMetaTokenReads(err.retryAfterSeconds);
        throw err;
      }
      counters.recordFailure('meta-token', ip);
    },
  };
}
