/**
 * Security headers and CORS for every response of the process (issue 22 item 4), registered once
 * before the domains so that API answers, pages, static files, errors and 404s all carry them.
 *
 * Headers: helmet's set (`SECURITY_HEADERS`): `X-Content-Type-Options: nosniff`, frame denial
 * (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), a default Content-Security-Policy
 * that lets a response load nothing (right for JSON, errors and static files), and helmet's
 * isolation and referrer headers. A page that loads something sets its own policy over it (the
 * admin UI, the OAuth pages, Swagger UI).
 * `Strict-Transport-Security` only on requests that came over TLS as judged through `TRUST_PROXY`
 * (`request.protocol`), as Spring Security's `HstsHeaderWriter` does in the reference: on plain
 * http the header would be ignored, and a proxy that is not trusted cannot switch it on.
 *
 * CORS (`@fastify/cors`): off unless `CORS_ALLOWED_ORIGINS` names origins. Then a listed origin
 * (or any, for `*`) gets CORS headers on the API paths only (`corsPaths`): preflights allow
 * `Authorization` and `Content-Type`, answers expose the paging and `Location` headers.
 * Credentials (cookies) are not allowed across origins: API clients send bearer tokens.
 * An unlisted origin, and every page, gets no CORS header at all.
 */
import fp from 'fastify-plugin';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a response that sets no policy of its own may load: nothing; and it may not be framed. */
export const DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers `@fastify/helmet` 13.2 (helmet 8.3) sent on every response with this policy
 * (`contentSecurityPolicy` DEFAULT_CSP without helmet's defaults, `frameguard: deny`, no HSTS),
 * spelled out once. helmet built its middleware again on every request (parsing the CSP
 * directives each time) in two `onRequest` hooks, one of them async: about 7 % of the token
 * endpoint's busy time (bench/README.md, issue 30). (helmet also removed `X-Powered-By`, which
 * nothing here sets.) test/platform/http-security.test.ts holds
 * every kind of response against what @fastify/helmet sends for the same options.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // helmet's spelling (no space after `;`), byte for byte what was sent before.
  'content-security-policy': DEFAULT_CSP.replaceAll('; ', ';'),
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/**
 * Sets the security headers on `reply`; a route or page that sets one of them later (its own
 * Content-Security-Policy or Referrer-Policy) replaces it. Also for an answer Fastify sends
 * without running hooks (a router error: a malformed URL, an over-long parameter).
 */
export function setBaselineSecurityHeaders(reply: FastifyReply): void {
  // Through the reply's own headers, never `reply.raw.setHeader`: Fastify hands them to
  // `writeHead` in one object, which Node processes in one pass.
  for (const [name, value] of SECURITY_HEADER_ENTRIES) reply.header(name, value);
}

/** Spring Security's default (one year, subdomains included), sent only over TLS. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** Headers a cross-origin script may read: paging (`X-Total-Count`, `Link`), uploads (`Location`), the reference's alerts. */
const EXPOSED_HEADERS = ['Location', 'Link', 'X-Total-Count', 'X-managementPortalApp-alert', 'X-managementPortalApp-params', 'X-managementPortalApp-error'];

export interface HttpSecurityOptions {
  /** `CORS_ALLOWED_ORIGINS`: exact origins, or `*` for any; empty: CORS off. */
  allowedOrigins: readonly string[];
  /**
   * Path prefixes (whole segments) that are API paths (`true`) or not (`false`); the longest
   * prefix that matches a request's path decides, no match means not an API path.
   */
  corsPaths: Readonly<Record<string, boolean>>;
}

/** Whether `path` is an API path by the longest whole-segment prefix of `rules` it starts with. */
export function isCorsPath(rules: Readonly<Record<string, boolean>>, url: string): boolean {
  const path = url.split('?', 1)[0]!;
  let best = -1;
  let answer = false;
  for (const [prefix, api] of Object.entries(rules)) {
    const bare = prefix.replace(/\/+$/, '');
    const matches = bare === '' || path === bare || path.startsWith(`${bare}/`);
    if (matches && bare.length > best) {
      best = bare.length;
      answer = api;
    }
  }
  return answer;
}

export const httpSecurityPlugin = fp(async (app: FastifyInstance, { allowedOrigins, corsPaths }: HttpSecurityOptions) => {
  // One callback hook: an async one costs every request a promise.
  app.addHook('onRequest', function securityHeaders(request, reply, done) {
    setBaselineSecurityHeaders(reply);
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done();
  });

  if (allowedOrigins.length === 0) return;
  const anyOrigin = allowedOrigins.includes('*');
  const listed = new Set(allowedOrigins);
  const allowed: FastifyCorsOptions = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 1800,
    // A bare OPTIONS (no Access-Control-Request-Method) is answered as a preflight, not with a plain-text 400.
    strictPreflight: false,
  };
  await app.register(cors, {
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      const ok = origin !== undefined && (anyOrigin || listed.has(origin)) && isCorsPath(corsPaths, request.url);
      callback(null, ok ? { ...allowed, origin: anyOrigin ? '*' : origin } : { origin: false });
    },
  });
}, { name: 'platform-http-security' });
