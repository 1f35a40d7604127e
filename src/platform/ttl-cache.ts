/**
 * The one bounded cache of the service: `lru-cache` (least recently used first out past `max`,
 * or past `maxSize` when sizes are given) whose entries expire on the service's clock. `now` is
 * read on every lookup (`ttlResolution: 0`, no 1 ms debounce timer), so tests that move the clock
 * see entries expire.
 */
import { LRUCache } from 'lru-cache';

export interface TtlCacheOptions<V> {
  max: number;
  /** Default time to live in milliseconds; absent: entries expire only by their own `ttl` on `set`. */
  ttl?: number;
  /** Bound on the sum of `sizeOf` over the entries (an entry larger than it is not kept). */
  maxSize?: number;
  sizeOf?: (value: V) => number;
  /** Epoch milliseconds. */
  now: () => number;
}

export function createTtlCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(options: TtlCacheOptions<V>): LRUCache<K, V> {
  return new LRUCache<K, V>({
    max: options.max,
    ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
    ...(options.maxSize !== undefined && options.sizeOf ? { maxSize: options.maxSize, sizeCalculation: (value: V) => Math.max(1, options.sizeOf!(value)) } : {}),
    perf: { now: options.now },
    ttlResolution: 0,
  });
}
