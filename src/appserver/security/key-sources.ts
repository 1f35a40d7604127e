/**
 * Where the app server's token keys come from (issue 21 item 2–3): this process's own
 * authorization server (fixed keys, no HTTP), PEMs of the `radar_is.yml`, and key endpoints
 * (`/oauth/token_key` of another ManagementPortal, `publicKeyEndpoints`).
 *
 * A remote source loads in the background at start, keeps its keys at most a day, and loads
 * again when asked after a token failed, at most once a minute whatever the load: concurrent
 * askers share one fetch, later ones within the minute get the keys as they are. A fetch that
 * fails (down, non-2xx, hangs past 5 s, garbage) keeps the keys it had and is logged with the URL:
 * WARN when the endpoint cannot be used, ERROR for a key that cannot be read.
 */
import type { FastifyBaseLogger } from 'fastify';
import { basicAuthorization, splitUserInfo, urlForLog } from '../../platform/url-credentials.js';
import { keysFromKeySet, UnreadableKey, type PublicKey } from './keys.js';

export interface KeySource {
  /** The URL, or a description for a source without one; for logs. */
  readonly name: string;
  /** The keys as they are now (none before a remote source's first load). */
  keys(): readonly PublicKey[];
  /** True when the keys are older than their maximum age (time to load again, in the background). */
  stale(): boolean;
  /**
   * Loads again unless it did less than a minute ago; resolves when done (at once when it may not
   * load). Never rejects. Resolves true when it loaded keys (changed or not).
   */
  refresh(): Promise<boolean>;
}

export const fixedKeySource = (name: string, keys: readonly PublicKey[]): KeySource => ({
  name,
  keys: () => keys,
  stale: () => false,
  refresh: async () => false,
});

export interface RemoteKeySourceOptions {
  url: string;
  log: FastifyBaseLogger;
  /** Epoch milliseconds. */
  now: () => number;
  timeoutMs?: number;
  maxAgeMs?: number;
  minRefreshIntervalMs?: number;
  /** Told after the keys changed (the verifier then forgets what it verified). */
  onChange?: () => void;
}

export const KEY_FETCH_TIMEOUT_MS = 5000;
export const KEY_MAX_AGE_MS = 24 * 3600 * 1000;
export const KEY_REFRESH_INTERVAL_MS = 60 * 1000;

/** The URL to fetch and its headers: user info in the URL (`https://user:pass@host/…`) goes as Basic auth. */
function requestOf(raw: string): { target: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { accept: 'application/json' };
  try {
    const { url, username, password } = splitUserInfo(raw);
    if (username !== undefined) headers.authorization = basicAuthorization(username, password);
    return { target: url, headers };
  } catch {
    // Not a URL: fetch says so, and the load is logged as failed.
    return { target: raw, headers };
  }
}

export function remoteKeySource(options: RemoteKeySourceOptions): KeySource {
  const { log, now } = options;
  const { target, headers } = requestOf(options.url);
  // For logs and the source's name: never the URL's user info.
  const url = urlForLog(options.url);
  const timeoutMs = options.timeoutMs ?? KEY_FETCH_TIMEOUT_MS;
  const maxAgeMs = options.maxAgeMs ?? KEY_MAX_AGE_MS;
  const interval = options.minRefreshIntervalMs ?? KEY_REFRESH_INTERVAL_MS;
  let keys: readonly PublicKey[] = [];
  let loadedAt = -Infinity;
  let lastAttempt = -Infinity;
  let inFlight: Promise<boolean> | undefined;

  async function fetchKeys(): Promise<readonly PublicKey[] | undefined> {
    let response: Response;
    try {
      response = await fetch(target, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    } catch (err) {
      log.warn({ url, reason: (err as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (err as Error).message }, 'token key endpoint unreachable');
      return undefined;
    }
    if (!response.ok) {
      await response.body?.cancel();
      log.warn({ url, status: response.status }, 'token key endpoint answered an error');
      return undefined;
    }
    let document: unknown;
    try {
      document = await response.json();
    } catch (err) {
      log.error({ url, reason: (err as Error).message }, 'token key endpoint answered no JSON; its keys are unreadable');
      return undefined;
    }
    try {
      return keysFromKeySet(document, (error, index) => log.error({ url, index, reason: error.message }, 'unreadable token key skipped'));
    } catch (err) {
      if (!(err instanceof UnreadableKey)) throw err;
      log.error({ url, reason: err.message }, 'token key endpoint answered no key set');
      return undefined;
    }
  }

  async function load(): Promise<boolean> {
    const fetched = await fetchKeys();
    if (!fetched) return false;
    const changed = !sameKeys(keys, fetched);
    keys = fetched;
    loadedAt = now();
    if (changed) options.onChange?.();
    return true;
  }

  return {
    name: url,
    keys: () => (now() - loadedAt > maxAgeMs ? [] : keys),
    stale: () => now() - loadedAt > maxAgeMs,
    refresh() {
      if (inFlight) return inFlight;
      if (now() - lastAttempt < interval) return Promise.resolve(false);
      lastAttempt = now();
      inFlight = load().catch((err: unknown) => {
        log.error({ url, err }, 'token key load failed');
        return false;
      }).finally(() => { inFlight = undefined; });
      return inFlight;
    },
  };
}

function sameKeys(a: readonly PublicKey[], b: readonly PublicKey[]): boolean {
  return a.length === b.length && a.every((k, i) => k.kid === b[i]!.kid && k.key.equals(b[i]!.key));
}
