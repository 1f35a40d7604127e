/**
 * Security headers and CORS for every response of the process (issue 22 item 4), registered once
 * before the domains so that API answers, pages, static files, errors and 404s all carry them.
 *
 * Headers (`@fastify/helmet`): `X-Content-Type-Options: nosniff`, frame denial
 * (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), and a default Content-Security-Policy
 * that lets a response load nothing (right for JSON, errors and static files). A page that loads
 * something sets its own policy over it (the admin UI, the OAuth pages, Swagger UI).
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
import helmet from '@fastify/helmet';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a response that sets no policy of its own may load: nothing; and it may not be framed. */
export const DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The baseline headers for an answer Fastify sends without running hooks (a router error: a
 * malformed URL, an over-long parameter), where helmet never sees it.
 */
export function setBaselineSecurityHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY').header('content-security-policy', DEFAULT_CSP);
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
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
    frameguard: { action: 'deny' },
    hsts: false,
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
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
