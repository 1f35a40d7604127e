/**
 * The owner of a GitHub repository by its id (`GET /repositories/{id}` → `owner.login`), which
 * GitHub's redirects for renamed repositories name instead of the owner. Each id is asked once
 * (concurrent callers join the one request) and remembered for a day; a failed lookup is not
 * remembered, so the next redirect asks again.
 */
import { createTtlCache } from '../../platform/ttl-cache.js';
import { GITHUB_API, GithubError, type GithubClient } from './client.js';

/** How long a looked-up owner is trusted: a transfer to another owner is seen within a day. */
export const OWNER_TTL_MS = 24 * 3_600_000;
/** Repository ids remembered at most. */
const MAX_IDS = 1000;

export interface RepositoryOwners {
  ownerOf(repositoryId: string, signal?: AbortSignal): Promise<string>;
}

export function createRepositoryOwners({ github, now = Date.now }: { github: GithubClient; now?: () => number }): RepositoryOwners {
  const owners = createTtlCache<string, string>({ max: MAX_IDS, ttl: OWNER_TTL_MS, now });
  const inFlight = new Map<string, Promise<string>>();

  async function lookUp(repositoryId: string, signal?: AbortSignal): Promise<string> {
    const repository = await github.getJson(`${GITHUB_API}/repositories/${repositoryId}`, signal);
    const login = (repository as { owner?: { login?: unknown } } | null)?.owner?.login;
    if (typeof login !== 'string' || login === '') throw new GithubError('format', `GitHub named no owner for repository ${repositoryId}`);
    owners.set(repositoryId, login);
    return login;
  }

  return {
    ownerOf(repositoryId, signal) {
      const known = owners.get(repositoryId);
      if (known !== undefined) return Promise.resolve(known);
      let running = inFlight.get(repositoryId);
      if (!running) {
        running = lookUp(repositoryId, signal).finally(() => inFlight.delete(repositoryId));
        inFlight.set(repositoryId, running);
      }
      return running;
    },
  };
}
