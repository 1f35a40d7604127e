/**
 * Every setting of the service, read from the environment.
 *
 * One table (`settings`) declares each setting once: its canonical environment name (the one the
 * README lists), the Spring property it replaces in the reference services (if any), its type,
 * bounds and default. For drop-in compatibility a Spring-backed setting is also read under every
 * name the reference deployments use:
 *  - the environment form of the property, with and without `_` between camelCase words
 *    (`managementportal.common.baseUrl` → `MANAGEMENTPORTAL_COMMON_BASEURL` and `…_BASE_URL`);
 *  - the property path inside `SPRING_APPLICATION_JSON` (nested objects or dotted keys, in
 *    camelCase or kebab-case), which, as in Spring Boot, wins over plain environment variables.
 *
 * `loadConfig` collects every invalid value and throws one `ConfigError` whose lines each name
 * the variable and the rule it broke.
 */

type Env = Record<string, string | undefined>;

interface Setting<T> {
  /** Canonical environment variable (listed in the README). */
  env: string;
  /** The reference's Spring property, when there is one. */
  spring?: string;
  /** Further environment names read as-is. */
  aliases?: readonly string[];
  /** Used when no name is set. `undefined` leaves the setting unset. */
  default: T | undefined;
  /** One line for the README table. */
  doc: string;
  parse(raw: string): T;
}

class InvalidValue extends Error {}

function str(doc: string, opts: { default?: string; spring?: string; aliases?: string[] } = {}): Omit<Setting<string>, 'env'> {
  return { doc, default: opts.default, spring: opts.spring, aliases: opts.aliases, parse: (raw) => raw };
}

function int(doc: string, opts: { default?: number; min?: number; max?: number; spring?: string; aliases?: string[] }): Omit<Setting<number>, 'env'> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = opts;
  return {
    doc, default: opts.default, spring: opts.spring, aliases: opts.aliases,
    parse(raw) {
      const trimmed = raw.trim();
      if (!/^-?\d+$/.test(trimmed)) throw new InvalidValue(`must be an integer, got "${raw}"`);
      const value = Number(trimmed);
      if (value < min || value > max) throw new InvalidValue(`must be between ${min} and ${max}, got ${value}`);
      return value;
    },
  };
}

function bool(doc: string, opts: { default: boolean; spring?: string; aliases?: string[] }): Omit<Setting<boolean>, 'env'> {
  return {
    doc, default: opts.default, spring: opts.spring, aliases: opts.aliases,
    parse(raw) {
      const value = raw.trim().toLowerCase();
      if (value === 'true' || value === '1' || value === 'yes') return true;
      if (value === 'false' || value === '0' || value === 'no') return false;
      throw new InvalidValue(`must be true or false, got "${raw}"`);
    },
  };
}

function oneOf<const T extends string>(doc: string, values: readonly T[], opts: { default?: T; spring?: string; aliases?: string[] }): Omit<Setting<T>, 'env'> {
  return {
    doc, default: opts.default, spring: opts.spring, aliases: opts.aliases,
    parse(raw) {
      const value = raw.trim().toLowerCase();
      const found = values.find((v) => v.toLowerCase() === value);
      if (found === undefined) throw new InvalidValue(`must be one of ${values.join(', ')}, got "${raw}"`);
      return found;
    },
  };
}

function contextPath(doc: string, def: string, spring?: string): Omit<Setting<string>, 'env'> {
  return {
    doc, default: def, spring,
    parse(raw) {
      const value = raw.trim().replace(/\/+$/, '');
      if (value !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(value)) throw new InvalidValue(`must be empty or a path starting with "/", got "${raw}"`);
      return value;
    },
  };
}

function withEnv<T>(env: string, s: Omit<Setting<T>, 'env'>): Setting<T> {
  return { env, ...s };
}

