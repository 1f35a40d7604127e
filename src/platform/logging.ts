/**
 * The process's one pino logger: its options (level, redaction, serializers; STYLE §2.10), its
 * destinations, and the lazy per-request child logger.
 *
 * Redaction and serializers run in the logger, before a line reaches any destination, so every
 * destination (JSON, pretty, a log file, Sentry) gets the same redacted line.
 */
import type { FastifyBaseLogger, FastifyServerOptions, FastifyRequest } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type LevelWithSilent, type StreamEntry } from 'pino';
import type { LogFileSettings } from './log-files.js';
import type { SentrySettings } from './sentry.js';

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

/**
 * Request headers with the URL-bearing ones redacted as the request URL is: a browser sends the
 * page it came from as `Referer`, so a page reached by a mailed link (`/account/reset/finish?key=`,
 * `/activate?key=`) or an OAuth redirect (`?code=`) would otherwise put the key into the log of
 * every request that page makes (its style sheet, its form). The credential headers are redacted
 * by the logger's `redact` paths.
 */
export function redactedHeaders(headers: FastifyRequest['headers']): FastifyRequest['headers'] {
  const referer = headers.referer;
  if (typeof referer !== 'string') return headers;
  return { ...headers, referer: redactedUrl(referer) };
}

type SerializedError = ReturnType<typeof stdSerializers.err>;

/**
 * pino options for Fastify's logger. `stream` is where lines go (`logStream`); without it pino
 * writes JSON to stdout (tests add their own stream).
 */
export function loggerOptions(level: string, stream?: DestinationStream): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
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
          headers: redactedHeaders(req.headers),
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

/** `json`: one JSON object per line, for machines. `pretty`: pino-pretty's readable lines, for people. */
export type LogFormat = 'json' | 'pretty';

/**
 * The settings the log destinations are chosen by (`LOG_LEVEL`, `LOG_FORMAT`, `PROFILE`, the log
 * files' `LOGS_*` and Sentry's `SENTRY_*`).
 */
export interface LogSettings extends Partial<Omit<LogFileSettings, 'logsDir'> & Omit<SentrySettings, 'sentryDsn'>> {
  logLevel: LevelWithSilent;
  /** Unset: `logFormatOf` decides. */
  logFormat: LogFormat | undefined;
  profile: 'dev' | 'prod';
  /** Unset: no log files. */
  logsDir?: string | undefined;
  /** Unset: no Sentry. */
  sentryDsn?: string | undefined;
}

/**
 * `LOG_FORMAT` when set; otherwise pretty for a person at a terminal in the dev profile, and JSON
 * wherever a machine reads the output (prod, pipes, files, containers).
 */
export function logFormatOf(settings: LogSettings, stdoutIsTTY: boolean): LogFormat {
  return settings.logFormat ?? (settings.profile === 'dev' && stdoutIsTTY ? 'pretty' : 'json');
}

/**
 * pino-pretty in this thread, as a synchronous stream: pino hands it one JSON line per write and
 * it writes the formatted entry at once. Not a pino transport (a worker thread): that costs a
 * thread and its start-up, loses the last lines when the process exits abruptly, and lets them
 * arrive after the start-up banner that main.ts writes to stdout directly. Dev throughput does
 * not need the worker. pino-pretty is imported here only, so a JSON-logging process never loads it.
 */
export async function prettyStream(out: { write(text: string): unknown } = process.stdout): Promise<DestinationStream> {
  const { prettyFactory } = await import('pino-pretty');
  // Colours follow the terminal (off for pipes, files, NO_COLOR), as pino-pretty decides by default.
  const pretty = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return { write: (line: string) => { out.write(pretty(line)); } };
}

/**
 * Where the log lines go: one entry per destination, each with its own minimum level: the
 * console, the log files when `LOGS_DIR` is set, Sentry when `SENTRY_DSN` is set.
 */
export async function logDestinations(settings: LogSettings, stdoutIsTTY = process.stdout.isTTY === true): Promise<StreamEntry<LevelWithSilent>[]> {
  const level = settings.logLevel;
  const destinations: StreamEntry<LevelWithSilent>[] = logFormatOf(settings, stdoutIsTTY) === 'pretty'
    ? [{ level, stream: await prettyStream() }]
    // The stream pino builds by default for stdout (asynchronous SonicBoom, flushed at exit):
    // the JSON path writes exactly as it did without a destination list.
    : [{ level, stream: pino.destination({ dest: 1, sync: false }) }];
  if (settings.logsDir) {
    // Imported here only, as pino-pretty: a process without log files never loads pino-roll.
    const { logFileDestinations } = await import('./log-files.js');
    destinations.push(...await logFileDestinations({ logsDir: settings.logsDir, logsMaxFileSize: settings.logsMaxFileSize ?? 10 * 1024 * 1024, logsMaxHistory: settings.logsMaxHistory ?? 60 }, level));
  }
  if (settings.sentryDsn) {
    const { sentryDestination } = await import('./sentry.js');
    destinations.push(sentryDestination(settings.sentryLogLevel ?? 'error'));
  }
  return destinations;
}

/** A destination that holds a resource (a file, a queue of Sentry events) to release at close. */
export interface ClosableStream extends DestinationStream {
  close(): Promise<void>;
}

/**
 * Writes out what the destinations still buffer and closes the files among them (`onClose`).
 * The console stream stays open: main.ts and close-with-grace may still write to it.
 */
export async function closeLogDestinations(destinations: StreamEntry<LevelWithSilent>[]): Promise<void> {
  await Promise.all(destinations.map(async ({ stream }) => {
    const closable = stream as Partial<ClosableStream>;
    if (typeof closable.close === 'function') await closable.close();
  }));
}

