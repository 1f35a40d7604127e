/** The copy cache behind `/github/content`: freshness, one refresh per key, the retry pause, copies in the database. */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { appWithGithubStub } from '../../helpers/github-app.js';
import { until } from '../../helpers/eventually.js';
import { DEFAULT_REPO } from '../../helpers/github-stub.js';
import { unique } from '../../fixtures/appserver.js';
import { createGithubClient, GithubError } from '../../../src/appserver/github/client.js';
import { createGithubContentCache, type GithubCacheSettings } from '../../../src/appserver/github/content-cache.js';
import { findGithubResponse } from '../../../src/appserver/github/queries.js';
import { githubResponses } from '../../../src/appserver/schema.js';
import { inArray } from 'drizzle-orm';

const ctx = appWithGithubStub();
const log = pino({ level: 'silent' });

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A cache on the test database reading the stub, on `clock`: fresh 1 h, retry after 1 min, 100 entries unless `settings` says otherwise. */
function aCache(clock: { now: number }, settings: Partial<GithubCacheSettings> = {}) {
  const client = createGithubClient({ apiUrl: ctx.github.url, timeoutMs: 1000, maxContentLength: 1_000_000 });
  return createGithubContentCache({
    db: ctx.t.app.db.db, github: client, log, now: () => clock.now,
    settings: { durationMs: HOUR, retryMs: MINUTE, maxEntries: 100, ...settings },
  });
}

/** A branch of its own and its API URL. */
function aBranch(version = 1) {
  const branch = unique('br');
  ctx.github.setFiles({ 'p/protocol.json': `{"v":${version}}` }, { branch });
  return { branch, url: `https://api.github.com/repos/${DEFAULT_REPO}/branches/${branch}` };
}
const asksFor = (branch: string) => ctx.github.requests.filter((r) => r.path.endsWith(`/branches/${branch}`)).length;
const shaOf = (c: { body: Buffer }) => (JSON.parse(c.body.toString('utf8')) as { commit: { sha: string } }).commit.sha;

describe('GitHub content cache', () => {
  it('answers from memory while fresh, then serves the copy and refreshes it once in the background', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const cache = aCache(clock);
    const { branch, url } = aBranch();
    const first = await cache.get(url);
    clock.now += HOUR - 1;
    expect(shaOf(await cache.get(url))).toBe(shaOf(first));
    expect(asksFor(branch)).toBe(1);

    ctx.github.setFiles({ 'p/protocol.json': '{"v":2}' }, { branch });
    clock.now += 1;
    ctx.github.delayMs = 50;
    const stale = await Promise.all([cache.get(url), cache.get(url), cache.get(url)]);
    expect(stale.map(shaOf)).toEqual([shaOf(first), shaOf(first), shaOf(first)]);
    await until(async () => expect(shaOf(await cache.get(url))).not.toBe(shaOf(first)));
    expect(asksFor(branch)).toBe(2);
    await cache.close();
  });

  it('joins concurrent first requests into one GitHub request', async () => {
    const cache = aCache({ now: Date.now() });
    const { branch, url } = aBranch();
    ctx.github.delayMs = 50;
    const answers = await Promise.all(Array.from({ length: 5 }, () => cache.get(url)));
    expect(new Set(answers.map(shaOf)).size).toBe(1);
    expect(asksFor(branch)).toBe(1);
    await cache.close();
  });

  it('after a failure asks GitHub again only once the retry duration has passed', async () => {
    const clock = { now: Date.parse('2030-02-01T00:00:00Z') };
    const cache = aCache(clock);
    const { branch, url } = aBranch();
    ctx.github.fault = () => ({ status: 503 });
    await expect(cache.get(url)).rejects.toBeInstanceOf(GithubError);
    clock.now += MINUTE - 1;
    await expect(cache.get(url)).rejects.toMatchObject({ failure: 'status', status: 503 });
    expect(asksFor(branch)).toBe(1);
    ctx.github.fault = () => undefined;
    clock.now += 1;
    await cache.get(url);
    expect(asksFor(branch)).toBe(2);

    // A failed refresh of a stale copy: the copy is served and GitHub is left alone for the retry duration.
    clock.now += HOUR;
    ctx.github.fault = () => 'reset';
    await cache.get(url);
    await until(() => expect(asksFor(branch)).toBe(3));
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock.now += MINUTE - 1;
    await cache.get(url);
    await cache.get(url);
    expect(asksFor(branch)).toBe(3);
    await cache.close();
  });

  it('keeps copies in the database: a new cache (a restarted instance) serves them with GitHub down', async () => {
    const clock = { now: Date.parse('2030-03-01T00:00:00Z') };
    const { url } = aBranch();
    const before = aCache(clock);
    const original = await before.get(url);
    await before.close();
    const row = await findGithubResponse(ctx.t.app.db.db, url);
    expect(row).toMatchObject({ url, body: original.body.toString('utf8'), contentType: 'application/json; charset=utf-8' });

    ctx.github.fault = () => 'reset';
    clock.now += 24 * HOUR;
    const after = aCache(clock);
    const served = await after.get(url);
    expect(served.body.equals(original.body)).toBe(true);
    await after.close();
  });
});

describe('GitHub content cache bounds', () => {
  it('keeps at most the memory budget of bodies in memory; the database serves the rest without GitHub', async () => {
    const clock = { now: Date.parse('2030-04-01T00:00:00Z') };
    const cache = aCache(clock, { memoryBytes: 3000 });
    const branches = Array.from({ length: 6 }, () => aBranch());
    const first = [];
    for (const b of branches) first.push(await cache.get(b.url));
    expect(first.reduce((sum, c) => sum + c.body.length, 0)).toBeGreaterThan(3000);
    // Mark the stored copies: a copy read back from the database shows the mark.
    await ctx.t.app.db.db.update(githubResponses).set({ body: '{"commit":{"sha":"from-the-database"}}' }).where(inArray(githubResponses.url, branches.map((b) => b.url)));
    ctx.github.fault = () => ({ status: 500 });
    const again = [];
    for (const b of branches) again.push(shaOf(await cache.get(b.url)));
    // The three oldest bodies left memory (3,000 bytes hold three of the ~870-byte answers); the newest are still there.
    expect(first.every((c) => c.body.length > 750 && c.body.length <= 1000)).toBe(true);
    expect(again.slice(0, 3)).toEqual(['from-the-database', 'from-the-database', 'from-the-database']);
    expect(again.slice(3)).toEqual(first.slice(3).map(shaOf));
    // Fresh copies: GitHub was not asked again, whether the copy came from memory or the database.
    expect(branches.map((b) => asksFor(b.branch))).toEqual([1, 1, 1, 1, 1, 1]);
    await cache.close();
  });

  it('prunes the database to the most recently fetched maxEntries copies', async () => {
    const clock = { now: Date.parse('2030-05-01T00:00:00Z') };
    const cache = aCache(clock, { maxEntries: 2, pruneEvery: 3 });
    const branches = Array.from({ length: 3 }, () => aBranch());
    for (const b of branches) {
      clock.now += 1000;
      await cache.get(b.url);
    }
    const stored = await Promise.all(branches.map((b) => findGithubResponse(ctx.t.app.db.db, b.url)));
    expect(stored.map((row) => row !== undefined)).toEqual([false, true, true]);
    await cache.close();
  });
});
