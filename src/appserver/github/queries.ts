import { eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { githubResponses, type GithubResponseRow } from '../schema.js';

export const findGithubResponse = async (db: Executor, url: string): Promise<GithubResponseRow | undefined> =>
  (await db.select().from(githubResponses).where(eq(githubResponses.url, url)).limit(1))[0];

/** The copy of a URL, its use recorded at `at`. */
export const useGithubResponse = async (db: Executor, url: string, at: Date): Promise<GithubResponseRow | undefined> =>
  (await db.update(githubResponses).set({ lastUsedAt: at }).where(eq(githubResponses.url, url)).returning())[0];

/** Records a use of a URL's copy at `at`. */
export const touchGithubResponse = (db: Executor, url: string, at: Date) =>
  db.update(githubResponses).set({ lastUsedAt: at }).where(eq(githubResponses.url, url));

/** Stores the newest good copy of a URL's answer. */
export const saveGithubResponse = (db: Executor, row: GithubResponseRow) =>
  db.insert(githubResponses).values(row).onConflictDoUpdate({
    target: githubResponses.url,
    set: { body: row.body, contentType: row.contentType, fetchedAt: row.fetchedAt, size: row.size, lastUsedAt: row.lastUsedAt },
  });

/**
 * Deletes the least recently used copies beyond `maxEntries` copies or `maxBytes` bytes of
 * bodies (a copy larger than `maxBytes` is not kept at all); returns their URLs.
 */
export async function pruneGithubResponses(db: Executor, bounds: { maxEntries: number; maxBytes: number }): Promise<string[]> {
  const order = sql`order by ${githubResponses.lastUsedAt} desc, ${githubResponses.url}`;
  const ranked = db.select({
    url: githubResponses.url,
    rank: sql<number>`row_number() over (${order})`.as('rank'),
    total: sql<number>`sum(${githubResponses.size}) over (${order})`.as('total'),
  }).from(githubResponses).as('ranked');
  const beyond = db.select({ url: ranked.url }).from(ranked).where(or(gt(ranked.rank, bounds.maxEntries), gt(ranked.total, bounds.maxBytes)));
  const deleted = await db.delete(githubResponses).where(inArray(githubResponses.url, beyond)).returning({ url: githubResponses.url });
  return deleted.map((row) => row.url);
}
