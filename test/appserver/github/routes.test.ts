/** G1 `GET /github/content` against the GitHub stub, as the questionnaire app walks the protocol repository. */
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../helpers/eventually.js';
import { appWithGithubStub } from '../../helpers/github-app.js';
import { DEFAULT_REPO, type GithubFault } from '../../helpers/github-stub.js';
import { call, errorBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { aProtocolText } from '../../fixtures/protocols.js';

// Duration 0: every copy is stale, so each request starts a refresh; retry 0: failures are not remembered.
const ctx = appWithGithubStub({
  SECURITY_GITHUB_CACHE_DURATION: '0', SECURITY_GITHUB_CACHE_RETRYDURATION: '0',
  SECURITY_GITHUB_CLIENT_TIMEOUT: '1', SECURITY_GITHUB_CLIENT_MAXCONTENTLENGTH: '65536',
});
beforeAll(() => { ctx.github.oversizeBytes = 100_000; });

const API = 'https://api.github.com';
const content = (url: string) => call(ctx.t.app, 'GET', `/github/content?url=${encodeURIComponent(url)}`);
const stubRequests = () => ctx.github.requests.length;

describe('GET /github/content', () => {
  it('walks the repository as aRMT does: branch → commit.commit.tree.url → tree[].url → blob content', async () => {
    const project = unique('proj');
    const text = aProtocolText(project);
    ctx.github.setFiles({ [`${project}/protocol.json`]: text }, { branch: 'walk' });
    const branch = await content(`${API}/repos/${DEFAULT_REPO}/branches/walk`);
    expect(branch.statusCode).toBe(200);
    expect(branch.headers['content-type']).toBe('application/json; charset=utf-8');
    const root = expectStatus(await content(branch.json().commit.commit.tree.url), 200);
    const dir = root.tree.find((e: { path: string }) => e.path === project);
    const files = expectStatus(await content(dir.url), 200);
    const blob = expectStatus(await content(files.tree.find((e: { path: string }) => e.path === 'protocol.json').url), 200);
    expect(Buffer.from(blob.content, 'base64').toString('utf8')).toBe(text);
    // GitHub's body as GitHub sent it.
    expect(blob.encoding).toBe('base64');
    expect(blob.content).toContain('\n');
  });

  it('serves the contents API with its query', async () => {
    ctx.github.setFiles({ 'a/protocol.json': '{"a":1}' }, { branch: 'contents' });
    const res = expectStatus(await content(`${API}:443/repos/${DEFAULT_REPO}/contents/a/protocol.json?ref=contents`), 200);
    expect(Buffer.from(res.content, 'base64').toString('utf8')).toBe('{"a":1}');
    expect(ctx.github.requests.at(-1)!.path).toBe(`/repos/${DEFAULT_REPO}/contents/a/protocol.json?ref=contents`);
  });

  it('refuses other hosts, schemes, ports, user info, paths and owners with 400 without asking GitHub', async () => {
    const before = stubRequests();
    const refused = [
      undefined,
      '',
      'not a url',
      `http://api.github.com/repos/${DEFAULT_REPO}/branches/master`,
      `https://api.github.com:8443/repos/${DEFAULT_REPO}/branches/master`,
      `https://evil.example/repos/${DEFAULT_REPO}/branches/master`,
      `https://api.github.com.evil.example/repos/${DEFAULT_REPO}/branches/master`,
      `https://user:pass@api.github.com/repos/${DEFAULT_REPO}/branches/master`,
      `https://api.github.com/users/RADAR-base`,
      `https://api.github.com/repos/RADAR-base`,
      `https://api.github.com/repos/someone-else/repo/branches/master`,
      `https://api.github.com/repos/RADAR-base/x/../../someone-else/repo/contents/a`,
      `https://api.github.com/repos/RADAR-base/x/%2e%2e/%2e%2e/someone-else/repo/contents/a`,
      `https://api.github.com/repos/RADAR-base/x\\..\\..\\someone-else\\repo\\contents`,
      `https://api.github.com/repos/RADAR%2Dbase/x/contents/a`,
    ];
    for (const url of refused) {
      const res = url === undefined ? await call(ctx.t.app, 'GET', '/github/content') : await content(url);
      expect(expectStatus(res, 400), String(url)).toEqual(errorBody(400, 'Invalid Github url.', '/github/content'));
    }
    expect(stubRequests()).toBe(before);
  });

  it('accepts the allowed owner in any case', async () => {
    ctx.github.setFiles({ 'b/protocol.json': '{}' }, { repo: 'radar-BASE/other', branch: 'main' });
    expect((await content(`${API}/repos/radar-BASE/other/branches/main`)).statusCode).toBe(200);
  });

  const faults: [string, GithubFault][] = [
    ['a 500', { status: 500 }],
    ['a 404', { status: 404 }],
    ['a connection reset', 'reset'],
    ['no answer within the timeout', 'hang'],
    ['a Content-Length over the limit', 'oversize'],
    ['a streamed body over the limit', 'oversize-stream'],
  ];

  for (const [what, fault] of faults) {
    it(`${what} without a copy → 502 "Error getting content from Github."; with a copy → the copy`, async () => {
      const branch = unique('br');
      const url = `${API}/repos/${DEFAULT_REPO}/branches/${branch}`;
      ctx.github.fault = () => fault;
      expect(expectStatus(await content(url), 502)).toEqual(errorBody(502, 'Error getting content from Github.', '/github/content'));

      ctx.github.fault = () => undefined;
      ctx.github.setFiles({ 'c/protocol.json': '{}' }, { branch });
      const good = await content(url);
      expect(good.statusCode).toBe(200);

      ctx.github.fault = () => fault;
      const served = await content(url);
      expect(served.statusCode).toBe(200);
      expect(served.body).toBe(good.body);
    });
  }

  it('refreshes a stale copy: the next request after the refresh gets the new answer', async () => {
    const branch = unique('br');
    const url = `${API}/repos/${DEFAULT_REPO}/branches/${branch}`;
    ctx.github.setFiles({ 'd/protocol.json': '{"v":1}' }, { branch });
    const first = expectStatus(await content(url), 200);
    ctx.github.setFiles({ 'd/protocol.json': '{"v":2}' }, { branch });
    await until(async () => {
      expect(expectStatus(await content(url), 200).commit.sha).not.toBe(first.commit.sha);
    });
  });
});
