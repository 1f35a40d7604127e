/** The GitHub client against the stub: where requests go, the token and its 401 retry, the limits. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPO, startGithubStub, type GithubStub } from '../../helpers/github-stub.js';
import { createGithubClient, requestUrl } from '../../../src/appserver/github/client.js';

let github: GithubStub;
beforeAll(async () => {
  github = await startGithubStub();
  github.setFiles({ 'p/protocol.json': '{"v":1}' });
});
afterAll(async () => { await github.close(); });
beforeEach(() => {
  github.fault = () => undefined;
  github.requests.length = 0;
});

const BRANCH = `https://api.github.com/repos/${DEFAULT_REPO}/branches/master`;

describe('GitHub client', () => {
  it('sends https://api.github.com URLs to GITHUB_API_URL and nothing else anywhere', () => {
    expect(requestUrl('https://api.github.com/repos/a/b/git/trees/1?recursive=true', 'http://stub:1/api/v3')).toBe('http://stub:1/api/v3/repos/a/b/git/trees/1?recursive=true');
    expect(requestUrl('https://api.github.com:443/repos/a/b', 'http://stub:1')).toBe('http://stub:1/repos/a/b');
    expect(requestUrl('http://stub:1/repos/a/b', 'http://stub:1')).toBe('http://stub:1/repos/a/b');
    for (const url of ['https://evil.example/repos/a/b', 'http://api.github.com/repos/a/b', 'https://x:y@api.github.com/repos/a/b', 'http://stub:1.evil/repos']) {
      expect(() => requestUrl(url, 'http://stub:1'), url).toThrow(/GitHub API URL|not a URL/);
    }
  });

  it('sends the token as a bearer token with GitHub\'s media type', async () => {
    const client = createGithubClient({ apiUrl: github.url, token: 'secret-token', timeoutMs: 2000, maxContentLength: 100_000 });
    const json = await client.getJson(BRANCH) as { name: string };
    expect(json.name).toBe('master');
    expect(github.requests).toEqual([{ path: `/repos/${DEFAULT_REPO}/branches/master`, authorization: 'Bearer secret-token' }]);
  });

  it('retries a 401 once without the token', async () => {
    const client = createGithubClient({ apiUrl: github.url, token: 'revoked', timeoutMs: 2000, maxContentLength: 100_000 });
    github.fault = () => (github.requests.length === 1 ? { status: 401 } : undefined);
    expect(((await client.getJson(BRANCH)) as { name: string }).name).toBe('master');
    expect(github.requests.map((r) => r.authorization)).toEqual(['Bearer revoked', undefined]);

    github.requests.length = 0;
    github.fault = () => ({ status: 401 });
    await expect(client.get(BRANCH)).rejects.toMatchObject({ failure: 'status', status: 401 });
    expect(github.requests).toHaveLength(2);
  });

  it('sends no Authorization header without a token', async () => {
    const client = createGithubClient({ apiUrl: github.url, timeoutMs: 2000, maxContentLength: 100_000 });
    await client.get(BRANCH);
    expect(github.requests[0]!.authorization).toBeUndefined();
  });

  it('fails on a body over the limit, announced or streamed, and on the timeout', async () => {
    const client = createGithubClient({ apiUrl: github.url, timeoutMs: 300, maxContentLength: 4096 });
    github.oversizeBytes = 5000;
    github.fault = () => 'oversize';
    await expect(client.get(BRANCH)).rejects.toMatchObject({ failure: 'oversize' });
    github.fault = () => 'oversize-stream';
    github.oversizeBytes = 1_000_000;
    await expect(client.get(BRANCH)).rejects.toMatchObject({ failure: 'oversize' });
    github.fault = () => 'hang';
    await expect(client.get(BRANCH)).rejects.toMatchObject({ failure: 'timeout' });
    github.fault = () => 'reset';
    await expect(client.get(BRANCH)).rejects.toMatchObject({ failure: 'network' });
    // Exactly the limit is fine.
    github.fault = () => undefined;
    const exact = createGithubClient({ apiUrl: github.url, timeoutMs: 2000, maxContentLength: (await client.get(BRANCH)).body.length });
    expect((await exact.get(BRANCH)).body.length).toBeGreaterThan(0);
  });
});
