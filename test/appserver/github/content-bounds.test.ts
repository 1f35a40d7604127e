/** `GET /github/content` with `SECURITY_GITHUB_CACHE_MAX_BYTES`: the copies kept, in the database and in memory, fit in it (issue 28 item 7). */
import { describe, expect, it } from 'vitest';
import { appWithGithubStub } from '../../helpers/github-app.js';
import { DEFAULT_REPO } from '../../helpers/github-stub.js';
import { call, errorBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { findGithubResponse } from '../../../src/appserver/github/queries.js';

// Three of the stub's ~870-byte branch answers fit in 3,000 bytes, four do not.
const ctx = appWithGithubStub({ SECURITY_GITHUB_CACHE_MAX_BYTES: '3000' });

const content = (url: string) => call(ctx.t.app, 'GET', `/github/content?url=${encodeURIComponent(url)}`);

describe('GET /github/content within SECURITY_GITHUB_CACHE_MAX_BYTES', () => {
  it('drops the least recently used copy from the database and memory: with GitHub failing it answers 502 like one never fetched', async () => {
    const branches = Array.from({ length: 4 }, () => unique('br'));
    const urls = branches.map((branch) => `https://api.github.com/repos/${DEFAULT_REPO}/branches/${branch}`);
    for (const branch of branches) ctx.github.setFiles({ 'p/protocol.json': '{}' }, { branch });
    const first = [];
    for (const url of urls) first.push(expectStatus(await content(url), 200));

    const rows = await Promise.all(urls.map((url) => findGithubResponse(ctx.t.app.db.db, url)));
    expect(rows.map((row) => row !== undefined)).toEqual([false, true, true, true]);
    expect(rows.reduce((sum, row) => sum + (row?.size ?? 0), 0)).toBeLessThanOrEqual(3000);

    ctx.github.fault = () => ({ status: 500 });
    expect(expectStatus(await content(urls[0]!), 502)).toEqual(errorBody(502, 'Error getting content from Github.', '/github/content'));
    for (const [i, url] of urls.entries()) {
      if (i === 0) continue;
      expect(expectStatus(await content(url), 200), url).toEqual(first[i]);
    }
    // The dropped copy was asked for again; the kept ones were not.
    expect(branches.map((branch) => ctx.github.requests.filter((r) => r.path.endsWith(`/branches/${branch}`)).length)).toEqual([2, 1, 1, 1]);
  });
});
