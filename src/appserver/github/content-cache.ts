/**
 * The copies behind `GET /github/content` (issue 20 item 3): a copy is fresh for the cache
 * duration; a request for a stale copy gets it at once while one refresh runs in the background,
 * so GitHub's latency and outages never reach a client that has a copy. Copies live in the
 * database (a restarted instance serves them with GitHub down) and, up to `SECURITY_GITHUB_CACHE_SIZE`
 * entries and 64 MiB of bodies, in memory.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/database.js';
import { createTtlCache } from '../../platform/ttl-cache.js';
import type { GithubClient } from './client.js';
import { findGithubResponse, pruneGithubResponses, saveGithubResponse } from './queries.js';
import { createRefreshGate } from './refresh-gate.js';

/** Bodies kept in memory at most (the database keeps every copy). */
export const MEMORY_BYTES = 64 * 1024 * 1024;

export interface CachedContent {
  body: Buffer;
  contentType: string;
  /** Epoch milliseconds of the GitHub answer. */
  fetchedAt: number;
}

export interface GithubCacheSettings {
  durationMs: number;
  retryMs: number;
  /** Copies kept in memory, and (see `PRUNE_EVERY`) in the database. */
  maxEntries: number;
  /** Bytes of bodies kept in memory (default `MEMORY_BYTES`). */
  memoryBytes?: number;
  /** Stored answers between two prunings of the database (default `PRUNE_EVERY`). */
  pruneEvery?: number;
}

/**
 * Every this many stored answers, the database keeps only the `maxEntries` most recently fetched
 * copies, so requests for ever new URLs (any query string of an allowed repository) cannot grow
 * the table without bound.
 */
export const PRUNE_EVERY = 500;

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
}): GithubContentCache {
  const { db, github, settings, log, now = Date.now } = deps;
  const memory = createTtlCache<string, CachedContent>({ max: settings.maxEntries, maxSize: settings.memoryBytes ?? MEMORY_BYTES, sizeOf: (c) => c.body.length, now });
  const gate = createRefreshGate<string>({ retryMs: settings.retryMs, max: settings.maxEntries, now });
  const closing = new AbortController();
  let stores = 0;

  async function fetchAndStore(url: string): Promise<CachedContent> {
    const response = await github.get(url, closing.signal);
    const content: CachedContent = { ...response, fetchedAt: now() };
    try {
      await saveGithubResponse(db, { url, body: response.body.toString('utf8'), contentType: response.contentType, fetchedAt: new Date(content.fetchedAt) });
      if (++stores % (settings.pruneEvery ?? PRUNE_EVERY) === 0) await pruneGithubResponses(db, settings.maxEntries);
    } catch (err) {
      // The answer is still good for this request; the next refresh stores it again.
      log.warn({ url, reason: (err as Error).message }, 'github copy not stored');
    }
    memory.set(url, content);
    return content;
  }

  function refreshInBackground(url: string) {
    if (gate.running(url) || gate.recentFailure(url) !== undefined || closing.signal.aborted) return;
    gate.run(url, () => fetchAndStore(url)).catch((err: unknown) => {
      log.warn({ url, reason: (err as Error).message }, 'github refresh failed, serving the stored copy');
    });
  }

  async function stored(url: string): Promise<CachedContent | undefined> {
    const row = await findGithubResponse(db, url);
    if (!row) return undefined;
    const content: CachedContent = { body: Buffer.from(row.body, 'utf8'), contentType: row.contentType, fetchedAt: row.fetchedAt.getTime() };
    memory.set(url, content);
    return content;
  }

  return {
    async get(url) {
      const copy = memory.get(url) ?? await stored(url);
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
