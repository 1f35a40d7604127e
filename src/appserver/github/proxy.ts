/**
 * `GET /github/content` (G1): allowed GitHub API URLs only, answered from the copy cache.
 *
 * The proxy serves data, never pages (issue 28 item 7): GitHub's content type is not passed on.
 * A JSON answer goes out as `application/json`, anything else (raw file content, and an HTML or
 * SVG body however it got there) as `text/plain`, so no body GitHub holds can run as a page of
 * this origin.
 */
import { DomainError } from '../../platform/errors.js';
import { GithubError, type GetOptions, type GithubClient } from './client.js';
import type { GithubContentCache } from './content-cache.js';
import { proxyTarget, redirectAllowed } from './proxy-url.js';
import { createRepositoryOwners } from './repository-owners.js';

/** 502 with the reference's message: GitHub failed and no copy exists. */
export class GithubContentUnavailable extends DomainError {
  constructor() { super(502, 'Error getting content from Github.'); }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export interface ProxiedContent {
  body: Buffer;
  /** `JSON_TYPE` or `TEXT_TYPE`. */
  contentType: string;
  /** True for anything but JSON: a file's raw content. */
  raw: boolean;
}

/** Whether GitHub's content type is JSON (`application/json`, or a `+json` type such as `application/vnd.github+json`). */
function isJson(contentType: string): boolean {
  const mime = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mime === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mime);
}

/**
 * The GitHub request options of the proxy: a redirect is followed only to a URL the proxy would
 * fetch itself; for `/repositories/{id}/…` (a renamed repository) the id's owner is looked up.
 */
export function proxyFetchOptions({ github, allowedOwners }: { github: GithubClient; allowedOwners: ReadonlySet<string> }): GetOptions {
  const owners = createRepositoryOwners({ github });
  return {
    followRedirect: (target, signal) => redirectAllowed(target, allowedOwners, (id) => owners.ownerOf(id, signal)),
  };
}

export function createGithubProxy({ cache, allowedOwners }: { cache: GithubContentCache; allowedOwners: ReadonlySet<string> }) {
  return {
    /** GitHub's answer for `url` or its stored copy; 400 "Invalid Github url." before asking GitHub, 502 without a copy. */
    async content(url: string | undefined): Promise<ProxiedContent> {
      const target = proxyTarget(url, allowedOwners);
      try {
        const { body, contentType } = await cache.get(target);
        const json = isJson(contentType);
        return { body, contentType: json ? JSON_TYPE : TEXT_TYPE, raw: !json };
      } catch (err) {
        if (err instanceof GithubError) throw new GithubContentUnavailable();
        throw err;
      }
    },
  };
}

export type GithubProxy = ReturnType<typeof createGithubProxy>;
