/**
 * Which URLs `GET /github/content` may fetch (G1): `https://api.github.com[:443]/repos/{owner}/{repo}/…`
 * without user info, for an allowed owner, judged on the URL as WHATWG parsing normalises it
 * (dot segments, `%2e%2e`, backslashes, default port), so `/repos/RADAR-base/x/../../other/…`
 * is judged as `/repos/other/…`.
 */
import { BadRequest } from '../errors.js';
import { GITHUB_API } from './client.js';

export const INVALID_GITHUB_URL = 'Invalid Github url.';

const REPO_PATH = /^\/repos\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)\/[^/]/;

/** The normalised URL (no fragment) to fetch, or 400 "Invalid Github url.". */
export function proxyTarget(raw: string | undefined, allowedOwners: ReadonlySet<string>): string {
  if (!raw || !URL.canParse(raw)) throw new BadRequest(INVALID_GITHUB_URL);
  const url = new URL(raw);
  const match = REPO_PATH.exec(url.pathname);
  if (url.origin !== GITHUB_API || url.username || url.password || !match || !allowedOwners.has(match[1]!.toLowerCase())) {
    throw new BadRequest(INVALID_GITHUB_URL);
  }
  url.hash = '';
  return url.href;
}

/** The owners as `proxyTarget` compares them. */
export const ownerSet = (owners: readonly string[]): ReadonlySet<string> => new Set(owners.map((o) => o.toLowerCase()));
