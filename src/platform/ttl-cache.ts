/**
 * The one bounded cache of the service: `lru-cache` (least recently used first out past `max`)
 * whose entries expire on the service's clock. `now` is read on every lookup (`ttlResolution: 0`,
 * no 1 ms debounce timer), so tests that move the clock see entries expire.
 */
import { LRUCache } from 'lru-cache';

export interface TtlCacheOptions {
  max: number;
  /** Default time to live in milliseconds; absent: entries expire only by their own `ttl` on `set`. */
  ttl?: number;
  /** Epoch milliseconds. */
  now: () => number;
}

export function createTtlCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(options: TtlCacheOptions): LRUCache<K, V> {
  return new LRUCache<K, V>({
    max: options.max,
    ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
    perf: { now: options.now },
    ttlResolution: 0,
  });
}
