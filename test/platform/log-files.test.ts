/**
 * Log files under LOGS_DIR (platform/log-files.ts): all lines and errors alone, rotated at
 * LOGS_MAX_FILE_SIZE and daily, LOGS_MAX_HISTORY kept; the directory created or the start refused.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/config.js';
import { closeLogDestinations, loggerOptions, logStream } from '../../src/platform/logging.js';
import { logFileDestinations } from '../../src/platform/log-files.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'radar-logs-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

/** The files in `dir` by kind, sorted. */
function files(dir: string): { all: string[]; errors: string[] } {
  const names = readdirSync(dir).sort();
  return {
    all: names.filter((name) => /^radar-appserver\.\d{4}-\d\d-\d\d\.\d+\.log$/.test(name)),
    errors: names.filter((name) => /^radar-appserver-error\.\d{4}-\d\d-\d\d\.\d+\.log$/.test(name)),
  };
}

/** A file's text, or nothing when a rotation has just deleted it. */
function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/**
 * Waits until a log file in `dir` holds `text`, as the next line of a server would come in a later
 * turn of the event loop: a file rolls between writes. Polls with setImmediate, which the midnight test's fake clock leaves real.
 */
async function written(dir: string, text: string): Promise<void> {
  for (let i = 0; i < 100_000; i++) {
    // A turn first: a file rolls after the write that filled it, on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    if (readdirSync(dir).some((name) => readIfThere(join(dir, name)).includes(text))) return;
  }
  throw new Error(`no log file in ${dir} holds ${text}`);
}

const messages = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).msg as string);

/** A logger writing to the log files only, as buildApp wires it. */
async function fileLogger(dir: string, env: Record<string, string> = {}) {
  const config = loadConfig({ LOGS_DIR: dir, ...env });
  const destinations = await logFileDestinations(
    { logsDir: config.logsDir!, logsMaxFileSize: config.logsMaxFileSize, logsMaxHistory: config.logsMaxHistory }, config.logLevel);
  const log = pino(loggerOptions(config.logLevel) as pino.LoggerOptions, logStream(destinations, config.logLevel));
  return { log, close: () => closeLogDestinations(destinations) };
}

describe('the LOGS_* settings', () => {
  it('read sizes with k, m or g, default 10m and 60 files', () => {
    expect(loadConfig({}).logsMaxFileSize).toBe(10 * 1024 * 1024);
    expect(loadConfig({}).logsMaxHistory).toBe(60);
    expect(loadConfig({ LOGS_MAX_FILE_SIZE: '500k' }).logsMaxFileSize).toBe(500 * 1024);
    expect(loadConfig({ LOGS_MAX_FILE_SIZE: '2G' }).logsMaxFileSize).toBe(2 * 1024 ** 3);
    expect(loadConfig({ LOGS_MAX_FILE_SIZE: '10MB' }).logsMaxFileSize).toBe(10 * 1024 ** 2);
    expect(loadConfig({}).logsDir).toBeUndefined();
  });

  it('refuse a size without a number or below 1k, naming the variable', () => {
    expect(() => loadConfig({ LOGS_MAX_FILE_SIZE: 'big' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOGS_MAX_FILE_SIZE: 'big' })).toThrow('LOGS_MAX_FILE_SIZE: must be a size such as 10m, 500k or 1g (at least 1k), got "big"');
    expect(() => loadConfig({ LOGS_MAX_FILE_SIZE: '10' })).toThrow('LOGS_MAX_FILE_SIZE');
    expect(() => loadConfig({ LOGS_MAX_HISTORY: '0' })).toThrow('LOGS_MAX_HISTORY: must be between 1 and 100000, got 0');
  });
});

