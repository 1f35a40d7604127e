/**
 * `X-Total-Count` of big subject lists, remembered for a moment. Counting 100,000 participants
 * reads 100,000 index entries (about 10 ms of PostgreSQL time), which every page of the list
 * would pay; the rows of a page cost a fraction of a millisecond. So a count of at least
 * `minCached` is reused for `ttlMs` (per filter, per app instance), and dropped at once when this
 * instance changes a subject. Smaller counts are exact on every request. Concurrent requests for
 * the same filter share one count. Justified by bench/README.md's "2026-11-25 20:13 subject count
 * cache on and off" row (485 against 129 req/s on a 100,000-subject list).
 */
import { createTtlCache } from '../../../platform/ttl-cache.js';

export interface CountCache {
  count(key: string, compute: () => Promise<number>): Promise<number>;
  /** Forgets every count (after a subject was created, moved, discontinued or deleted here). */
  clear(): void;
}

export interface CountCacheOptions {
  ttlMs: number;
  minCached: number;
  /** Epoch milliseconds. */
  now: () => number;
  /** Filters remembered at most, least recently used first out (a bound against many distinct searches). */
  maxEntries?: number;
}

export function createCountCache(options: CountCacheOptions): CountCache {
  // The count itself is kept, as a promise: a request arriving while it is computed shares it.
  const entries = createTtlCache<string, Promise<number>>({ max: options.maxEntries ?? 256, ttl: options.ttlMs, now: options.now });
  return {
    count(key, compute) {
      const hit = entries.get(key);
      if (hit) return hit;
      const value = compute();
      entries.set(key, value);
      // Small counts and failures are not kept (unless a newer count replaced this one).
      const forget = () => { if (entries.peek(key) === value) entries.delete(key); };
      value.then((n) => { if (n < options.minCached) forget(); }, forget);
      return value;
    },
    clear() { entries.clear(); },
  };
}
