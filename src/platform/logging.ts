/** pino options for Fastify's logger: level from config, secrets redacted (STYLE §2.10). */
import type { FastifyBaseLogger, FastifyServerOptions, FastifyRequest } from 'fastify';
import { stdSerializers } from 'pino';

/** Query parameters that carry credentials and never reach the log. */
// `token`: check_token, introspection and revocation; `key`: activation and password-reset keys
// (`/api/activate?key=`); `code_verifier`: PKCE.
export const SECRET_QUERY_PARAMS = ['token', 'client_secret', 'password', 'refresh_token', 'code', 'access_token', 'key', 'code_verifier'];

/** Request headers that carry credentials: replaced by `[Redacted]` in request logs. */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-csrf-token', 'x-xsrf-token'];

/** Path segments that are secrets themselves: a pairing meta-token's name hands out a refresh token. */
const SECRET_PATH = /(\/api\/meta-token\/)[^/?#\s"']+/g;

/** `name=value` of a secret query parameter inside free text (a message, an error's stack). */
const SECRET_PARAM_IN_TEXT = new RegExp(`([?&;](?:${SECRET_QUERY_PARAMS.join('|')})=)[^&#\\s"'<>]*`, 'g');

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

/**
 * Free text with URLs' secrets replaced by `[Redacted]`. Fastify puts raw URLs into some messages
 * (`Route GET:/x?token=… not found`, "reply already sent"), and errors may quote them.
 */
export function redactedText(text: string): string {
  return text.replace(SECRET_PATH, '$1[Redacted]').replace(SECRET_PARAM_IN_TEXT, '$1[Redacted]');
}

type SerializedError = ReturnType<typeof stdSerializers.err>;

export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    redact: {
      paths: [
        ...SECRET_HEADERS.map((name) => `req.headers["${name}"]`), 'res.headers["set-cookie"]',
        '*.password', '*.client_secret', '*.access_token', '*.refresh_token', '*.fcmToken',
      ],
      censor: '[Redacted]',
    },
    hooks: {
      // Messages are free text: scrub any URL secrets in them.
      logMethod(args, method) {
        method.apply(this, args.map((arg) => typeof arg === 'string' ? redactedText(arg) : arg) as Parameters<typeof method>);
      },
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
      err(err: Error): SerializedError {
        const out = stdSerializers.err(err);
        if (typeof out.message === 'string') out.message = redactedText(out.message);
        if (typeof out.stack === 'string') out.stack = redactedText(out.stack);
        return out;
      },
    },
  };
}

type Bindings = Record<string, unknown>;
/** pino's logger as Fastify types it, with the level check pino has. */
type PinoLike = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes a pino child (with the request id) only when something is
 * logged at an enabled level. Fastify makes a child logger per request, and pino's `child` (with
 * redaction configured) cost about a tenth of a small request's CPU, mostly for requests that
 * never log: at the default `info` level only the start and end lines, at `warn` nothing.
 */
class RequestLogger {
  readonly #parent: PinoLike;
  readonly #bindings: Bindings;
  #child: PinoLike | undefined;

  constructor(parent: PinoLike, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): PinoLike {
    return this.#child ??= this.#parent.child(this.#bindings) as PinoLike;
  }

  #log(level: LogLevel, args: unknown[]): void {
    const current = this.#child ?? this.#parent;
    if (current.isLevelEnabled(level)) (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string { return (this.#child ?? this.#parent).level; }
  set level(level: string) { this.#real().level = level; }
  isLevelEnabled(level: string): boolean { return (this.#child ?? this.#parent).isLevelEnabled(level); }
  child(bindings: Bindings, options?: object): FastifyBaseLogger { return this.#real().child(bindings, options); }
  fatal(...args: unknown[]): void { this.#log('fatal', args); }
  error(...args: unknown[]): void { this.#log('error', args); }
  warn(...args: unknown[]): void { this.#log('warn', args); }
  info(...args: unknown[]): void { this.#log('info', args); }
  debug(...args: unknown[]): void { this.#log('debug', args); }
  trace(...args: unknown[]): void { this.#log('trace', args); }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: lazy request loggers, real children for per-route log options. */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  // Not pino (`logger: false`, a test's own logger): nothing to save.
  if (Object.keys(options).length > 0 || typeof (logger as Partial<PinoLike>).isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new RequestLogger(logger as PinoLike, bindings) as unknown as FastifyBaseLogger;
}