/** The table of settings. Add a setting here and it is read, validated and typed. */
export const settings = {
  profile: withEnv('PROFILE', oneOf('`dev` (embedded PGlite, demo data) or `prod`', ['dev', 'prod'], { default: 'dev', spring: 'spring.profiles.active' })),
  host: withEnv('HOST', str('Address the HTTP server binds to', { default: '0.0.0.0', spring: 'server.address' })),
  port: withEnv('PORT', int('HTTP port', { default: 8080, min: 0, max: 65535, spring: 'server.port' })),
  databaseUrl: withEnv('DATABASE_URL', str('PostgreSQL URL (`postgres://user:pass@host:5432/db`); selects PostgreSQL in either profile', {})),
  springDatasourceUrl: withEnv('SPRING_DATASOURCE_URL', str('Reference form of the database: a `jdbc:postgresql://` URL', { spring: 'spring.datasource.url' })),
  springDatasourceUsername: withEnv('SPRING_DATASOURCE_USERNAME', str('User for `SPRING_DATASOURCE_URL`', { spring: 'spring.datasource.username' })),
  springDatasourcePassword: withEnv('SPRING_DATASOURCE_PASSWORD', str('Password for `SPRING_DATASOURCE_URL`', { spring: 'spring.datasource.password' })),
  databasePoolSize: withEnv('DATABASE_POOL_SIZE', int('Maximum PostgreSQL connections of this process', { default: 10, min: 1, max: 1000, spring: 'spring.datasource.hikari.maximumPoolSize' })),
  bootWaitSeconds: withEnv('BOOT_WAIT_SECONDS', int('How long start-up retries the PostgreSQL connection before failing', { default: 10, min: 0, max: 3600 })),
  httpBodyLimitBytes: withEnv('HTTP_BODY_LIMIT_BYTES', int('Largest accepted request body; larger ones get 413', { default: 10 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 })),
  shutdownTimeoutSeconds: withEnv('SHUTDOWN_TIMEOUT_SECONDS', int('How long a graceful shutdown waits for in-flight requests', { default: 10, min: 0, max: 600 })),
  logLevel: withEnv('LOG_LEVEL', oneOf('trace, debug, info, warn, error, fatal or silent', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], { default: 'info', spring: 'logging.level.root' })),
  adminUser: withEnv('RADAR_ADMIN_USER', str('User name for the admin endpoints (`/actuator/*` but health and info)', { default: 'radar', spring: 'radar.admin.user' })),
  adminPassword: withEnv('RADAR_ADMIN_PASSWORD', str('Password for the admin endpoints; required in prod (dev default `radar`)', { spring: 'radar.admin.password' })),
  smtpUrl: withEnv('SMTP_URL', str('Mail server, `smtp://user:pass@host:port` (or `smtps://`)', {})),
  springMailHost: withEnv('SPRING_MAIL_HOST', str('Reference form of the mail server host', { spring: 'spring.mail.host' })),
  springMailPort: withEnv('SPRING_MAIL_PORT', int('Reference form of the mail server port', { min: 1, max: 65535, spring: 'spring.mail.port' })),
  springMailUsername: withEnv('SPRING_MAIL_USERNAME', str('Reference form of the mail user', { spring: 'spring.mail.username' })),
  springMailPassword: withEnv('SPRING_MAIL_PASSWORD', str('Reference form of the mail password', { spring: 'spring.mail.password' })),
  appserverContextPath: withEnv('APPSERVER_CONTEXT_PATH', contextPath('Path prefix of the app server API (empty: server root)', '')),
  managementportalContextPath: withEnv('MANAGEMENTPORTAL_CONTEXT_PATH', contextPath('Path prefix of the management portal', '/managementportal')),
  trustProxy: withEnv('TRUST_PROXY', bool('Honour `X-Forwarded-*` headers from a reverse proxy', { default: false, spring: 'server.forwardHeadersStrategy' })),
} as const;

type Settings = typeof settings;
type Values = { [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T | undefined : never };
type Defaulted<K extends keyof Settings> = Settings[K]['default'] extends undefined ? Values[K] : NonNullable<Values[K]>;
type RawConfig = { [K in keyof Settings]: Defaulted<K> };

export type DatabaseConfig =
  | { kind: 'pglite' }
  | { kind: 'postgres'; url: string; username?: string; password?: string; poolSize: number };

export interface Config extends Omit<RawConfig, 'databaseUrl' | 'springDatasourceUrl' | 'springDatasourceUsername' | 'springDatasourcePassword' | 'adminPassword' | 'smtpUrl' | 'springMailHost' | 'springMailPort' | 'springMailUsername' | 'springMailPassword' | 'databasePoolSize'> {
  database: DatabaseConfig;
  adminPassword: string;
  /** nodemailer transport URL, or undefined when no mail server is configured. */
  smtpUrl: string | undefined;
  /** Version from package.json, for /actuator/info. */
  version: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** `fooBarBaz-qux` → segments of a Spring property name, split at camelCase and dashes. */
function words(segment: string): string[] {
  return segment.split(/[-_]/).flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])/)).filter(Boolean);
}

/** Every environment name Spring's relaxed binding (and the reference READMEs) use for a property. */
export function envNamesOf(property: string): string[] {
  const segments = property.split('.');
  let names = [''];
  for (const segment of segments) {
    const w = words(segment).map((x) => x.toUpperCase());
    const forms = [...new Set([w.join(''), w.join('_')])];
    names = names.flatMap((prefix) => forms.map((form) => (prefix ? `${prefix}_${form}` : form)));
  }
  return names;
}

const normalizeKey = (key: string): string => key.split('.').map((s) => s.replace(/[-_]/g, '').toLowerCase()).join('.');

/** Flattens `SPRING_APPLICATION_JSON` into normalized dotted keys → string values. */
function flattenSpringJson(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  const parsed: unknown = JSON.parse(raw);
  const walk = (value: unknown, path: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    } else if (value !== null && value !== undefined && path) {
      out.set(normalizeKey(path), Array.isArray(value) ? value.join(',') : String(value));
    }
  };
  walk(parsed, '');
  return out;
}