describe('log files', () => {
  it('hold every line at LOG_LEVEL, and the errors alone in the error file', async () => {
    const dir = tempDir();
    const { log, close } = await fileLogger(dir, { LOG_LEVEL: 'debug' });
    log.trace('not at this level');
    log.debug('one');
    log.info('two');
    log.error({ err: new Error('broken') }, 'three');
    log.fatal('four');
    await close();
    const { all, errors } = files(dir);
    expect(all).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(messages(join(dir, all[0]!))).toEqual(['one', 'two', 'three', 'four']);
    expect(messages(join(dir, errors[0]!))).toEqual(['three', 'four']);
    expect(readFileSync(join(dir, errors[0]!), 'utf8')).toContain('broken');
  });

  it('are rotated at LOGS_MAX_FILE_SIZE, keeping LOGS_MAX_HISTORY files of each kind', async () => {
    const dir = tempDir();
    const { log, close } = await fileLogger(dir, { LOGS_MAX_FILE_SIZE: '1k', LOGS_MAX_HISTORY: '3' });
    const padding = 'x'.repeat(200);
    // About 300 bytes a line: ~40 files' worth, each rotation after the write that passes 1 KiB.
    for (let i = 0; i < 120; i++) {
      log.info({ padding }, `line ${i}`);
      await written(dir, `"line ${i}"`);
    }
    log.error('the only error');
    await close();
    // Old files are removed in the background after a rotation.
    await vi.waitFor(() => expect(files(dir).all).toHaveLength(3));
    const { all, errors } = files(dir);
    expect(all.map((name) => Number(name.split('.')[2])).sort((a, b) => a - b).slice(-1)[0]).toBeGreaterThan(10);
    // The newest files hold the last lines, each file at most about 1 KiB plus one line.
    const kept = all.flatMap((name) => messages(join(dir, name)));
    expect(kept).toContain('line 119');
    expect(kept).not.toContain('line 0');
    for (const name of all) expect(readFileSync(join(dir, name)).length).toBeLessThan(1024 + 400);
    expect(errors).toHaveLength(1);
    expect(messages(join(dir, errors[0]!))).toEqual(['the only error']);
  });

  describe('at midnight', () => {
    afterEach(() => { vi.useRealTimers(); });

    it('start new files named for the new day', async () => {
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      vi.setSystemTime(new Date(2026, 0, 31, 23, 59, 0));
      const dir = tempDir();
      const { log, close } = await fileLogger(dir);
      log.info('before midnight');
      log.error('an error before midnight');
      await written(dir, 'an error before midnight');
      await vi.advanceTimersByTimeAsync(2 * 60 * 1000);
      await vi.waitFor(() => expect(files(dir).all).toHaveLength(2));
      log.info('after midnight');
      await close();
      const { all, errors } = files(dir);
      expect(all).toEqual(['radar-appserver.2026-01-31.1.log', 'radar-appserver.2026-02-01.1.log']);
      expect(messages(join(dir, all[0]!))).toEqual(['before midnight', 'an error before midnight']);
      expect(messages(join(dir, all[1]!))).toEqual(['after midnight']);
      expect(errors).toEqual(['radar-appserver-error.2026-01-31.1.log', 'radar-appserver-error.2026-02-01.1.log']);
    });
  });

  it('continue the day\'s file after a restart', async () => {
    const dir = tempDir();
    const first = await fileLogger(dir);
    first.log.info('first run');
    await first.close();
    const second = await fileLogger(dir);
    second.log.info('second run');
    await second.close();
    const { all } = files(dir);
    expect(all).toHaveLength(1);
    expect(messages(join(dir, all[0]!))).toEqual(['first run', 'second run']);
  });
});

describe('log file modes (issue 28 item 4)', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it('creates LOGS_DIR 0700 and the files (rotated ones too) 0600, whatever the umask lets through', async () => {
    const dir = join(tempDir(), 'new', 'logs');
    const previous = process.umask(0o002);
    try {
      const { log, close } = await fileLogger(dir, { LOGS_MAX_FILE_SIZE: '1k' });
      for (let i = 0; i < 40; i++) log.info({ i, filler: 'x'.repeat(100) }, 'line');
      log.error('an error');
      await written(dir, '"i":39');
      await close();
    } finally {
      process.umask(previous);
    }
    expect(modeOf(dir)).toBe(0o700);
    const { all, errors } = files(dir);
    expect(all.length).toBeGreaterThan(1);
    for (const name of [...all, ...errors]) expect([name, modeOf(join(dir, name))]).toEqual([name, 0o600]);
  });

  it('narrows an existing directory and an earlier run\'s files this user owns', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const first = await fileLogger(dir);
    first.log.info('first run');
    await first.close();
    const [file] = files(dir).all;
    chmodSync(join(dir, file!), 0o644);
    chmodSync(dir, 0o755);
    const second = await fileLogger(dir);
    second.log.info('second run');
    await second.close();
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, file!))).toBe(0o600);
  });
});

describe('the app with LOGS_DIR', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = join(tempDir(), 'created', 'logs');
    // The app's own logger (no test logger): console at LOG_LEVEL and the two files.
    t = await buildTestApp({ LOGS_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, { logger: undefined });
  });

  it('creates the directory and logs requests there, redacted as on the console', async () => {
    await t.app.inject({ method: 'GET', url: '/actuator/health', headers: { authorization: 'Bearer secret-4f1d-token' } });
    await t.app.inject({ method: 'GET', url: '/managementportal/oauth/check_token?token=secret-9a8b-token' });
    await t.close();
    const { all, errors } = files(dir);
    expect(all).toHaveLength(1);
    expect(errors).toHaveLength(1);
    const text = readFileSync(join(dir, all[0]!), 'utf8');
    expect(messages(join(dir, all[0]!))).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(text).toContain('/actuator/health');
    expect(text).toContain('[Redacted]');
    expect(text).not.toContain('secret-4f1d-token');
    expect(text).not.toContain('secret-9a8b-token');
  });

  it('refuses to start when LOGS_DIR cannot be created, naming it', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    await expect(buildTestApp({ LOGS_DIR: join(file, 'logs') }, { logger: undefined })).rejects.toThrow(/^LOGS_DIR: cannot create or write .*a-file\/logs: /);
  });
});
