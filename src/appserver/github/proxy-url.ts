/**
 * Which URLs `GET /github/content` may fetch (G1): `https://api.github.com[:443]/repos/{owner}/{repo}/…`
 * without user info, for an allowed owner, judged on the URL as WHATWG parsing normalises it
 * (dot segments, `%2e%2e`, backslashes, default port), so `/repos/RADAR-base/x/../../other/…`
 * is judged as `/repos/other/…`.
 *
 * Only GitHub's documented `ref`, `recursive`, `per_page` and `page` may follow, each once (aRMT
 * sends the first two): any other query string would be fetched and stored as a copy of its own.
 * An encoded `/` or `\` (`%2F`, `%5C`) in the path is refused, since normalisation keeps it
 * encoded and GitHub or a proxy before it may still read it as a separator.
 *
 * A redirect GitHub answers with is judged the same way, and may also lead to
 * `/repositories/{id}/…` (a renamed repository), whose owner the caller looks up.
 */
import { BadRequest } from '../errors.js';
import { GITHUB_API } from './client.js';

export const INVALID_GITHUB_URL = 'Invalid Github url.';

const REPO_PATH = /^\/repos\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)\/[^/]/;
const REPOSITORY_ID_PATH = /^\/repositories\/([1-9][0-9]{0,15})\/[^/]/;
const ENCODED_SEPARATOR = /%2f|%5c/i;
const QUERY_NAMES: ReadonlySet<string> = new Set(['ref', 'recursive', 'per_page', 'page']);

/** A URL the proxy may fetch once its owner is allowed: named in the path, or behind a repository id. */
type Candidate = { href: string; owner: string } | { href: string; repositoryId: string };

function candidate(raw: string | undefined): Candidate | undefined {
  if (!raw || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (url.origin !== GITHUB_API || url.username || url.password || ENCODED_SEPARATOR.test(url.pathname)) return undefined;
  const names = [...url.searchParams.keys()];
  if (names.some((name) => !QUERY_NAMES.has(name)) || new Set(names).size !== names.length) return undefined;
  url.hash = '';
  // A bare `?` would otherwise be a second copy of the same answer.
  if (names.length === 0) url.search = '';
  const repo = REPO_PATH.exec(url.pathname);
  if (repo) return { href: url.href, owner: repo[1]!.toLowerCase() };
  const id = REPOSITORY_ID_PATH.exec(url.pathname);
  if (id) return { href: url.href, repositoryId: id[1]! };
  return undefined;
}

/** The normalised URL (no fragment) to fetch, or 400 "Invalid Github url.". */
export function proxyTarget(raw: string | undefined, allowedOwners: ReadonlySet<string>): string {
  const found = candidate(raw);
  if (!found || !('owner' in found) || !allowedOwners.has(found.owner)) throw new BadRequest(INVALID_GITHUB_URL);
  return found.href;
}

/**
 * Whether a redirect to `target` (an `https://api.github.com/…` URL) may be followed: by the same
 * rules as `proxyTarget`, with the owner of `/repositories/{id}/…` from `ownerOf` (which may
 * throw, e.g. a `GithubError` when GitHub cannot tell).
 */
export async function redirectAllowed(
  target: string, allowedOwners: ReadonlySet<string>, ownerOf: (repositoryId: string) => Promise<string>,
): Promise<boolean> {
  const found = candidate(target);
  if (!found) return false;
  const owner = 'owner' in found ? found.owner : (await ownerOf(found.repositoryId)).toLowerCase();
  return allowedOwners.has(owner);
}

/** The owners as `proxyTarget` compares them. */
export const ownerSet = (owners: readonly string[]): ReadonlySet<string> => new Set(owners.map((o) => o.toLowerCase()));
