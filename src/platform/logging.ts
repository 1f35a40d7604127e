/** pino options for Fastify's logger: level from config, secrets redacted (STYLE §2.10). */
import type { FastifyServerOptions, FastifyRequest } from 'fastify';

/** Query parameters that carry credentials and never reach the log. */
// `key`: activation and password-reset keys (`/api/activate?key=`); `code_verifier`: PKCE.
export const SECRET_QUERY_PARAMS = ['client_secret', 'password', 'refresh_token', 'code', 'access_token', 'key', 'code_verifier'];

/** Path segments that are secrets themselves: a pairing meta-token's name hands out a refresh token. */
const SECRET_PATH = /(\/api\/meta-token\/)[^/?#]+/;

/** The request URL with secret path segments and query parameters replaced by `[Redacted]`. */
export function redactedUrl(rawUrl: string): string {
  const url = rawUrl.replace(SECRET_PATH, '$1[Redacted]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of SECRET_QUERY_PARAMS) {
    if (params.has(name)) {
      params.set(name, '[Redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]',
        '*.password', '*.client_secret', '*.access_token', '*.refresh_token', '*.fcmToken',
      ],
      censor: '[Redacted]',
    },
    serializers: {
      req(req: FastifyRequest) {
        return {
          method: req.method,
          url: redactedUrl(req.url),
          hostname: req.hostname,
          remoteAddress: req.ip,
          headers: req.headers,
        };
      },
    },
  };
}
