/**
 * Refreshes of GitHub copies (appserver.md §6.2, issue 20 item 3): one at a time per key (later
 * callers join the running one), and none sooner than the retry duration after a failure, which
 * is remembered and rethrown meanwhile, so an unreachable GitHub is asked once a minute, not once
 * a request.
 */
import { createTtlCache } from '../../platform/ttl-cache.js';

export interface RefreshGate<K> {
  /** The error of the last attempt for `key` if it failed less than the retry duration ago. */
  recentFailure(key: K): unknown;
  running(key: K): boolean;
  /** Runs `task` for `key`, or joins the run in progress; a failure is remembered. */
  run<T>(key: K, task: () => Promise<T>): Promise<T>;
  /** Resolves when no refresh is running. */
  idle(): Promise<void>;
}

export function createRefreshGate<K extends NonNullable<unknown>>(options: { retryMs: number; max: number; now: () => number }): RefreshGate<K> {
  const inFlight = new Map<K, Promise<unknown>>();
  const failures = createTtlCache<K, { error: unknown; at: number }>({ max: options.max, now: options.now });

  return {
    recentFailure(key) {
      const failure = failures.get(key);
      if (failure && options.now() - failure.at < options.retryMs) return failure.error;
      return undefined;
    },
    running: (key) => inFlight.has(key),
    run<T>(key: K, task: () => Promise<T>): Promise<T> {
      const current = inFlight.get(key);
      if (current) return current as Promise<T>;
      const run = task().then(
        (value) => { failures.delete(key); return value; },
        (error: unknown) => { if (options.retryMs > 0) failures.set(key, { error, at: options.now() }); throw error; },
      ).finally(() => inFlight.delete(key));
      inFlight.set(key, run);
      return run;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
  };
}
