/**
 * The `.env` file read at start (main.ts), with the semantics of Node's `--env-file` and
 * `process.loadEnvFile`: a variable already in the environment wins, even when it is empty, and
 * the file's syntax is Node's (`util.parseEnv`: `#` comments, quotes, `export KEY=…`).
 */
import { readFileSync } from 'node:fs';
import util from 'node:util';
import { ConfigError } from './config.js';

type Env = Record<string, string | undefined>;

/** The dotenv file main.ts reads unless `ENV_FILE` names another (empty: none). */
export const DEFAULT_ENV_FILE = '.env';

/**
 * Copies the variables of the dotenv file at `path` into `env`, except those `env` already has.
 * Returns the names it set; `undefined` when there is no such file.
 *
 * @throws ConfigError when the file exists but cannot be read, or is `required` (named by
 * `ENV_FILE`) and missing.
 */
export function loadDotEnv(path: string, env: Env, { required = false } = {}): string[] | undefined {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      if (!required) return undefined;
      throw new ConfigError([`ENV_FILE: file not found: ${path}`]);
    }
    throw new ConfigError([`${required ? 'ENV_FILE: ' : ''}cannot read ${path}: ${code ?? (err as Error).message}`]);
  }
  // Node 20.12 and later. Skipping the file on an older Node would start without its settings
  // (a prod deployment on a throw-away database), so that stops the start instead.
  if (typeof util.parseEnv !== 'function') {
    throw new ConfigError([`${required ? 'ENV_FILE: ' : ''}reading ${path} needs Node.js 20.12 or later (this is ${process.version})`]);
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(util.parseEnv(content))) {
    if (env[name] !== undefined || value === undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
