/**
 * A local stand-in for the GitHub REST API, for tests and benchmarks. Point the service at it
 * with GITHUB_API_URL=<stub.url>. It serves one or more repositories from files a test sets, in
 * GitHub's format: branches (`commit.commit.tree`), git trees (recursive or not; directories
 * are trees of their own), git blobs (base64 content in 60-character lines) and contents. The
 * URLs inside its answers are `https://api.github.com/…`, as GitHub writes them, so the
 * service's rewriting to GITHUB_API_URL is exercised.
 *
 * `fault` makes a request fail as GitHub or the network can: a status with GitHub's error body, a
 * connection reset, a request that never answers, a body over the size limit (announced by
 * Content-Length or streamed without it). `respond` answers a request with anything (a content
 * type, a redirect). Repositories also have ids: `/repositories/{id}` names the owner, and
 * `/repositories/{id}/…` serves the repository, as GitHub does for a repository `rename`d.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEFAULT_REPO = 'RADAR-base/RADAR-aRMT-protocols';
const API = 'https://api.github.com';

export type GithubFault = 'reset' | 'hang' | 'oversize' | 'oversize-stream' | { status: number };

/** An answer of a test's choosing; absent fields: status 200, no headers, empty body. */
export interface StubAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface StubRequest {
  path: string;
  authorization: string | undefined;
}

interface TreeEntry { path: string; mode: string; type: 'blob' | 'tree'; sha: string; size?: number }

export interface GithubStub {
  /** The value for GITHUB_API_URL. */
  url: string;
  /** Replaces the files of a branch (path → content) with a new commit. */
  setFiles(files: Record<string, string>, opts?: { repo?: string; branch?: string }): void;
  /** Decides a fault for each request by its path and query (default: none). */
  fault: (path: string) => GithubFault | undefined;
  /** Decides an answer of its own for each request by its path and query (default: none); a fault goes first. */
  respond: (path: string) => StubAnswer | undefined;
  /** The id of a repository (`owner/name`), the same on every call. */
  repositoryId(repo: string): number;
  /**
   * Renames `from` to `to` (`owner/name`, which may have another owner): requests for `from` get
   * GitHub's 301 to `https://api.github.com/repositories/{id of to}/…`.
   */
  rename(from: string, to: string): void;
  /** Bytes of an oversize answer (default 2,000,000). */
  oversizeBytes: number;
  /** Answers each request after this many milliseconds (default 0). */
  delayMs: number;
  /** Every request received, in order. */
  requests: StubRequest[];
  /** The git blob sha of a content. */
  blobSha(content: string): string;
  close(): Promise<void>;
}

const sha1 = (data: string | Buffer) => createHash('sha1').update(data).digest('hex');
const blobShaOf = (content: Buffer) => sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));

