/**
 * The `.env` file read at start (src/dotenv.ts, called by main.ts): as a pure function on a plain
 * object, then once through the built process to prove main.ts reads it before the configuration.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import { loadDotEnv } from '../src/dotenv.js';
import { MAIN, builtService } from './helpers/service-process.js';
import { pgliteProject, requires } from './helpers/requires.js';

const dir = mkdtempSync(join(tmpdir(), 'dotenv-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A dotenv file with `content` in the temp directory; returns its path. */
function envFile(content: string): string {
  const path = join(dir, `${++files}.env`);
  writeFileSync(path, content);
  return path;
}

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadDotEnv', () => {
  it('sets the file\'s variables with Node\'s syntax: comments, quotes, export', () => {
    const path = envFile([
      '# the database',
      'DATABASE_URL=postgres://radar:secret@db:5432/radar',
      'export PROFILE=prod',
      'MANAGEMENTPORTAL_MAIL_FROM="Portal <portal@example.org>"',
      "RADAR_ADMIN_PASSWORD='has # no comment'",
      '',
    ].join('\n'));
    const env: Record<string, string | undefined> = { PATH: '/bin' };
    const set = loadDotEnv(path, env);
    expect(env).toEqual({
      PATH: '/bin',
      DATABASE_URL: 'postgres://radar:secret@db:5432/radar',
      PROFILE: 'prod',
      MANAGEMENTPORTAL_MAIL_FROM: 'Portal <portal@example.org>',
      RADAR_ADMIN_PASSWORD: 'has # no comment',
    });
    expect(set?.sort()).toEqual(['DATABASE_URL', 'MANAGEMENTPORTAL_MAIL_FROM', 'PROFILE', 'RADAR_ADMIN_PASSWORD']);
  });

  it('leaves variables already in the environment as they are, empty ones too (as node --env-file)', () => {
    const path = envFile('PORT=9000\nLOG_LEVEL=debug\nHOST=0.0.0.0\n');
    const env: Record<string, string | undefined> = { PORT: '8081', LOG_LEVEL: '' };
    expect(loadDotEnv(path, env)).toEqual(['HOST']);
    expect(env).toEqual({ PORT: '8081', LOG_LEVEL: '', HOST: '0.0.0.0' });
  });

  it('does nothing when the default file is missing', () => {
    const env = { PORT: '8081' };
    expect(loadDotEnv(join(dir, 'missing.env'), env)).toBeUndefined();
    expect(env).toEqual({ PORT: '8081' });
  });

  it('refuses a missing file that ENV_FILE names', () => {
    const missing = join(dir, 'named-but-missing.env');
    expect(thrown(() => loadDotEnv(missing, {}, { required: true })).problems).toEqual([`ENV_FILE: file not found: ${missing}`]);
  });

  it('refuses a file it cannot read, naming it', () => {
    expect(thrown(() => loadDotEnv(dir, {})).problems).toEqual([`cannot read ${dir}: EISDIR`]);
    const path = envFile('PORT=1\n');
    chmodSync(path, 0o000);
    // root reads any file: then there is nothing to refuse.
    if (process.getuid?.() !== 0) expect(thrown(() => loadDotEnv(path, {})).problems).toEqual([`cannot read ${path}: EACCES`]);
  });
});

const run = promisify(execFile);

/** Runs dist/main.js in `cwd` with `env` (plus PATH); resolves with its exit code and stderr. */
async function start(cwd: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [MAIN], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
}

// No database involved: the PGlite project runs these once.
describe('node dist/main.js', requires(builtService, pgliteProject), () => {
  // Invalid values stop the start before anything listens, so each case ends with exit 78.
  it('reads .env from the working directory before the configuration, real variables winning', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, '.env'), 'PORT=not-a-port\nLOG_LEVEL=loud\n');
    const { code, stderr } = await start(cwd, { LOG_LEVEL: 'info' });
    expect(code).toBe(78);
    expect(stderr).toContain('PORT: must be an integer, got "not-a-port"');
    expect(stderr).not.toContain('LOG_LEVEL');
  });

  it('reads the file ENV_FILE names instead, and none when ENV_FILE is empty', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, '.env'), 'PORT=from-dot-env\n');
    const named = envFile('PORT=from-named-file\n');
    const withNamed = await start(cwd, { ENV_FILE: named });
    expect(withNamed.code).toBe(78);
    expect(withNamed.stderr).toContain('PORT: must be an integer, got "from-named-file"');

    const withMissing = await start(cwd, { ENV_FILE: join(cwd, 'nope.env') });
    expect(withMissing.code).toBe(78);
    expect(withMissing.stderr).toContain(`ENV_FILE: file not found: ${join(cwd, 'nope.env')}`);

    // No file read: the start gets as far as the next invalid setting, which comes from the real environment.
    const withNone = await start(cwd, { ENV_FILE: '', SHUTDOWN_TIMEOUT_SECONDS: 'never' });
    expect(withNone.code).toBe(78);
    expect(withNone.stderr).toContain('SHUTDOWN_TIMEOUT_SECONDS');
    expect(withNone.stderr).not.toContain('PORT');
  });
});
