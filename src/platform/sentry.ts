/**
 * Error reporting to Sentry (`SENTRY_DSN`), as the reference's logback `SentryAppender` does it:
 * every log record at or above `SENTRY_LOG_LEVEL` becomes one Sentry event, with the record's
 * message, level, error and stack. Unhandled 5xx errors reach Sentry this way too: the error
 * handler (platform/errors.ts) logs them at `error` with the request's method and route.
 *
 * Sentry is a log destination, not a second error path: the record it gets is the one every
 * destination gets, already redacted by the logger. The SDK's default integrations stay off (they
 * would attach request headers, cookies and URLs with query strings); `beforeSend` removes request
 * data as a second guard, so no header, cookie or token leaves the process.
 *
 * `initSentry` runs first in main.ts (before the app is imported), as the SDK asks; `buildApp`
 * calls it again (a no-op then) so that tests building the app in-process report as well. The
 * SDK's client is the process's: two apps in one process report through the same one.
 */
import * as Sentry from '@sentry/node';
import type { LevelWithSilent, StreamEntry } from 'pino';
import { redactedUrl, type ClosableStream } from './logging.js';

/** The lowest level reported (`SENTRY_LOG_LEVEL`). */
export type SentryLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface SentrySettings {
  sentryDsn: string;
  sentryLogLevel: SentryLogLevel;
}

/** What the SDK is told about this process besides the DSN. */
export interface SentryRelease {
  /** The profile (`dev`, `prod`), Sentry's `environment`. */
  profile: string;
  /** The package version, Sentry's `release`. */
  version: string;
}

/** Initialises the Sentry SDK once per process and DSN; a later call with the same DSN keeps the client. */
export function initSentry(settings: SentrySettings & SentryRelease): void {
  if (Sentry.isInitialized() && Sentry.getClient()?.getOptions().dsn === settings.sentryDsn) return;
  Sentry.init({
    dsn: settings.sentryDsn,
    environment: settings.profile,
    release: `radar-platform@${settings.version}`,
    dataCollection: { userInfo: false, cookies: false, httpHeaders: false, httpBodies: [], urlQueryParams: false, databaseQueryData: false, queues: false },
    defaultIntegrations: false,
    enableRuntimeChannelInjection: false,
    beforeSend(event) {
      if (event.request) event.request = { method: event.request.method, url: event.request.url && redactedUrl(event.request.url) };
      return event;
    },
  });
}

/** Writes out the events still queued, waiting at most `timeoutMs` (`onClose`). */
export async function flushSentry(timeoutMs = 2000): Promise<void> {
  await Sentry.flush(timeoutMs);
}

type SentryLevel = 'fatal' | 'error' | 'warning' | 'info' | 'debug';

/** pino's numeric levels as Sentry's. */
function sentryLevel(level: number): SentryLevel {
  if (level >= 60) return 'fatal';
  if (level >= 50) return 'error';
  if (level >= 40) return 'warning';
  if (level >= 30) return 'info';
  return 'debug';
}

interface LoggedError { type?: string; message?: string; stack?: string }

/** Fields of a record that are pino's own or said elsewhere in the event. */
const NOT_EXTRA = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'method', 'route', 'component']);

/** One pino record (a JSON line) as a Sentry event. */
export function eventOf(record: Record<string, unknown>): Sentry.Event {
  const err = record.err as LoggedError | undefined;
  const message = typeof record.msg === 'string' ? record.msg : err?.message ?? '';
  const tags: Record<string, string> = {};
  for (const key of ['method', 'route', 'component']) {
    if (typeof record[key] === 'string') tags[key] = record[key];
  }
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (NOT_EXTRA.has(key)) continue;
    // A request or reply as the logger serialises it: its headers stay out of Sentry.
    if (value !== null && typeof value === 'object' && 'headers' in value) {
      const { headers: _headers, ...rest } = value as Record<string, unknown>;
      extra[key] = rest;
    } else {
      extra[key] = value;
    }
  }
  const event: Sentry.Event = {
    message,
    level: sentryLevel(typeof record.level === 'number' ? record.level : 50),
    logger: typeof record.component === 'string' ? record.component : 'radar-platform',
    tags,
    extra,
  };
  if (typeof record.time === 'number') event.timestamp = record.time / 1000;
  if (err) {
    event.exception = {
      values: [{
        type: err.type ?? 'Error',
        value: err.message ?? message,
        ...(err.stack ? { stacktrace: { frames: Sentry.defaultStackParser(err.stack) } } : {}),
      }],
    };
  }
  return event;
}

/** The log destination that reports each record at or above `level` to Sentry. */
export function sentryDestination(level: SentryLogLevel): StreamEntry<LevelWithSilent> {
  const stream: ClosableStream = {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // pino writes JSON; anything else is not a record
      }
      Sentry.captureEvent(eventOf(record));
    },
    close: () => flushSentry(),
  };
  return { level, stream };
}