/** Base64 in lines of 60 characters, as GitHub sends blob content. */
const githubBase64 = (content: Buffer) => (content.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';

export async function startGithubStub(): Promise<GithubStub> {
  const blobs = new Map<string, Buffer>();
  const trees = new Map<string, TreeEntry[]>();
  /** `owner/repo` → branch → commit. */
  const branches = new Map<string, Map<string, { sha: string; tree: string }>>();
  /** `owner/repo` → branch → path → blob sha (for the contents API). */
  const files = new Map<string, Map<string, Map<string, string>>>();
  let commits = 0;

  /** Stores the tree of `dir` (paths relative to it) and returns its sha. */
  function storeTree(entries: Map<string, Buffer>): string {
    const children = new Map<string, Map<string, Buffer>>();
    const list: TreeEntry[] = [];
    for (const [path, content] of entries) {
      const slash = path.indexOf('/');
      if (slash < 0) {
        const sha = blobShaOf(content);
        blobs.set(sha, content);
        list.push({ path, mode: '100644', type: 'blob', sha, size: content.length });
      } else {
        const dir = path.slice(0, slash);
        if (!children.has(dir)) children.set(dir, new Map());
        children.get(dir)!.set(path.slice(slash + 1), content);
      }
    }
    for (const [dir, sub] of children) list.push({ path: dir, mode: '040000', type: 'tree', sha: storeTree(sub) });
    list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const sha = sha1(`tree ${JSON.stringify(list)}`);
    trees.set(sha, list);
    return sha;
  }

  const requests: StubRequest[] = [];
  const repositoryIds = new Map<string, number>();
  const renamed = new Map<string, string>();
  const repositoryById = (id: number) => [...repositoryIds].find(([, known]) => known === id)?.[0];
  const stub: GithubStub = {
    url: '',
    fault: () => undefined,
    respond: () => undefined,
    repositoryId(repo) {
      if (!repositoryIds.has(repo)) repositoryIds.set(repo, 100_000 + repositoryIds.size);
      return repositoryIds.get(repo)!;
    },
    rename(from, to) {
      stub.repositoryId(to);
      renamed.set(from, to);
    },
    oversizeBytes: 2_000_000,
    delayMs: 0,
    requests,
    blobSha: (content) => blobShaOf(Buffer.from(content, 'utf8')),
    setFiles(contents, opts = {}) {
      const repo = opts.repo ?? DEFAULT_REPO;
      const branch = opts.branch ?? 'master';
      const tree = storeTree(new Map(Object.entries(contents).map(([p, c]) => [p, Buffer.from(c, 'utf8')])));
      if (!branches.has(repo)) branches.set(repo, new Map());
      branches.get(repo)!.set(branch, { sha: sha1(`commit ${tree} ${++commits}`), tree });
      if (!files.has(repo)) files.set(repo, new Map());
      files.get(repo)!.set(branch, new Map(Object.entries(contents).map(([p, c]) => [p, blobShaOf(Buffer.from(c, 'utf8'))])));
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const notFound = (res: ServerResponse) => send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });

  function recursiveEntries(sha: string, prefix: string): TreeEntry[] {
    return (trees.get(sha) ?? []).flatMap((e) => {
      const entry = { ...e, path: `${prefix}${e.path}` };
      return e.type === 'tree' ? [entry, ...recursiveEntries(e.sha, `${entry.path}/`)] : [entry];
    });
  }

  function answer(repo: string, rest: string, query: URLSearchParams, res: ServerResponse) {
    const base = `${API}/repos/${repo}`;
    const withUrl = (e: TreeEntry) => ({ ...e, url: `${base}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}` });
    let m: RegExpExecArray | null;
    if ((m = /^branches\/(.+)$/.exec(rest))) {
      const name = decodeURIComponent(m[1]!);
      const head = branches.get(repo)?.get(name);
      if (!head) return notFound(res);
      return send(res, 200, {
        name,
        commit: {
          sha: head.sha, node_id: `C_${head.sha.slice(0, 8)}`, url: `${base}/commits/${head.sha}`,
          commit: {
            author: { name: 'stub', email: 'stub@example.org', date: '2024-01-01T00:00:00Z' },
            message: 'protocols', tree: { sha: head.tree, url: `${base}/git/trees/${head.tree}` },
            url: `${base}/git/commits/${head.sha}`, comment_count: 0,
          },
          parents: [],
        },
        _links: { self: `${base}/branches/${name}`, html: `https://github.com/${repo}/tree/${name}` },
        protected: false,
      });
    }
    if ((m = /^git\/trees\/([0-9a-f]+)$/.exec(rest))) {
      if (!trees.has(m[1]!)) return notFound(res);
      const recursive = query.has('recursive') && query.get('recursive') !== '0' && query.get('recursive') !== 'false';
      const entries = recursive ? recursiveEntries(m[1]!, '') : trees.get(m[1]!)!;
      return send(res, 200, { sha: m[1], url: `${base}/git/trees/${m[1]}`, tree: entries.map(withUrl), truncated: false });
    }
    if ((m = /^git\/blobs\/([0-9a-f]+)$/.exec(rest))) {
      const content = blobs.get(m[1]!);
      if (!content) return notFound(res);
      return send(res, 200, { sha: m[1], node_id: `B_${m[1]!.slice(0, 8)}`, size: content.length, url: `${base}/git/blobs/${m[1]}`, content: githubBase64(content), encoding: 'base64' });
    }
    if ((m = /^contents\/(.*)$/.exec(rest))) {
      const path = decodeURIComponent(m[1]!);
      const branchFiles = files.get(repo)?.get(query.get('ref') ?? 'master');
      const sha = branchFiles?.get(path);
      if (!branchFiles) return notFound(res);
      const link = (p: string, s: string, type: string) => ({
        name: p.split('/').at(-1), path: p, sha: s, url: `${base}/contents/${p}?ref=${query.get('ref') ?? 'master'}`,
        git_url: `${base}/git/${type === 'dir' ? 'trees' : 'blobs'}/${s}`, html_url: `https://github.com/${repo}/blob/master/${p}`, type,
      });
      if (sha) {
        const content = blobs.get(sha)!;
        return send(res, 200, { ...link(path, sha, 'file'), size: content.length, download_url: `https://raw.githubusercontent.com/${repo}/master/${path}`, content: githubBase64(content), encoding: 'base64' });
      }
      const prefix = path === '' ? '' : `${path}/`;
      const names = new Map<string, string>();
      for (const [p, s] of branchFiles) {
        if (!p.startsWith(prefix)) continue;
        const name = p.slice(prefix.length).split('/')[0]!;
        names.set(name, p.slice(prefix.length).includes('/') ? 'dir' : s);
      }
      if (names.size === 0) return notFound(res);
      return send(res, 200, [...names].map(([name, s]) => (s === 'dir' ? link(`${prefix}${name}`, sha1(name), 'dir') : { ...link(`${prefix}${name}`, s, 'file'), size: blobs.get(s)!.length })));
    }
    return notFound(res);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push({ path: `${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const fault = stub.fault(`${url.pathname}${url.search}`);
    const reply = () => {
      if (fault === 'hang') return;
      if (fault === 'reset') return req.socket.destroy();
      if (fault === 'oversize') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': stub.oversizeBytes });
        res.end(' '.repeat(stub.oversizeBytes));
        return;
      }
      if (fault === 'oversize-stream') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        const chunk = ' '.repeat(16 * 1024);
        let sent = 0;
        const more = () => {
          while (sent < stub.oversizeBytes) {
            sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', more);
          }
          res.end();
        };
        more();
        return;
      }
      if (fault) return send(res, fault.status, { message: fault.status === 401 ? 'Bad credentials' : 'stub failure', documentation_url: 'https://docs.github.com/rest', status: String(fault.status) });
      const own = stub.respond(`${url.pathname}${url.search}`);
      if (own) {
        res.writeHead(own.status ?? 200, own.headers ?? {});
        res.end(own.body ?? '');
        return;
      }
      if (req.method !== 'GET') return notFound(res);
      const byId = /^\/repositories\/(\d+)(?:\/(.+))?$/.exec(url.pathname);
      const repo = byId ? repositoryById(Number(byId[1])) : undefined;
      if (byId && repo && byId[2] === undefined) {
        const [owner, name] = repo.split('/');
        return send(res, 200, { id: Number(byId[1]), name, full_name: repo, owner: { login: owner, type: 'Organization' }, private: false });
      }
      if (byId && repo) return answer(repo, byId[2]!, url.searchParams, res);
      const m = /^\/repos\/([^/]+\/[^/]+)\/(.+)$/.exec(url.pathname);
      if (!m) return notFound(res);
      const newName = renamed.get(m[1]!);
      if (newName) {
        const location = `${API}/repositories/${stub.repositoryId(newName)}/${m[2]}${url.search}`;
        const text = JSON.stringify({ message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/v3/#http-redirects' });
        res.writeHead(301, { location, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
        return res.end(text);
      }
      answer(m[1]!, m[2]!, url.searchParams, res);
    };
    if (stub.delayMs > 0) setTimeout(reply, stub.delayMs);
    else reply();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
