/**
 * `X-Total-Count` of big subject lists, remembered for a moment. Counting 100,000 participants
 * reads 100,000 index entries (about 10 ms of PostgreSQL time), which every page of the list
 * would pay; the rows of a page cost a fraction of a millisecond. So a count of at least
 * `minCached` is reused for `ttlMs` (per filter, per app instance), and dropped at once when this
 * instance changes a subject. Smaller counts are exact on every request. Concurrent requests for
 * the same filter share one count.
 */
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
  /** Filters remembered at most (a bound against many distinct searches). */
  maxEntries?: number;
}

export function createCountCache(options: CountCacheOptions): CountCache {
  const entries = new Map<string, { value: Promise<number>; expiresAt: number }>();
  const maxEntries = options.maxEntries ?? 256;
  return {
    count(key, compute) {
      const now = options.now();
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now) return hit.value;
      if (entries.size >= maxEntries) entries.clear();
      const entry = { value: compute(), expiresAt: now + options.ttlMs };
      entries.set(key, entry);
      const forget = () => { if (entries.get(key) === entry) entries.delete(key); };
      entry.value.then((n) => { if (n < options.minCached) forget(); }, forget);
      return entry.value;
    },
    clear() { entries.clear(); },
  };
}
