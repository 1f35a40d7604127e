/**
 * OAuth clients as the token endpoint sees them: read through a short-lived cache, and client
 * secrets checked with bcrypt once per (client, secret), then against a cache of verified pairs.
 *
 * Several instances share one database, so a client cached here may be changed by another
 * instance: cached clients live at most `CLIENT_TTL_MS` (5 s). A verified secret is remembered
 * together with the bcrypt hash it matched; once the cached client carries another hash (the
 * secret was changed anywhere), the entry no longer counts. Changes made through this store are
 * seen at once. The verified-secret keys are SHA-256 digests keyed by a per-process random
 * prefix, so the cache never holds a presented secret. Both caches are bounded (`maxEntries` each,
 * least recently used first out).
 */
import { hash as digest, randomBytes } from 'node:crypto';
import { createTtlCache } from '../../../platform/ttl-cache.js';
import type { Database } from '../../../platform/database.js';
import { verifyPassword } from '../../security/passwords.js';
import { findClient } from './queries.js';
import type { OAuthClientRow } from '../../schema.js';

export type OAuthClient = OAuthClientRow;

export const CLIENT_TTL_MS = 5000;
export const MAX_ENTRIES = 10_000;

export interface ClientStore {
  /** The client, or undefined when unknown (cached ≤ 5 s, negative answers too). */
  get(clientId: string): Promise<OAuthClient | undefined>;
  /**
   * The client when `secret` is its secret, else undefined. A public client (no stored secret)
   * authenticates with an empty secret only.
   */
  authenticate(clientId: string, secret: string): Promise<OAuthClient | undefined>;
  /** Forgets what is cached about a client (call after changing it). */
  invalidate(clientId: string): void;
}

export interface ClientStoreDeps {
  db: Database;
  /** Epoch milliseconds. */
  now?: () => number;
  /** Clients, and verified secrets, remembered at most (each). */
  maxEntries?: number;
  /** The bcrypt check (tests count its calls). */
  verifyPassword?: typeof verifyPassword;
}

export function createClientStore(deps: ClientStoreDeps): ClientStore {
  const now = deps.now ?? Date.now;
  const max = deps.maxEntries ?? MAX_ENTRIES;
  const verify = deps.verifyPassword ?? verifyPassword;
  /**
   * Clients by id, unknown ids too (`client` undefined). Keeps the token endpoint's client lookup
   * off PostgreSQL: bench/README.md's "2026-11-25 20:11 / 20:14 client cache on and off" row
   * (1.6–1.8 × the requests per second).
   */
  const clients = createTtlCache<string, { client: OAuthClient | undefined }>({ max, ttl: CLIENT_TTL_MS, now });
  /** Loads under way: concurrent requests for one client share one query (not a cache). */
  const loading = new Map<string, Promise<OAuthClient | undefined>>();
  /**
   * keyed hash of (client, secret) → the bcrypt hash the secret matched. No TTL: an entry counts
   * only while the client still has that hash. Without it every grant pays bcrypt (~50 ms of CPU): 11–16
   * grants/s in bench/README.md's "Health under a bcrypt flood" table against 10,188 req/s in its
   * 2026-11-24 17:15 client_credentials row, which goes through this cache.
   */
  const verified = createTtlCache<string, string>({ max, now });
  /** bcrypt checks under way, shared by concurrent requests with one (client, secret). */
  const checking = new Map<string, Promise<boolean>>();
  /**
   * The key of the verified-secret cache: a per-process random prefix, so nobody outside can
   * compute an entry's key. One-shot `crypto.hash` instead of an HMAC object: 0.9 against 3–4.5 µs
   * per token request (issue 30); a cache key needs no MAC, only that different pairs never share
   * one and that it reveals no secret (length extension forges neither).
   */
  const keyPrefix = `${randomBytes(32).toString('base64')}\0`;

  async function get(clientId: string): Promise<OAuthClient | undefined> {
    const hit = clients.get(clientId);
    if (hit) return hit.client;
    let pending = loading.get(clientId);
    if (!pending) {
      pending = findClient(deps.db, clientId).then((client) => {
        clients.set(clientId, { client });
        return client;
      }).finally(() => loading.delete(clientId));
      loading.set(clientId, pending);
    }
    return pending;
  }

  async function authenticate(clientId: string, secret: string): Promise<OAuthClient | undefined> {
    const client = await get(clientId);
    if (!client) return undefined;
    const hash = client.clientSecret;
    if (!hash) return secret === '' ? client : undefined;
    if (secret === '') return undefined;
    // A stored client id holds no NUL (PostgreSQL text cannot), so the pair is unambiguous.
    const key = digest('sha256', `${keyPrefix}${clientId}\0${secret}`, 'base64');
    if (verified.get(key) === hash) return client;
    let pending = checking.get(key);
    if (!pending) {
      // One bcrypt per (client, secret) even when many requests arrive together.
      pending = verify(secret, hash).then((ok) => {
        if (ok) verified.set(key, hash);
        return ok;
      }).finally(() => checking.delete(key));
      checking.set(key, pending);
    }
    return (await pending) ? client : undefined;
  }

  return {
    get,
    authenticate,
    invalidate(clientId) {
      clients.delete(clientId);
    },
  };
}
