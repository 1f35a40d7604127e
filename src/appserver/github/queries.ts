import { desc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { githubResponses, type GithubResponseRow } from '../schema.js';

export const findGithubResponse = async (db: Executor, url: string): Promise<GithubResponseRow | undefined> =>
  (await db.select().from(githubResponses).where(eq(githubResponses.url, url)).limit(1))[0];

/** Stores the newest good copy of a URL's answer. */
export const saveGithubResponse = (db: Executor, row: GithubResponseRow) =>
  db.insert(githubResponses).values(row).onConflictDoUpdate({
    target: githubResponses.url,
    set: { body: row.body, contentType: row.contentType, fetchedAt: row.fetchedAt },
  });

/** Deletes all but the `keep` most recently fetched copies. */
export async function pruneGithubResponses(db: Executor, keep: number): Promise<void> {
  const older = db.select({ url: githubResponses.url }).from(githubResponses).orderBy(desc(githubResponses.fetchedAt)).offset(keep);
  await db.delete(githubResponses).where(inArray(githubResponses.url, older));
}
