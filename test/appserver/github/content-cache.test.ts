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

const ctx = appWithGithubStub();
const log = pino({ level: 'silent' });

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A cache on the test database reading the stub, on `clock`: fresh 1 h, retry after 1 min, 100 entries, 64 MiB unless `settings` says otherwise. */
function aCache(clock: { now: number }, settings: Partial<GithubCacheSettings> = {}) {
  const client = createGithubClient({ apiUrl: ctx.github.url, timeoutMs: 1000, maxContentLength: 1_000_000 });
  return createGithubContentCache({
    db: ctx.t.app.db.db, github: client, log, now: () => clock.now,
    settings: { durationMs: HOUR, retryMs: MINUTE, maxEntries: 100, maxBytes: 64 * 1024 * 1024, ...settings },
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
  const stored = (urls: string[]) => Promise.all(urls.map(async (url) => (await findGithubResponse(ctx.t.app.db.db, url)) !== undefined));

  it('keeps at most maxBytes of bodies, in the database and in memory: the least recently used copy goes from both', async () => {
    const clock = { now: Date.parse('2030-04-01T00:00:00Z') };
    // Four of the ~870-byte branch answers do not fit in 3,000 bytes; three do.
    const cache = aCache(clock, { maxBytes: 3000 });
    const [a, b, c, d] = Array.from({ length: 4 }, () => aBranch());
    for (const x of [a!, b!, c!]) {
      clock.now += MINUTE;
      expect((await cache.get(x.url)).body.length).toBeGreaterThan(750);
    }
    // A used again (a minute later, so the use is recorded): B is now the least recently used.
    clock.now += MINUTE;
    await cache.get(a!.url);
    clock.now += MINUTE;
    await cache.get(d!.url);
    expect(await stored([a!.url, b!.url, c!.url, d!.url])).toEqual([true, false, true, true]);
    const sizes = await Promise.all([a!, c!, d!].map(async (x) => (await findGithubResponse(ctx.t.app.db.db, x.url))!.size));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(3000);

    // B is gone from memory too: with GitHub failing it is an answer never fetched; the others are served.
    ctx.github.fault = () => ({ status: 500 });
    await expect(cache.get(b!.url)).rejects.toMatchObject({ failure: 'status', status: 500 });
    for (const x of [a!, c!, d!]) await cache.get(x.url);
    expect([a!, b!, c!, d!].map((x) => asksFor(x.branch))).toEqual([1, 2, 1, 1]);
    await cache.close();
  });

  it('records a use of a copy read from the database, so another instance\'s use keeps it', async () => {
    const clock = { now: Date.parse('2030-04-15T00:00:00Z') };
    const [a, b, c] = Array.from({ length: 3 }, () => aBranch());
    const first = aCache(clock, { maxBytes: 3000, maxEntries: 2 });
    for (const x of [a!, b!]) {
      clock.now += MINUTE;
      await first.get(x.url);
    }
    // Another instance reads A from the database; then the first stores C: B goes, not A.
    clock.now += MINUTE;
    const second = aCache(clock, { maxBytes: 3000, maxEntries: 2 });
    await second.get(a!.url);
    clock.now += MINUTE;
    await first.get(c!.url);
    expect(await stored([a!.url, b!.url, c!.url])).toEqual([true, false, true]);
    await Promise.all([first.close(), second.close()]);
  });

  it('keeps at most maxEntries copies, the most recently used', async () => {
    const clock = { now: Date.parse('2030-05-01T00:00:00Z') };
    const cache = aCache(clock, { maxEntries: 2 });
    const branches = Array.from({ length: 3 }, () => aBranch());
    for (const b of branches) {
      clock.now += MINUTE;
      await cache.get(b.url);
    }
    expect(await stored(branches.map((b) => b.url))).toEqual([false, true, true]);
    await cache.close();
  });

  it('does not keep a copy larger than maxBytes, and still answers with it', async () => {
    const clock = { now: Date.parse('2030-06-01T00:00:00Z') };
    const cache = aCache(clock, { maxBytes: 500 });
    const { branch, url } = aBranch();
    expect(shaOf(await cache.get(url))).toMatch(/^[0-9a-f]{40}$/);
    expect(await stored([url])).toEqual([false]);
    await cache.get(url);
    expect(asksFor(branch)).toBe(2);
    await cache.close();
  });
});
