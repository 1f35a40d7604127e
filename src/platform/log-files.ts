/**
 * Log files under `LOGS_DIR`, as the reference's logback configuration keeps them: every line at
 * `LOG_LEVEL` in `radar-appserver…log`, errors alone in `radar-appserver-error…log`, each rolled
 * daily and when it reaches `LOGS_MAX_FILE_SIZE`, `LOGS_MAX_HISTORY` files of each kept.
 *
 * Files are named `<base>.<yyyy-MM-dd>.<n>.log` (pino-roll): the date is the day the file was
 * started and `n` counts the files of that day. The lines are the JSON the console gets, redacted
 * the same way, since redaction runs in the logger before any destination.
 */
import { accessSync, chmodSync, constants, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LevelWithSilent, StreamEntry } from 'pino';
import pinoRoll from 'pino-roll';
import type { ClosableStream } from './logging.js';

/** The settings of the log files (`LOGS_DIR`, `LOGS_MAX_FILE_SIZE`, `LOGS_MAX_HISTORY`). */
export interface LogFileSettings {
  logsDir: string;
  /** Bytes. */
  logsMaxFileSize: number;
  logsMaxHistory: number;
}

/** The file name bases, after the reference's `radar-appserver.log` and `radar-appserver-error.log`. */
export const LOG_FILE = 'radar-appserver';
export const ERROR_LOG_FILE = 'radar-appserver-error';

/** Thrown when `LOGS_DIR` cannot be created or written; the message names the setting. */
export class LogsDirError extends Error {}

/** Log lines may hold personal data (logins, addresses): only the service's own user reads them. */
export const LOG_DIR_MODE = 0o700;
export const LOG_FILE_MODE = 0o600;

/**
 * Creates `dir` when missing (mode 0700) and checks it is writable, or throws a `LogsDirError`
 * naming `LOGS_DIR`. A directory and log files this user already owns (an earlier run's) are
 * narrowed to 0700 and 0600 too; ones another user owns (a directory the deployment made) keep the
 * mode the deployment gave them.
 */
function prepareDir(dir: string): string {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true, mode: LOG_DIR_MODE });
    accessSync(path, constants.W_OK);
    narrow(path, LOG_DIR_MODE);
    for (const name of readdirSync(path)) {
      if (name.startsWith(`${LOG_FILE}.`) || name.startsWith(`${ERROR_LOG_FILE}.`)) narrow(join(path, name), LOG_FILE_MODE);
    }
  } catch (err) {
    throw new LogsDirError(`LOGS_DIR: cannot create or write ${path}: ${(err as Error).message}`);
  }
  return path;
}

/** chmod `path` to `mode` when this process's user owns it and it allows more. */
function narrow(path: string, mode: number): void {
  const stat = statSync(path);
  if (stat.uid === process.getuid?.() && (stat.mode & 0o777) !== mode) chmodSync(path, mode);
}

/** One rolling file at `level`. */
async function rollingFile(dir: string, base: string, level: LevelWithSilent, settings: LogFileSettings): Promise<StreamEntry<LevelWithSilent>> {
  const stream = await pinoRoll({
    file: join(dir, base),
    extension: '.log',
    dateFormat: 'yyyy-MM-dd',
    frequency: 'daily',
    size: `${settings.logsMaxFileSize}b`,
    // Counted over the directory, so files of earlier runs count too.
    limit: { count: settings.logsMaxHistory, removeOtherLogFiles: true },
    mkdir: true,
    // New files only (each rotation opens one); an earlier run's were narrowed by prepareDir.
    mode: LOG_FILE_MODE,
    // Synchronous writes, as logback's appenders: pino-roll rolls a file only once its buffer has
    // drained, which asynchronous writes under steady load may never let happen.
    sync: true,
  });
  // A full disk or a deleted directory must not crash the service: the console still has the line.
  stream.on('error', (err: Error) => { process.stderr.write(`log file ${join(dir, base)}: ${err.message}\n`); });
  let closed = false;
  const file: ClosableStream = {
    // Lines logged after the app closed (the last shutdown messages) go to the console only.
    write(line: string) { if (!closed) stream.write(line); },
    close: () => new Promise<void>((done) => {
      closed = true;
      stream.once('close', () => done());
      stream.end();
    }),
  };
  return { level, stream: file };
}

/** The two log files' destinations: all lines at `level`, and errors only. */
export async function logFileDestinations(settings: LogFileSettings, level: LevelWithSilent): Promise<StreamEntry<LevelWithSilent>[]> {
  const dir = prepareDir(settings.logsDir);
  return [
    await rollingFile(dir, LOG_FILE, level, settings),
    await rollingFile(dir, ERROR_LOG_FILE, 'error', settings),
  ];
}
