/**
 * The copies behind `GET /github/content` (issue 20 item 3): a copy is fresh for the cache
 * duration; a request for a stale copy gets it at once while one refresh runs in the background,
 * so GitHub's latency and outages never reach a client that has a copy. Copies live in the
 * database (a restarted instance serves them with GitHub down) and in memory, both bounded by
 * `SECURITY_GITHUB_CACHE_SIZE` copies and `SECURITY_GITHUB_CACHE_MAX_BYTES` bytes of bodies,
 * least recently used out first (issue 28 item 7): requests for ever new URLs cannot grow either
 * without bound. A copy the database drops is dropped from this instance's memory too, so the next
 * request asks GitHub, and fails like one never fetched while GitHub does.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/database.js';
import { createTtlCache } from '../../platform/ttl-cache.js';
import type { GetOptions, GithubClient } from './client.js';
import { pruneGithubResponses, saveGithubResponse, touchGithubResponse, useGithubResponse } from './queries.js';
import { createRefreshGate } from './refresh-gate.js';

export interface CachedContent {
  body: Buffer;
  contentType: string;
  /** Epoch milliseconds of the GitHub answer. */
  fetchedAt: number;
}

export interface GithubCacheSettings {
  durationMs: number;
  retryMs: number;
  /** Copies kept, in memory and in the database. */
  maxEntries: number;
  /** Bytes of bodies kept, in memory and in the database. */
  maxBytes: number;
  /** How often at most a copy served from memory records its use in the database (default `USE_RECORDED_EVERY_MS`). */
  useRecordedEveryMs?: number;
}

/**
 * A copy served from memory records its use in the database at most once a minute: the
 * database's least-recently-used order is exact to the minute without a write per request.
 */
export const USE_RECORDED_EVERY_MS = 60_000;

interface MemoryEntry {
  copy: CachedContent;
  /** When this instance last recorded a use of the copy in the database. */
  useRecordedAt: number;
}

export interface GithubContentCache {
  /**
   * The copy of `url` (a normalised `https://api.github.com/…` URL), fetched first when there is
   * none; throws the `GithubError` of a failed fetch (remembered for the retry duration).
   */
  get(url: string): Promise<CachedContent>;
  /** Stops running refreshes and waits for them. */
  close(): Promise<void>;
}

export function createGithubContentCache(deps: {
  db: Database; github: GithubClient; settings: GithubCacheSettings; log: FastifyBaseLogger; now?: () => number;
  /** Passed to every GitHub request (the proxy's redirect rule). */
  fetchOptions?: GetOptions;
}): GithubContentCache {
  const { db, github, settings, log, now = Date.now, fetchOptions } = deps;
  const useRecordedEveryMs = settings.useRecordedEveryMs ?? USE_RECORDED_EVERY_MS;
  const memory = createTtlCache<string, MemoryEntry>({ max: settings.maxEntries, maxSize: settings.maxBytes, sizeOf: (e) => e.copy.body.length, now });
  const gate = createRefreshGate<string>({ retryMs: settings.retryMs, max: settings.maxEntries, now });
  const closing = new AbortController();

  async function fetchAndStore(url: string): Promise<CachedContent> {
    const response = await github.get(url, closing.signal, fetchOptions);
    const content: CachedContent = { ...response, fetchedAt: now() };
    memory.set(url, { copy: content, useRecordedAt: content.fetchedAt });
    try {
      const body = response.body.toString('utf8');
      const at = new Date(content.fetchedAt);
      await saveGithubResponse(db, { url, body, contentType: response.contentType, fetchedAt: at, size: Buffer.byteLength(body, 'utf8'), lastUsedAt: at });
      for (const evicted of await pruneGithubResponses(db, settings)) memory.delete(evicted);
    } catch (err) {
      // The answer is still good for this request; the next refresh stores it again.
      log.warn({ url, reason: (err as Error).message }, 'github copy not stored');
    }
    return content;
  }

  /** Records in the database that the copy in memory was used, at most every `useRecordedEveryMs`. */
  async function recordUse(url: string, entry: MemoryEntry) {
    if (now() - entry.useRecordedAt < useRecordedEveryMs) return;
    entry.useRecordedAt = now();
    try {
      await touchGithubResponse(db, url, new Date(entry.useRecordedAt));
    } catch (err) {
      log.warn({ url, reason: (err as Error).message }, 'github copy use not recorded');
    }
  }

  function refreshInBackground(url: string) {
    if (gate.running(url) || gate.recentFailure(url) !== undefined || closing.signal.aborted) return;
    gate.run(url, () => fetchAndStore(url)).catch((err: unknown) => {
      log.warn({ url, reason: (err as Error).message }, 'github refresh failed, serving the stored copy');
    });
  }

  async function stored(url: string): Promise<CachedContent | undefined> {
    const at = now();
    const row = await useGithubResponse(db, url, new Date(at));
    if (!row) return undefined;
    const content: CachedContent = { body: Buffer.from(row.body, 'utf8'), contentType: row.contentType, fetchedAt: row.fetchedAt.getTime() };
    memory.set(url, { copy: content, useRecordedAt: at });
    return content;
  }

  async function fromMemory(url: string): Promise<CachedContent | undefined> {
    const entry = memory.get(url);
    if (!entry) return undefined;
    await recordUse(url, entry);
    return entry.copy;
  }

  return {
    async get(url) {
      const copy = await fromMemory(url) ?? await stored(url);
      if (copy) {
        if (now() - copy.fetchedAt >= settings.durationMs) refreshInBackground(url);
        return copy;
      }
      const failure = gate.recentFailure(url);
      if (failure !== undefined) throw failure;
      return gate.run(url, () => fetchAndStore(url));
    },
    async close() {
      closing.abort();
      await gate.idle();
    },
  };
}
