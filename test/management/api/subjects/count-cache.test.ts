/** The subject lists' count cache (api/subjects/count-cache.ts), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { createCountCache } from '../../../../src/management/api/subjects/count-cache.js';

/** A cache with ttl 2,000 ms from 5,000 on, and a counter of how often each key was counted. */
function countsAt(maxEntries?: number) {
  const clock = { ms: 1_000_000 };
  const cache = createCountCache({ ttlMs: 2000, minCached: 5000, now: () => clock.ms, maxEntries });
  const computed = new Map<string, number>();
  const count = (key: string, n: number | Error) => cache.count(key, async () => {
    computed.set(key, (computed.get(key) ?? 0) + 1);
    if (n instanceof Error) throw n;
    return n;
  });
  return { cache, clock, computed, count };
}

describe('subject count cache', () => {
  it('reuses a big count for ttlMs, then counts again', async () => {
    const { clock, computed, count } = countsAt();
    expect(await count('all', 100_000)).toBe(100_000);
    clock.ms += 2000;
    expect(await count('all', 1)).toBe(100_000);
    expect(computed.get('all')).toBe(1);
    clock.ms += 1;
    expect(await count('all', 100_001)).toBe(100_001);
    expect(computed.get('all')).toBe(2);
  });

  it('keeps neither small counts nor failures; concurrent requests share one count', async () => {
    const { computed, count } = countsAt();
    expect(await count('small', 4999)).toBe(4999);
    expect(await count('small', 4998)).toBe(4998);
    await expect(count('broken', new Error('database down'))).rejects.toThrow('database down');
    expect(await count('broken', 6000)).toBe(6000);
    expect(await Promise.all([count('shared', 7000), count('shared', 1), count('shared', 2)])).toEqual([7000, 7000, 7000]);
    expect(Object.fromEntries(computed)).toEqual({ small: 2, broken: 2, shared: 1 });
  });

  it('keeps at most maxEntries filters, dropping the least recently used; clear forgets all', async () => {
    const { cache, computed, count } = countsAt(2);
    await count('a', 9000);
    await count('b', 9000);
    await count('a', 9000); // remembered; now b is the least recently used
    await count('c', 9000); // pushes b out
    expect(await count('a', 1)).toBe(9000);
    expect(await count('b', 9001)).toBe(9001);
    expect(Object.fromEntries(computed)).toEqual({ a: 1, b: 2, c: 1 });
    cache.clear();
    expect(await count('a', 9002)).toBe(9002);
  });
});