/** Where a setting's value came from, so error messages name what the operator wrote. */
interface Found { name: string; raw: string }

function lookup(setting: Setting<unknown>, env: Env, springJson: Map<string, string>): Found | undefined {
  if (setting.spring) {
    const fromJson = springJson.get(normalizeKey(setting.spring));
    if (fromJson !== undefined) return { name: `SPRING_APPLICATION_JSON ${setting.spring}`, raw: fromJson };
  }
  const names = [setting.env, ...(setting.aliases ?? []), ...(setting.spring ? envNamesOf(setting.spring) : [])];
  for (const name of names) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') return { name, raw };
  }
  return undefined;
}

/** Converts the reference's `jdbc:postgresql://host:port/db?…` into a postgres:// URL. */
export function jdbcToPostgresUrl(jdbc: string): string {
  const match = /^jdbc:postgresql:\/\/(.+)$/i.exec(jdbc.trim());
  if (!match?.[1]) throw new InvalidValue(`must be a jdbc:postgresql:// URL, got "${jdbc}"`);
  return `postgres://${match[1]}`;
}

function checkPostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidValue(`must be a postgres:// URL, got "${url}"`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new InvalidValue(`must be a postgres:// URL, got "${url}"`);
  return url;
}

export function loadConfig(env: Env, version = '0.0.0'): Config {
  const problems: string[] = [];
  let springJson = new Map<string, string>();
  if (env.SPRING_APPLICATION_JSON) {
    try {
      springJson = flattenSpringJson(env.SPRING_APPLICATION_JSON);
    } catch (err) {
      problems.push(`SPRING_APPLICATION_JSON: must be a JSON object (${(err as Error).message})`);
    }
  }

  const raw: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const found = lookup(setting, env, springJson);
    if (!found) {
      raw[key] = setting.default;
      continue;
    }
    try {
      raw[key] = setting.parse(found.raw);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      problems.push(`${found.name}: ${err.message}`);
    }
  }
  const values = raw as RawConfig;
  const prod = values.profile === 'prod';

  let database: DatabaseConfig = { kind: 'pglite' };
  try {
    if (values.databaseUrl) {
      database = { kind: 'postgres', url: checkPostgresUrl(values.databaseUrl), poolSize: values.databasePoolSize };
    } else if (values.springDatasourceUrl) {
      database = {
        kind: 'postgres',
        url: jdbcToPostgresUrl(values.springDatasourceUrl),
        username: values.springDatasourceUsername,
        password: values.springDatasourcePassword,
        poolSize: values.databasePoolSize,
      };
    } else if (prod) {
      problems.push('DATABASE_URL: required in the prod profile (or SPRING_DATASOURCE_URL)');
    }
  } catch (err) {
    if (!(err instanceof InvalidValue)) throw err;
    problems.push(`${values.databaseUrl ? 'DATABASE_URL' : 'SPRING_DATASOURCE_URL'}: ${err.message}`);
  }

  let adminPassword = values.adminPassword;
  if (!adminPassword) {
    if (prod) problems.push('RADAR_ADMIN_PASSWORD: required in the prod profile');
    adminPassword = 'radar';
  } else if (prod && adminPassword === 'radar') {
    problems.push('RADAR_ADMIN_PASSWORD: the dev default "radar" is not allowed in the prod profile');
  }

  let smtpUrl = values.smtpUrl;
  if (smtpUrl) {
    if (!/^smtps?:\/\//i.test(smtpUrl)) problems.push(`SMTP_URL: must be an smtp:// or smtps:// URL, got "${smtpUrl}"`);
  } else if (values.springMailHost) {
    const auth = values.springMailUsername
      ? `${encodeURIComponent(values.springMailUsername)}${values.springMailPassword ? `:${encodeURIComponent(values.springMailPassword)}` : ''}@`
      : '';
    smtpUrl = `smtp://${auth}${values.springMailHost}:${values.springMailPort ?? 25}`;
  }

  if (problems.length > 0) throw new ConfigError(problems);

  const {
    databaseUrl: _a, springDatasourceUrl: _b, springDatasourceUsername: _c, springDatasourcePassword: _d,
    springMailHost: _e, springMailPort: _f, springMailUsername: _g, springMailPassword: _h, databasePoolSize: _i,
    ...rest
  } = values;
  return { ...rest, database, adminPassword, smtpUrl, version };
}

/** Rows for the README's configuration table: canonical name, default, meaning. */
export function settingsTable(): { env: string; default: string; doc: string; spring?: string }[] {
  return Object.values(settings).map((s: Setting<unknown>) => ({
    env: s.env,
    default: s.default === undefined ? '' : String(s.default),
    doc: s.doc,
    spring: s.spring,
  }));
}
