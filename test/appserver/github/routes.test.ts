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

describe('GET /github/content serves data, not pages, and asks GitHub only what aRMT asks (issue 28 item 7)', () => {
  const requestsFor = (part: string) => ctx.github.requests.filter((r) => r.path.includes(part));

  const bodies: [string, string, string, string][] = [
    // what GitHub sends, its content type, what we answer with
    ['JSON', 'application/json; charset=utf-8', '{"a":1}', 'application/json; charset=utf-8'],
    ['a GitHub JSON media type', 'application/vnd.github+json', '{"a":1}', 'application/json; charset=utf-8'],
    ['raw file content', 'application/vnd.github.raw', 'line 1\nline 2', 'text/plain; charset=utf-8'],
    ['plain text', 'text/plain; charset=utf-8', 'hello', 'text/plain; charset=utf-8'],
    ['HTML', 'text/html; charset=utf-8', '<html><script>alert(document.cookie)</script></html>', 'text/plain; charset=utf-8'],
    ['SVG', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'text/plain; charset=utf-8'],
  ];
  for (const [what, upstream, body, served] of bodies) {
    it(`answers ${what} (${upstream}) as ${served.split(';')[0]}, never with GitHub's content type`, async () => {
      const file = unique('file');
      ctx.github.respond = (path) => (path.includes(file) ? { headers: { 'content-type': upstream }, body } : undefined);
      const res = await content(`${API}/repos/${DEFAULT_REPO}/contents/${file}?ref=master`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(served);
      expect(res.body).toBe(body);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(res.headers['content-disposition']).toBe(served.startsWith('text/') ? 'attachment' : undefined);
    });
  }

  it('refuses query parameters other than ref, recursive, per_page and page (400, GitHub not asked)', async () => {
    const marker = unique('q');
    const refused = [
      `${API}/repos/${DEFAULT_REPO}/branches/${marker}?foo=1`,
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}?ref=master&callback=x`,
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}?ref=master&ref=other`,
      `${API}/repos/${DEFAULT_REPO}/git/trees/${marker}?recursive=1&access_token=x`,
      `${API}/repos/${DEFAULT_REPO}/branches/${marker}?REF=master`,
    ];
    for (const url of refused) expect(expectStatus(await content(url), 400), url).toEqual(errorBody(400, 'Invalid Github url.', '/github/content'));
    expect(requestsFor(marker)).toEqual([]);

    // The four documented ones go through.
    ctx.github.setFiles({ [`${marker}/protocol.json`]: '{}' }, { branch: marker });
    expect((await content(`${API}/repos/${DEFAULT_REPO}/contents/${marker}?ref=${marker}&per_page=10&page=1`)).statusCode).toBe(200);
    const branch = expectStatus(await content(`${API}/repos/${DEFAULT_REPO}/branches/${marker}`), 200);
    expect((await content(`${branch.commit.commit.tree.url}?recursive=1`)).statusCode).toBe(200);
  });

  it('refuses an encoded / or \\ in the path (400, GitHub not asked)', async () => {
    const marker = unique('enc');
    const refused = [
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}%2F..%2F..%2F..%2Fsomeone-else%2Frepo`,
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}%2fa`,
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}%5C..%5Csomeone-else`,
      `${API}/repos/${DEFAULT_REPO}/contents/${marker}%5ca`,
    ];
    for (const url of refused) expect(expectStatus(await content(url), 400), url).toEqual(errorBody(400, 'Invalid Github url.', '/github/content'));
    expect(requestsFor(marker)).toEqual([]);
  });

  it('does not follow a redirect to another owner\'s repository (502, the other repository not asked)', async () => {
    const branch = unique('br');
    ctx.github.respond = (path) => (path === `/repos/${DEFAULT_REPO}/branches/${branch}`
      ? { status: 301, headers: { location: `${API}/repos/someone-else/repo/branches/${branch}` } }
      : undefined);
    expect(expectStatus(await content(`${API}/repos/${DEFAULT_REPO}/branches/${branch}`), 502))
      .toEqual(errorBody(502, 'Error getting content from Github.', '/github/content'));
    expect(requestsFor('someone-else')).toEqual([]);
  });

  it('does not follow a redirect to a path or query the proxy would refuse', async () => {
    const branch = unique('br');
    const targets = [
      `${API}/users/RADAR-base`,
      `${API}/repos/${DEFAULT_REPO}/branches/${branch}-moved?access_token=x`,
      `${API}/repos/${DEFAULT_REPO}/contents/${branch}-moved%2F..%2Fx`,
    ];
    for (const target of targets) {
      ctx.github.respond = (path) => (path === `/repos/${DEFAULT_REPO}/branches/${branch}` ? { status: 302, headers: { location: target } } : undefined);
      expect((await content(`${API}/repos/${DEFAULT_REPO}/branches/${branch}`)).statusCode, target).toBe(502);
    }
    expect(requestsFor(`${branch}-moved`)).toEqual([]);
    expect(requestsFor('/users/')).toEqual([]);
  });

  it('follows a renamed repository\'s redirect to /repositories/{id}/… of an allowed owner, looking the id up once', async () => {
    const oldName = `RADAR-base/${unique('old')}`;
    const newName = `RADAR-base/${unique('new')}`;
    ctx.github.setFiles({ 'e/protocol.json': '{"renamed":true}' }, { repo: newName, branch: 'main' });
    ctx.github.rename(oldName, newName);
    const id = ctx.github.repositoryId(newName);

    const branch = expectStatus(await content(`${API}/repos/${oldName}/branches/main`), 200);
    expect(branch.name).toBe('main');
    expect(requestsFor(`/repositories/${id}/branches/main`)).toHaveLength(1);
    const tree = expectStatus(await content(`${API}/repos/${oldName}/git/trees/${branch.commit.commit.tree.sha}?recursive=1`), 200);
    expect(tree.tree.map((e: { path: string }) => e.path)).toContain('e/protocol.json');
    expect(requestsFor(`/repositories/${id}/git/trees/`)).toHaveLength(1);
    // The owner was asked for once; the second redirect used what the first learnt.
    expect(ctx.github.requests.filter((r) => r.path === `/repositories/${id}`)).toHaveLength(1);
  });

  it('does not follow a renamed repository\'s redirect to /repositories/{id}/… of another owner', async () => {
    const oldName = `RADAR-base/${unique('old')}`;
    const newName = `someone-else/${unique('taken')}`;
    ctx.github.setFiles({ 'f/protocol.json': '{}' }, { repo: newName, branch: 'main' });
    ctx.github.rename(oldName, newName);
    const id = ctx.github.repositoryId(newName);

    expect(expectStatus(await content(`${API}/repos/${oldName}/branches/main`), 502))
      .toEqual(errorBody(502, 'Error getting content from Github.', '/github/content'));
    expect(ctx.github.requests.filter((r) => r.path === `/repositories/${id}`)).toHaveLength(1);
    expect(requestsFor(`/repositories/${id}/`)).toEqual([]);
  });
});
