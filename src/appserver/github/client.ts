/**
 * GET requests to the GitHub REST API (appserver.md §6.2 `GithubClient`), with the reference's
 * limits: a timeout over the whole exchange, a largest body (by Content-Length or as it streams
 * in), an optional bearer token that a 401 drops for one retry.
 *
 * Every URL is written for `https://api.github.com/…`, as GitHub's own answers and the
 * questionnaire app write them; the client sends it to `GITHUB_API_URL` instead. No request ever
 * leaves for another host, so the token goes nowhere else either.
 */

export const GITHUB_API = 'https://api.github.com';

/**
 * Why a GitHub request failed: an answer outside 2xx, a broken connection, the timeout, a too
 * large body, an unusable URL, an answer of the wrong shape or a redirect the caller refused.
 */
export type GithubFailure = 'status' | 'network' | 'timeout' | 'oversize' | 'url' | 'format' | 'redirect';

export class GithubError extends Error {
  constructor(readonly failure: GithubFailure, message: string, readonly status?: number) {
    super(message);
    this.name = 'GithubError';
  }
}

export interface GithubResponse {
  body: Buffer;
  contentType: string;
}

export interface GithubClientSettings {
  /** Where `https://api.github.com` requests go (`GITHUB_API_URL`), without a trailing slash. */
  apiUrl: string;
  token?: string;
  timeoutMs: number;
  maxContentLength: number;
}

export interface GetOptions {
  /**
   * Asked before each redirect is followed, with its target as an `https://api.github.com/…` URL;
   * `false` fails the request as `redirect`. Without it every redirect within the API is followed.
   */
  followRedirect?: (target: string, signal: AbortSignal) => Promise<boolean>;
}

export interface GithubClient {
  /** GETs an `https://api.github.com/…` URL; throws `GithubError`. */
  get(url: string, signal?: AbortSignal, options?: GetOptions): Promise<GithubResponse>;
  /** Reads and parses a JSON answer. */
  getJson(url: string, signal?: AbortSignal): Promise<unknown>;
}

const MAX_REDIRECTS = 3;

/**
 * The URL to send for a GitHub API URL: `https://api.github.com[:443]/x` → `{apiUrl}/x`. A URL
 * already under `apiUrl` stays; anything else is refused.
 */
export function requestUrl(url: string, apiUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GithubError('url', 'not a URL');
  }
  if (parsed.origin === GITHUB_API && !parsed.username && !parsed.password) return `${apiUrl}${parsed.pathname}${parsed.search}`;
  if (parsed.href.startsWith(`${apiUrl}/`)) return parsed.href;
  throw new GithubError('url', `not a GitHub API URL: ${parsed.origin}`);
}

/** The `https://api.github.com/…` form of a URL under `apiUrl` (the inverse of `requestUrl`); other URLs are refused. */
export function apiForm(url: string, apiUrl: string): string {
  if (url.startsWith(`${apiUrl}/`)) return `${GITHUB_API}${url.slice(apiUrl.length)}`;
  requestUrl(url, apiUrl);
  const parsed = new URL(url);
  return `${GITHUB_API}${parsed.pathname}${parsed.search}`;
}

async function readLimited(response: Response, max: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => {});
    throw new GithubError('oversize', `GitHub content is too large (Content-Length ${declared} > ${max})`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > max) {
        await response.body.cancel().catch(() => {});
        throw new GithubError('oversize', `GitHub content is too large (more than ${max} bytes)`);
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks, size);
}

export function createGithubClient(settings: GithubClientSettings): GithubClient {
  const { apiUrl, token, timeoutMs, maxContentLength } = settings;

  async function send(target: string, withToken: boolean, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/vnd.github.v3+json', 'user-agent': 'radar-platform' };
    if (withToken && token) headers.authorization = `Bearer ${token}`;
    try {
      return await fetch(target, { headers, redirect: 'manual', signal });
    } catch (err) {
      if (signal.aborted) throw new GithubError('timeout', `GitHub did not answer within ${timeoutMs} ms`);
      throw new GithubError('network', `GitHub request failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
  }

  async function get(url: string, outer?: AbortSignal, options: GetOptions = {}): Promise<GithubResponse> {
    const signal = outer ? AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let target = requestUrl(url, apiUrl);
    let withToken = Boolean(token);
    for (let hop = 0; ; hop++) {
      const response = await send(target, withToken, signal);
      if (response.status === 401 && withToken) {
        // Kept from the reference: an expired or revoked token should not stop public reads.
        await response.body?.cancel().catch(() => {});
        withToken = false;
        continue;
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
        await response.body?.cancel().catch(() => {});
        // GitHub redirects renamed repositories to `api.github.com/repositories/{id}/…`.
        const next = apiForm(new URL(location, target).href, apiUrl);
        if (options.followRedirect && !(await options.followRedirect(next, signal))) {
          throw new GithubError('redirect', `GitHub redirected to a URL that is not allowed: ${next}`);
        }
        target = requestUrl(next, apiUrl);
        continue;
      }
      try {
        if (response.status < 200 || response.status >= 300) {
          await response.body?.cancel().catch(() => {});
          throw new GithubError('status', `GitHub answered ${response.status}`, response.status);
        }
        const body = await readLimited(response, maxContentLength);
        return { body, contentType: response.headers.get('content-type') ?? 'application/json; charset=utf-8' };
      } catch (err) {
        if (err instanceof GithubError) throw err;
        if (signal.aborted) throw new GithubError('timeout', `GitHub did not answer within ${timeoutMs} ms`);
        throw new GithubError('network', `GitHub response broke off: ${(err as Error).message}`);
      }
    }
  }

  return {
    get,
    async getJson(url, signal) {
      const { body } = await get(url, signal);
      try {
        return JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        throw new GithubError('format', `GitHub answered with invalid JSON for ${url}`);
      }
    },
  };
}
