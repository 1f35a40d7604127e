/**
 * `GET /github/content` (G1): allowed GitHub API URLs only, answered from the copy cache.
 */
import { DomainError } from '../../platform/errors.js';
import { GithubError } from './client.js';
import type { CachedContent, GithubContentCache } from './content-cache.js';
import { proxyTarget } from './proxy-url.js';

/** 502 with the reference's message: GitHub failed and no copy exists. */
export class GithubContentUnavailable extends DomainError {
  constructor() { super(502, 'Error getting content from Github.'); }
}

export function createGithubProxy({ cache, allowedOwners }: { cache: GithubContentCache; allowedOwners: ReadonlySet<string> }) {
  return {
    /** GitHub's answer for `url` or its stored copy; 400 "Invalid Github url." before asking GitHub, 502 without a copy. */
    async content(url: string | undefined): Promise<CachedContent> {
      const target = proxyTarget(url, allowedOwners);
      try {
        return await cache.get(target);
      } catch (err) {
        if (err instanceof GithubError) throw new GithubContentUnavailable();
        throw err;
      }
    },
  };
}

export type GithubProxy = ReturnType<typeof createGithubProxy>;