/**
 * One stream for a logger at `level`. A single destination at that level is used as it is:
 * `pino.multistream` checks levels and copies the line's metadata on every write, so it is only
 * paid for when destinations differ (two or more, or one with a level of its own).
 */
export function logStream(destinations: StreamEntry<LevelWithSilent>[], level: LevelWithSilent): DestinationStream {
  const [only, ...others] = destinations;
  if (only && others.length === 0 && (only.level ?? level) === level) return only.stream;
  // A destination at the logger's level follows the logger: it takes whatever the loggers let
  // through, so a level lowered at run time (`LogLevels`) reaches it too. One with a level of
  // its own (Sentry's, a test's) keeps it.
  return pino.multistream(destinations.map((d) => ((d.level ?? level) === level ? { ...d, level: 'trace' as const } : d)));
}

/** Spring Boot's log levels, most verbose last, as its loggers endpoint lists them. */
export const SPRING_LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'] as const;
export type SpringLevel = typeof SPRING_LEVELS[number];

const toPino = (level: SpringLevel): LevelWithSilent => (level === 'OFF' ? 'silent' : level.toLowerCase() as LevelWithSilent);
const toSpring = (level: string): SpringLevel => (level === 'silent' ? 'OFF' : level.toUpperCase() as SpringLevel);

/** A level as a client spells it (`debug`, `DEBUG`), or undefined when it is none of Spring's. */
export function springLevel(text: string): SpringLevel | undefined {
  const upper = text.toUpperCase();
  return (SPRING_LEVELS as readonly string[]).includes(upper) ? upper as SpringLevel : undefined;
}

/** The name of the root logger, as logback and Spring Boot call it. */
export const ROOT_LOGGER = 'ROOT';

export interface LoggerLevel {
  name: string;
  /** Set at run time (ROOT: always, its current level); null: it follows ROOT. */
  configuredLevel: SpringLevel | null;
  effectiveLevel: SpringLevel;
}

/**
 * The service's named loggers: ROOT (the process's logger; requests log through it) and one per
 * log component (the `component` field of the lines: `management`, `scheduler`, `github` …), so
 * their levels can be read and changed at run time, as Spring Boot's loggers endpoint does.
 *
 * pino copies a child's level when the child is made, so a change to the root reaches no
 * existing child by itself; the registry therefore keeps every component logger it made and sets
 * their levels itself. A component without a level of its own follows ROOT. Loggers made from a
 * component logger later (the scheduler's per-tick loggers) take its level when they are made.
 * Changes apply to this process only.
 */
export class LogLevels {
  readonly #root: FastifyBaseLogger;
  readonly #startLevel: string;
  /** ROOT's level, kept here too: a disabled logger (`logger: false`) has none of its own. */
  #rootLevel: string;
  readonly #components = new Map<string, { loggers: FastifyBaseLogger[]; configured: SpringLevel | null }>();

  constructor(root: FastifyBaseLogger) {
    this.#root = root;
    this.#startLevel = typeof root.level === 'string' ? root.level : 'info';
    this.#rootLevel = this.#startLevel;
  }

  /** The logger of a component (one per call site; all of a name share its level). */
  component(name: string): FastifyBaseLogger {
    let entry = this.#components.get(name);
    if (!entry) this.#components.set(name, entry = { loggers: [], configured: null });
    const log = this.#root.child({ component: name });
    if (entry.configured) log.level = toPino(entry.configured);
    entry.loggers.push(log);
    return log;
  }

  /** ROOT first, then the components by name. */
  list(): LoggerLevel[] {
    const names = [...this.#components.keys()].sort();
    return [ROOT_LOGGER, ...names].map((name) => this.get(name)!);
  }

  /** A logger's levels; undefined for a name that is no logger (ROOT matches in any case). */
  get(name: string): LoggerLevel | undefined {
    const root = toSpring(this.#rootLevel);
    if (name.toUpperCase() === ROOT_LOGGER) return { name: ROOT_LOGGER, configuredLevel: root, effectiveLevel: root };
    const entry = this.#components.get(name);
    if (!entry) return undefined;
    return { name, configuredLevel: entry.configured, effectiveLevel: entry.configured ?? root };
  }

  /**
   * Sets a logger's level; null gives a component ROOT's level again and ROOT the level it
   * started with. Returns the logger's levels after the change, undefined for an unknown name.
   */
  set(name: string, level: SpringLevel | null): LoggerLevel | undefined {
    if (name.toUpperCase() === ROOT_LOGGER) {
      this.#rootLevel = level ? toPino(level) : this.#startLevel;
      this.#root.level = this.#rootLevel;
      for (const entry of this.#components.values()) {
        if (!entry.configured) for (const log of entry.loggers) log.level = this.#rootLevel;
      }
      return this.get(ROOT_LOGGER);
    }
    const entry = this.#components.get(name);
    if (!entry) return undefined;
    entry.configured = level;
    for (const log of entry.loggers) log.level = level ? toPino(level) : this.#rootLevel;
    return this.get(name);
  }
}

/** A logger's level was changed at run time (platform event `logger.level`). */
export interface LoggerLevelChanged {
  logger: string;
  /** The level asked for; null: reset. */
  configuredLevel: SpringLevel | null;
  effectiveLevel: SpringLevel;
  /** Who changed it: a user's login, or the actuator's admin user. */
  actor: string;
  /** Where: `actuator` or `management`. */
  via: string;
}

/** The platform's own events and their payloads (domains subscribe through a typed view). */
export type PlatformEvents = { 'logger.level': LoggerLevelChanged };

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
