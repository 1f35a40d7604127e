/**
 * Finding the protocol files in the protocol repository (appserver.md §6.1): the branch's head
 * commit → its tree, listed recursively → the blobs whose path ends in `/{file}` → each blob's
 * content. Only blobs whose sha changed need downloading.
 */
import { GITHUB_API, GithubError, type GithubClient } from '../github/client.js';

export interface ProtocolSource {
  /** `owner/name`. */
  repo: string;
  branch: string;
  fileName: string;
}

export interface RemoteProtocolFile {
  path: string;
  /** Git blob sha. */
  sha: string;
  /** The blob's API URL (`https://api.github.com/repos/…/git/blobs/{sha}`). */
  url: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const formatError = (what: string) => new GithubError('format', `unexpected GitHub answer: ${what}`);

/** The sha of the tree at the head of the branch (`commit.commit.tree.sha` of the branch). */
export async function headTreeSha(github: GithubClient, source: ProtocolSource, signal?: AbortSignal): Promise<string> {
  const branch = await github.getJson(`${GITHUB_API}/repos/${source.repo}/branches/${encodeURIComponent(source.branch)}`, signal);
  const commit = isObject(branch) && isObject(branch.commit) && isObject(branch.commit.commit) ? branch.commit.commit : undefined;
  const treeSha = commit && isObject(commit.tree) ? commit.tree.sha : undefined;
  if (typeof treeSha !== 'string' || !/^[0-9a-f]{4,64}$/i.test(treeSha)) throw formatError('branch without commit.commit.tree.sha');
  return treeSha;
}

/** The protocol files of a tree, listed recursively; `truncated` when GitHub cut the listing short. */
export async function listProtocolFiles(github: GithubClient, source: ProtocolSource, treeSha: string, signal?: AbortSignal): Promise<{ files: RemoteProtocolFile[]; truncated: boolean }> {
  const tree = await github.getJson(`${GITHUB_API}/repos/${source.repo}/git/trees/${treeSha}?recursive=true`, signal);
  if (!isObject(tree) || !Array.isArray(tree.tree)) throw formatError('tree without entries');
  const suffix = `/${source.fileName}`;
  const files = tree.tree.flatMap((entry): RemoteProtocolFile[] => {
    if (!isObject(entry) || entry.type !== 'blob') return [];
    const { path, sha, url } = entry;
    if (typeof path !== 'string' || typeof sha !== 'string' || typeof url !== 'string' || !path.endsWith(suffix)) return [];
    return [{ path, sha, url }];
  });
  return { files, truncated: tree.truncated === true };
}

/**
 * A protocol file's text as the repository holds it (a UTF-8 byte-order mark dropped); throws a
 * `GithubError` when it cannot be read or is not a JSON object.
 */
export async function readProtocolFile(github: GithubClient, file: RemoteProtocolFile, signal?: AbortSignal): Promise<string> {
  const blob = await github.getJson(file.url, signal);
  if (!isObject(blob) || typeof blob.content !== 'string' || (blob.encoding !== undefined && blob.encoding !== 'base64')) throw formatError(`blob of ${file.path}`);
  const text = Buffer.from(blob.content.replace(/\s/g, ''), 'base64').toString('utf8').replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw formatError(`${file.path} is not JSON`);
  }
  if (!isObject(parsed)) throw formatError(`${file.path} is not a JSON object`);
  return text;
}
