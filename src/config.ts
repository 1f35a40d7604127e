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
import { isIP } from 'node:net';

type Env = Record<string, string | undefined>;

interface Setting<T, D = T | undefined> {
  /** Canonical environment variable (listed in the README). */
  env: string;
  /** The reference's Spring property, when there is one. */
  spring?: string;
  /** Further environment names read as-is. */
  aliases?: readonly string[];
  /** Used when no name is set. `undefined` leaves the setting unset. */
  default: D;
  /** One line for the README table. */
  doc: string;
  parse(raw: string): T;
}

class InvalidValue extends Error {}

interface Opts<T> { default?: T; spring?: string; aliases?: readonly string[] }
/** The type of a builder's `default` option: `undefined` when it is not given. */
type DefaultOf<O> = O extends { default: infer D } ? D : undefined;
type Unnamed<T, O> = Omit<Setting<T, DefaultOf<O>>, 'env'>;

function make<T, O extends Opts<T>>(doc: string, opts: O, parse: (raw: string) => T): Unnamed<T, O> {
  return { doc, default: opts.default as DefaultOf<O>, spring: opts.spring, aliases: opts.aliases, parse };
}

function str<const O extends Opts<string>>(doc: string, opts: O): Unnamed<string, O> {
  return make(doc, opts, (raw) => raw);
}

/** A comma-separated list, blanks dropped (a `SPRING_APPLICATION_JSON` array arrives joined with commas). */
function list<const O extends Opts<readonly string[]>>(doc: string, opts: O): Unnamed<readonly string[], O> {
  return make<readonly string[], O>(doc, opts, (raw) => raw.split(',').map((item) => item.trim()).filter(Boolean));
}

/** An ISO-8601 duration (`PT1H`, `P31D`, `P1DT12H30M`), in whole seconds. */
function duration<const O extends Opts<number>>(doc: string, opts: O): Unnamed<number, O> {
  return make(doc, opts, (raw) => {
    const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(raw.trim());
    if (!m || raw.trim().toUpperCase() === 'P' || /T$/i.test(raw.trim())) throw new InvalidValue(`must be an ISO-8601 duration such as PT1H or P31D, got "${raw}"`);
    const [d, h, min, sec] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number];
    const seconds = ((d * 24 + h) * 60 + min) * 60 + sec;
    if (seconds < 1) throw new InvalidValue(`must be at least one second, got "${raw}"`);
    return seconds;
  });
}

/** A calendar period: ISO-8601 `PnYnMnWnD` with an optional time part (`T12H`), as Java's `Period`/`Duration` write it. */
export interface CalendarPeriod { years: number; months: number; days: number; seconds: number }

function period<const O extends Opts<CalendarPeriod>>(doc: string, opts: O): Unnamed<CalendarPeriod, O> {
  return make(doc, opts, (raw) => {
    const text = raw.trim();
    const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i.exec(text);
    if (!m || /^P$/i.test(text) || /T$/i.test(text)) throw new InvalidValue(`must be an ISO-8601 period such as P90D, P6M or P1Y, got "${raw}"`);
    const [y, mo, w, d, h, min, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number, number];
    const value = { years: y, months: mo, days: w * 7 + d, seconds: (h * 60 + min) * 60 + s };
    if (y + mo + value.days === 0 && value.seconds < 1) throw new InvalidValue(`must be at least one second, got "${raw}"`);
    return value;
  });
}

function int<const O extends Opts<number> & { min?: number; max?: number }>(doc: string, opts: O): Unnamed<number, O> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = opts;
  return make(doc, opts, (raw) => {
    const trimmed = raw.trim();
    if (!/^-?\d+$/.test(trimmed)) throw new InvalidValue(`must be an integer, got "${raw}"`);
    const value = Number(trimmed);
    if (value < min || value > max) throw new InvalidValue(`must be between ${min} and ${max}, got ${value}`);
    return value;
  });
}

/** An ISO-8601 instant with its offset (`2026-12-01T00:00:00Z`), as epoch milliseconds. */
function instant<const O extends Opts<number>>(doc: string, opts: O): Unnamed<number, O> {
  return make(doc, opts, (raw) => {
    const trimmed = raw.trim();
    const ms = Date.parse(trimmed);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) || Number.isNaN(ms)) {
      throw new InvalidValue(`must be an ISO-8601 instant with its offset, such as 2026-12-01T00:00:00Z, got "${raw}"`);
    }
    return ms;
  });
}

/**
 * One of `values`, case-insensitive. `synonyms` maps further spellings (lower case) onto a value,
 * e.g. Spring's log level `off` onto pino's `silent`.
 */
function oneOf<const T extends string, const O extends Opts<T>>(
  doc: string, values: readonly T[], opts: O, synonyms: Readonly<Record<string, T>> = {},
): Unnamed<T, O> {
  return make(doc, opts, (raw) => {
    const value = raw.trim().toLowerCase();
    const found = values.find((v) => v.toLowerCase() === value) ?? synonyms[value];
    if (found === undefined) throw new InvalidValue(`must be one of ${values.join(', ')}, got "${raw}"`);
    return found;
  });
}

/**
 * `dev` or `prod`. Also takes a Spring profile list (`SPRING_PROFILES_ACTIVE=prod,api-docs`, as the
 * reference images set it): `prod` wins when listed, then `dev`; a list naming neither is refused
 * rather than guessed, since guessing `dev` would run a deployment on a throw-away database.
 */
function profile<const O extends Opts<'dev' | 'prod'>>(doc: string, opts: O): Unnamed<'dev' | 'prod', O> {
  return make(doc, opts, (raw) => {
    const names = raw.split(',').map((name) => name.trim().toLowerCase());
    if (names.includes('prod')) return 'prod';
    if (names.includes('dev')) return 'dev';
    throw new InvalidValue(`must be dev or prod (a Spring profile list must include one of them), got "${raw}"`);
  });
}

/** A boolean: `true`/`1`/`yes` or `false`/`0`/`no`, any case. */
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

function bool<const O extends Opts<boolean>>(doc: string, opts: O): Unnamed<boolean, O> {
  const words = BOOLEAN_WORDS;
  return make(doc, opts, (raw) => {
    const value = words[raw.trim().toLowerCase()];
    if (value === undefined) throw new InvalidValue(`must be one of ${Object.keys(words).join(', ')}, got "${raw}"`);
    return value;
  });
}

/**
 * Tomcat's default `internalProxies` (RemoteIpValve; Spring Boot's
 * `server.tomcat.remoteip.internal-proxies`), which the reference trusted under
 * `server.forward-headers-strategy=native`: 10/8, 192.168/16, 169.254/16, 127/8, 100.64/10
 * (carrier-grade NAT), 172.16/12, ::1, fe80::/10 and fc00::/7.
 */
export const TOMCAT_INTERNAL_PROXIES: readonly string[] = [
  '10.0.0.0/8', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12',
  '::1/128', 'fe80::/10', 'fc00::/7',
];

/** Which proxies are trusted: none, all, the nearest N hops, or those at these addresses/CIDRs. */
export type TrustProxy = boolean | number | string[];

/** One trusted-proxy entry: an IP address, a CIDR range, or one of proxy-addr's range names. */
function proxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0 || address.includes('%')) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `TRUST_PROXY` in Fastify's forms: `true`/`false`, a hop count, or a comma list of addresses and
 * CIDR ranges; Spring's `server.forward-headers-strategy` values `native`/`framework` mean
 * Tomcat's default internal proxies, `none` means false.
 */
function trustProxy<const O extends Opts<TrustProxy>>(doc: string, opts: O): Unnamed<TrustProxy, O> {
  return make(doc, opts, (raw): TrustProxy => {
    const value = raw.trim().toLowerCase();
    if (value === 'true') return true;
    if (value === 'false' || value === 'none' || value === '0') return false;
    if (value === 'native' || value === 'framework') return [...TOMCAT_INTERNAL_PROXIES];
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops > 100) throw new InvalidValue(`a hop count must be between 0 and 100, got ${hops}`);
      return hops;
    }
    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    const bad = entries.filter((entry) => !proxyEntry(entry));
    if (entries.length === 0 || bad.length > 0) {
      throw new InvalidValue(`must be true, false, a hop count (e.g. 1) or a comma-separated list of IP addresses and CIDR ranges (e.g. 10.0.0.0/8,::1), got "${raw}"`);
    }
    return entries;
  });
}

/**
 * The `trustProxy` option for Fastify. A hop count becomes a trust function: Fastify 5.12 ignores
 * a number (it trusts no proxy then), and `X-Forwarded-For` entries are trusted from the socket
 * backwards, so with N hops the client is the address the outermost of N proxies appended.
 */
export function fastifyTrustProxy(value: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}

/** `CORS_ALLOWED_ORIGINS`: a comma list of origins (`scheme://host[:port]`, nothing after it), or `*`. */
function originList<const O extends Opts<readonly string[]>>(doc: string, opts: O): Unnamed<readonly string[], O> {
  return make<readonly string[], O>(doc, opts, (raw) => {
    const entries = raw.split(',').map((entry) => entry.trim().replace(/\/+$/, '')).filter(Boolean);
    const bad = entries.filter((entry) => entry !== '*' && !(/^https?:\/\/[^/?#@]+$/i.test(entry) && URL.canParse(entry)));
    if (bad.length > 0) throw new InvalidValue(`must be a comma list of origins such as https://app.example.org or http://localhost:8100 (scheme, host and port only), or *; not ${bad.map((b) => `"${b}"`).join(', ')}`);
    // Browsers send origins in lower case, with no default port.
    return entries.map((entry) => (entry === '*' ? entry : new URL(entry).origin));
  });
}

function contextPath<const O extends Opts<string>>(doc: string, opts: O): Unnamed<string, O> {
  return make(doc, opts, (raw) => {
    const value = raw.trim().replace(/\/+$/, '');
    if (value !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(value)) throw new InvalidValue(`must be empty or a path starting with "/", got "${raw}"`);
    return value;
  });
}

/** A size in bytes: a number with an optional unit `k`, `m` or `g` (and `b`/`kb`/`mb`/`gb` as logback writes them). */
function byteSize<const O extends Opts<number>>(doc: string, opts: O): Unnamed<number, O> {
  const units: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
  return make(doc, opts, (raw) => {
    const m = /^(\d+)\s*([kmg]?)b?$/i.exec(raw.trim());
    const bytes = m ? Number(m[1]) * units[m[2]!.toLowerCase()]! : 0;
    if (bytes < 1024) throw new InvalidValue(`must be a size such as 10m, 500k or 1g (at least 1k), got "${raw}"`);
    return bytes;
  });
}

/**
 * A size in bytes as Spring's `DataSize` reads it: a whole number, optionally with the unit `B`,
 * `KB`, `MB`, `GB` or `TB` (any case; 1KB = 1024 bytes), e.g. `10485760`, `10MB`, `512KB`.
 */
function dataSize<const O extends Opts<number> & { max: number }>(doc: string, opts: O): Unnamed<number, O> {
  const units: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };
  return make(doc, opts, (raw) => {
    const m = /^(\d+)\s*([a-z]{0,2})$/i.exec(raw.trim());
    const unit = m ? units[m[2]!.toLowerCase()] : undefined;
    const bytes = m && unit !== undefined ? Number(m[1]) * unit : NaN;
    if (!(bytes >= 1 && bytes <= opts.max)) throw new InvalidValue(`must be a size in bytes such as 10485760, 10MB or 512KB (B, KB, MB, GB, TB), at least 1 byte and at most ${opts.max} bytes, got "${raw}"`);
    return bytes;
  });
}

/** An absolute http:// or https:// URL, without a trailing slash. */
function httpUrl<const O extends Opts<string>>(doc: string, opts: O): Unnamed<string, O> {
  return make(doc, opts, (raw) => {
    const value = raw.trim().replace(/\/+$/, '');
    if (!/^https?:\/\/[^/?#]/i.test(value) || !URL.canParse(value)) throw new InvalidValue(`must be an http:// or https:// URL, got "${redactUrl(raw)}"`);
    return value;
  });
}

function withEnv<T, D>(env: string, s: Omit<Setting<T, D>, 'env'>): Setting<T, D> {
  return { env, ...s };
}

/** The table of settings. Add a setting here and it is read, validated and typed. */
export const settings = {
  profile: withEnv('PROFILE', profile('`dev` (in-memory PGlite unless a database is set, demo data, admin password `radar`) or `prod` (database and admin password required). `SPRING_PROFILES_ACTIVE=prod,api-docs` selects `prod`', { default: 'dev', spring: 'spring.profiles.active' })),
  host: withEnv('HOST', str('Address the HTTP server binds to; default `127.0.0.1` (this machine only) in dev, `0.0.0.0` (every interface) in prod. `HOST=0.0.0.0` makes a dev server reachable from the local network', { spring: 'server.address' })),
  port: withEnv('PORT', int('HTTP port', { default: 8080, min: 0, max: 65535, spring: 'server.port' })),
  databaseUrl: withEnv('DATABASE_URL', str('PostgreSQL URL (`postgres://user:pass@host:5432/db`, a `jdbc:postgresql://` URL also works); selects PostgreSQL in either profile', {})),
  springDatasourceUrl: withEnv('SPRING_DATASOURCE_URL', str('Reference form of the database: a `jdbc:postgresql://host:port/db` URL; used when `DATABASE_URL` is not set', { spring: 'spring.datasource.url' })),
  springDatasourceUsername: withEnv('SPRING_DATASOURCE_USERNAME', str('User for `SPRING_DATASOURCE_URL`', { spring: 'spring.datasource.username' })),
  springDatasourcePassword: withEnv('SPRING_DATASOURCE_PASSWORD', str('Password for `SPRING_DATASOURCE_URL`', { spring: 'spring.datasource.password' })),
  databasePoolSize: withEnv('DATABASE_POOL_SIZE', int('Maximum PostgreSQL connections of this process for its work; the health check keeps one more of its own', { default: 10, min: 1, max: 1000, spring: 'spring.datasource.hikari.maximumPoolSize' })),
  bootWaitSeconds: withEnv('BOOT_WAIT_SECONDS', int('How long start-up retries the PostgreSQL connection before failing', { default: 10, min: 0, max: 3600 })),
  httpBodyLimitBytes: withEnv('HTTP_BODY_LIMIT_BYTES', int('Largest accepted request body in bytes (default 10 MiB); larger ones get 413', { default: 10 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 })),
  shutdownTimeoutSeconds: withEnv('SHUTDOWN_TIMEOUT_SECONDS', int('How long a graceful shutdown waits for in-flight requests', { default: 10, min: 0, max: 600 })),
  logLevel: withEnv('LOG_LEVEL', oneOf('trace, debug, info, warn, error, fatal or silent (Spring\'s `off` means silent)', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], { default: 'info', spring: 'logging.level.root' }, { off: 'silent', warning: 'warn' })),
  logFormat: withEnv('LOG_FORMAT', oneOf('`json` (one JSON object per line) or `pretty` (readable lines, coloured on a terminal); unset: `pretty` in the dev profile when stdout is a terminal, else `json`', ['json', 'pretty'], {})),
  logsDir: withEnv('LOGS_DIR', str('Directory for log files (created `0700` if missing); unset: console only. `radar-appserver.<date>.<n>.log` holds every line at `LOG_LEVEL`, `radar-appserver-error.<date>.<n>.log` the errors; files are `0600`', {})),
  logsMaxFileSize: withEnv('LOGS_MAX_FILE_SIZE', byteSize('Size at which a log file is rotated (besides daily), with `k`, `m` or `g`', { default: 10 * 1024 * 1024 })),
  logsMaxHistory: withEnv('LOGS_MAX_HISTORY', int('Log files kept of each kind; the oldest are deleted at rotation', { default: 60, min: 1, max: 100_000 })),
  sentryDsn: withEnv('SENTRY_DSN', make('Sentry DSN (`https://<key>@<host>/<project id>`): log records at or above `SENTRY_LOG_LEVEL` and unhandled 5xx errors are reported there; unset: off', { spring: 'sentry.dsn' }, (raw) => {
    // The SDK's own check: an invalid DSN would switch reporting off without a word.
    if (!/^https?:\/\/\w+(?::\w*)?@(?:\[[:.%\w]+\]|[\w.-]+)(?::\d+)?\/(?:.+\/)?\d+$/.test(raw.trim())) {
      throw new InvalidValue('must be a Sentry DSN such as https://<public key>@<host>/<project id>');
    }
    return raw.trim();
  })),
  sentryLogLevel: withEnv('SENTRY_LOG_LEVEL', oneOf('Lowest log level reported to Sentry: `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`', ['trace', 'debug', 'info', 'warn', 'error'], { default: 'error' }, { warning: 'warn' })),
  adminUser: withEnv('RADAR_ADMIN_USER', str('User name for the admin endpoints (`/actuator/*` but health and info)', { default: 'radar', spring: 'radar.admin.user' })),
  adminPassword: withEnv('RADAR_ADMIN_PASSWORD', str('Password for the admin endpoints; required in prod, where `radar` is refused (dev default `radar`)', { spring: 'radar.admin.password' })),
  smtpUrl: withEnv('SMTP_URL', str('Mail server, `smtp://user:pass@host:port` (or `smtps://`); wins over `SPRING_MAIL_*`', {})),
  springMailHost: withEnv('SPRING_MAIL_HOST', str('Reference form of the mail server host (used when `SMTP_URL` is not set)', { spring: 'spring.mail.host' })),
  springMailPort: withEnv('SPRING_MAIL_PORT', int('Reference form of the mail server port (default 25)', { min: 1, max: 65535, spring: 'spring.mail.port' })),
  springMailUsername: withEnv('SPRING_MAIL_USERNAME', str('Reference form of the mail user', { spring: 'spring.mail.username' })),
  springMailPassword: withEnv('SPRING_MAIL_PASSWORD', str('Reference form of the mail password', { spring: 'spring.mail.password' })),
  appserverContextPath: withEnv('APPSERVER_CONTEXT_PATH', contextPath('Path prefix of the app server API (empty: server root). Must not equal or overlap `MANAGEMENTPORTAL_CONTEXT_PATH` (one of the two may be the root)', { default: '' })),
  managementportalContextPath: withEnv('MANAGEMENTPORTAL_CONTEXT_PATH', contextPath('Path prefix of the management domain (OAuth 2.0 server, management API, admin pages); `/` puts it at the root. Must not equal or overlap `APPSERVER_CONTEXT_PATH`: `/a` and `/a/b` overlap, `/a` and `/ab` do not', { default: '/managementportal' })),
  managementportalOauthKeyStore: withEnv('MANAGEMENTPORTAL_OAUTH_KEY_STORE', str('PKCS12 keystore with the token signing key; when the default is missing, the reference\'s `/mp-includes/config/keystore.p12` is used if present. No keystore: prod refuses to start, dev signs with a generated in-memory EC key', { default: 'config/keystore.p12' })),
  managementportalOauthKeyStorePassword: withEnv('MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD', str('Password of the keystore and of its keys (they must be equal); prod logs a warning while it is the public default `radarbase`', { default: 'radarbase', spring: 'managementportal.oauth.keyStorePassword' })),
  managementportalOauthSigningKeyAlias: withEnv('MANAGEMENTPORTAL_OAUTH_SIGNING_KEY_ALIAS', str('Keystore alias of the signing key: EC P-256 signs ES256, RSA signs RS256', { default: 'radarbase-managementportal-ec', spring: 'managementportal.oauth.signingKeyAlias' })),
  managementportalOauthCheckingKeyAliases: withEnv('MANAGEMENTPORTAL_OAUTH_CHECKING_KEY_ALIASES', list('Comma-separated keystore aliases of further keys published at `/oauth/token_key` that still verify tokens (key rotation)', { default: [], spring: 'managementportal.oauth.checkingKeyAliases' })),
  managementportalOauthIssuer: withEnv('MANAGEMENTPORTAL_OAUTH_ISSUER', str('`iss` of the tokens and `issuer` of the RFC 8414 metadata; set the portal\'s URL for strict RFC 8414/9068 clients', { default: 'ManagementPortal' })),
  managementportalOauthClientsFile: withEnv('MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE', str('OAuth clients file (`;`-separated, reference format), loaded at every start; dev default `config/oauth_client_details.csv`, prod default `/mp-includes/config/oauth_client_details.csv` when present', { spring: 'managementportal.oauth.clientsFile' })),
  managementportalOauthRefreshReuseGraceSeconds: withEnv('MANAGEMENTPORTAL_OAUTH_REFRESH_REUSE_GRACE_SECONDS', int('Seconds in which a used refresh token may be presented again (0: every refresh token is valid once)', { default: 0, min: 0, max: 86400 })),
  managementportalOauthLegacyRefreshUntil: withEnv('MANAGEMENTPORTAL_OAUTH_LEGACY_REFRESH_UNTIL', instant('After a switch-over: refresh tokens that the reference ManagementPortal signed with the same key and that this service never issued are accepted once each, within their expiry; those issued after this instant are refused. Unset: all are accepted once (the reference keeps issuing until the ingress moves)', {})),
  managementportalOauthRequirePkce: withEnv('MANAGEMENTPORTAL_OAUTH_REQUIRE_PKCE', bool('Refuse a public client\'s (no secret) authorization request without a PKCE `code_challenge` (S256), as OAuth 2.1 asks; off by default because the reference\'s clients send none', { default: false, spring: 'managementportal.oauth.requirePkce' })),
  managementportalOauthMetaTokenTimeout: withEnv('MANAGEMENTPORTAL_OAUTH_META_TOKEN_TIMEOUT', duration('Lifetime of a pairing meta-token (ISO-8601 duration, stored in seconds)', { default: 3600, spring: 'managementportal.oauth.metaTokenTimeout' })),
  managementportalOauthPersistentMetaTokenTimeout: withEnv('MANAGEMENTPORTAL_OAUTH_PERSISTENT_META_TOKEN_TIMEOUT', duration('Lifetime of a persistent pairing meta-token (ISO-8601 duration, stored in seconds); also the projects\' `persistentTokenTimeout`', { default: 31 * 86400, spring: 'managementportal.oauth.persistentMetaTokenTimeout' })),
  managementportalSiteSettingsHiddenSubjectFields: withEnv('MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS', list('Subject fields the admin UI hides (`person_name`, `date_of_birth`, `group`), served by `/api/sitesettings`', { default: [], spring: 'managementportal.siteSettings.hiddenSubjectFields' })),
  managementportalOauthFailedAttemptsPerMinute: withEnv('MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE', int('Failed client or user authentications per name and client IP in a minute after which further attempts get 429 until the minute ends (counted per instance)', { default: 20, min: 1, max: 1_000_000, spring: 'managementportal.oauth.failedAttemptsPerMinute' })),
  managementportalOauthFailedAttemptsPerAddressPerMinute: withEnv('MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_ADDRESS_PER_MINUTE', int('Failed client or user authentications from one client IP in a minute, over all names, after which every further attempt from that IP gets 429 until the minute ends (counted per instance; stops password spraying)', { default: 100, min: 1, max: 1_000_000, spring: 'managementportal.oauth.failedAttemptsPerAddressPerMinute' })),
  managementportalFrontendAccessTokenValiditySeconds: withEnv('MANAGEMENTPORTAL_FRONTEND_ACCESS_TOKEN_VALIDITY_SECONDS', int('Access-token lifetime of the admin UI client `ManagementPortalapp`', { default: 14400, min: 60, max: 31_536_000, spring: 'managementportal.frontend.accessTokenValiditySeconds' })),
  managementportalFrontendRefreshTokenValiditySeconds: withEnv('MANAGEMENTPORTAL_FRONTEND_REFRESH_TOKEN_VALIDITY_SECONDS', int('Refresh-token lifetime of the admin UI client `ManagementPortalapp`', { default: 259200, min: 60, max: 31_536_000, spring: 'managementportal.frontend.refreshTokenValiditySeconds' })),
  managementportalSessionSecret: withEnv('MANAGEMENTPORTAL_SESSION_SECRET', make('Key that signs the session cookie of the sign-in and consent pages (at least 32 characters); unset: one generated at the first start and kept in the database, shared by every instance', {}, (raw) => {
    if (raw.length < 32) throw new InvalidValue(`must be at least 32 characters, got ${raw.length}`);
    return raw;
  })),
  managementportalCommonBaseUrl: withEnv('MANAGEMENTPORTAL_COMMON_BASE_URL', str('The platform origin handed to paired apps (`baseUrl` of a meta-token), e.g. `https://radar.example.org`', { default: 'http://localhost:8080', spring: 'managementportal.common.baseUrl' })),
  managementportalCommonManagementPortalBaseUrl: withEnv('MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL', str('Public URL of the management domain: e-mail links and the pairing `tokenUrl`/`baseUrl`', { default: 'http://localhost:8080/managementportal', spring: 'managementportal.common.managementPortalBaseUrl' })),
  managementportalCommonPrivacyPolicyUrl: withEnv('MANAGEMENTPORTAL_COMMON_PRIVACY_POLICY_URL', str('Privacy policy sent with a meta-token when the project has no `Privacy-policy-url` attribute', { default: 'http://info.thehyve.nl/radar-cns-privacy-policy', spring: 'managementportal.common.privacyPolicyUrl' })),
  managementportalCommonActivationKeyTimeoutInSeconds: withEnv('MANAGEMENTPORTAL_COMMON_ACTIVATION_KEY_TIMEOUT_IN_SECONDS', int('How long an activation or password-reset key is valid', { default: 86400, min: 60, max: 31_536_000, spring: 'managementportal.common.activationKeyTimeoutInSeconds' })),
  managementportalMetaTokenReadsPerMinute: withEnv('MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE', int('Reads of `/api/meta-token/*` per client IP in a minute (whatever their outcome) before 429', { default: 60, min: 1, max: 1_000_000 })),
  managementportalMailFrom: withEnv('MANAGEMENTPORTAL_MAIL_FROM', str('Sender of the account e-mails; required in prod (dev default `ManagementPortal@localhost`)', { spring: 'managementportal.mail.from' })),
  managementportalCatalogueServerEnableAutoImport: withEnv('MANAGEMENTPORTAL_CATALOGUE_SERVER_ENABLE_AUTO_IMPORT', bool('Import source types from the catalogue server at start (in the background)', { default: false, spring: 'managementportal.catalogueServer.enableAutoImport' })),
  managementportalCatalogueServerServerUrl: withEnv('MANAGEMENTPORTAL_CATALOGUE_SERVER_SERVER_URL', str('Catalogue server URL listing the source types (RADAR-Schemas catalogue `…/source-types`)', { spring: 'managementportal.catalogueServer.serverUrl' })),
  managementportalUiSessionTimeout: withEnv('MANAGEMENTPORTAL_UI_SESSION_TIMEOUT', duration('Idle timeout of a signed-in session of the admin pages and the OAuth sign-in pages (ISO-8601 duration, stored in seconds), extended by every request', { default: 1800 })),
  managementportalUiSessionMaxAge: withEnv('MANAGEMENTPORTAL_UI_SESSION_MAX_AGE', duration('Longest life of a signed-in session of the admin pages and the OAuth sign-in pages (ISO-8601 duration, stored in seconds), counted from sign-in: it ends then even when in use', { default: 12 * 3600 })),
  managementportalAuditRetention: withEnv('MANAGEMENTPORTAL_AUDIT_RETENTION', period('How long audit events are kept (ISO-8601 period such as `P90D`, `P6M`, `P1Y`); older ones are deleted hourly. Unset: kept forever', {})),
  managementportalUiLogoDir: withEnv('MANAGEMENTPORTAL_UI_LOGO_DIR', str('Folder whose `navbar-logo.png` and `home-page-logo.png` replace the bundled logos of the admin pages (read at every request: no restart); a file missing there falls back to the bundled one', {})),
  managementportalCommonAdminPassword: withEnv('MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD', str('Seeds the password of the `admin` account (dev default `admin`) and sets it again only when this value changes, so a password changed in the UI survives restarts; to recover a forgotten admin password, set a new value and restart. Prod refuses to start when it is `admin`, or while it is unset and `admin` is new or still has the password `admin`', { spring: 'managementportal.common.adminPassword' })),
  trustProxy: withEnv('TRUST_PROXY', trustProxy('Which reverse proxies\' `X-Forwarded-*` headers count: `false`; a hop count (`1`: one proxy in front, the client is the address it appends); a comma list of proxy addresses or CIDR ranges; or `true` (every sender, so clients choose their own address). Spring\'s `native`/`framework` mean Tomcat\'s default (loopback, link-local and private ranges), `none` false', { default: false, spring: 'server.forwardHeadersStrategy' })),
  corsAllowedOrigins: withEnv('CORS_ALLOWED_ORIGINS', originList('Origins whose browser scripts may call the API paths (both domains\' JSON APIs, `/oauth/token` and the other OAuth endpoints; not the pages): a comma list such as `https://dashboard.example.org,http://localhost:8100`, or `*` for any origin. Unset: CORS off, no `Access-Control-*` header is sent. Cookies are never allowed across origins', { default: [] })),
  schedulerEnabled: withEnv('SCHEDULER_ENABLED', bool('Run the notification scheduler in this process (any number of processes may run it against one PostgreSQL)', { default: true })),
  schedulerTickMs: withEnv('SCHEDULER_TICK_MS', int('How often the scheduler looks for due notifications and data messages, in milliseconds', { default: 1000, min: 10, max: 3_600_000 })),
  schedulerBatchSize: withEnv('SCHEDULER_BATCH_SIZE', int('Due messages claimed and sent per batch (FCM `sendEach` takes at most 500)', { default: 500, min: 1, max: 500 })),
  schedulerConcurrency: withEnv('SCHEDULER_CONCURRENCY', int('Batches one process sends at the same time', { default: 4, min: 1, max: 64 })),
  schedulerLeaseSeconds: withEnv('SCHEDULER_LEASE_SECONDS', int('How long a claimed batch belongs to its process; a crashed process\'s batch is sent again after this', { default: 60, min: 1, max: 86_400 })),
  schedulerMaxAttempts: withEnv('SCHEDULER_MAX_ATTEMPTS', int('Sends of a message that FCM answered UNAVAILABLE, INTERNAL or QUOTA_EXCEEDED before it becomes ERRORED', { default: 5, min: 1, max: 100 })),
  schedulerRetrySeconds: withEnv('SCHEDULER_RETRY_SECONDS', int('Wait before the first retry; it doubles with each further attempt (at most one hour)', { default: 10, min: 0, max: 3600 })),
  questionnaireScheduleIntervalSeconds: withEnv('QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS', int('How often every user\'s questionnaire schedule is brought up to date (one process of all against one PostgreSQL does each run); 0: never in this process', { default: 3600, min: 0, max: 31_536_000 })),
  questionnaireScheduleConcurrency: withEnv('QUESTIONNAIRE_SCHEDULE_CONCURRENCY', int('Users whose schedules one process generates at the same time in a run', { default: 8, min: 1, max: 64 })),
  fcmSender: withEnv('FCMSERVER_FCMSENDER', oneOf('`rest` (also `org.radarbase.fcm.downstream.AdminSdkFcmSender`): FCM HTTP v1 through the Firebase Admin SDK; `disabled`: log and drop; `auto`: `rest` when credentials or `FCM_EMULATOR_HOST` are set or in prod, else `disabled`', ['auto', 'rest', 'disabled'], { default: 'auto', spring: 'fcmserver.fcmsender' }, { 'org.radarbase.fcm.downstream.adminsdkfcmsender': 'rest' })),
  fcmCredentials: withEnv('FCMSERVER_CREDENTIALS', make('Firebase service-account JSON, base64-encoded (wins over `GOOGLE_APPLICATION_CREDENTIALS`)', { spring: 'fcmserver.credentials' }, (raw) => {
    try {
      const json = JSON.parse(Buffer.from(raw.trim(), 'base64').toString('utf8')) as Record<string, unknown>;
      if (typeof json.private_key === 'string' && typeof json.client_email === 'string') return raw.trim();
    } catch { /* reported below */ }
    throw new InvalidValue('must be the base64 of a service-account JSON file (with private_key and client_email)');
  })),
  googleApplicationCredentials: withEnv('GOOGLE_APPLICATION_CREDENTIALS', str('Path of a Firebase service-account JSON file', {})),
  fcmEmulatorHost: withEnv('FCM_EMULATOR_HOST', make('`host:port` of a local FCM stub (`npm run fcm-stub`): every FCM request goes there over plain HTTP with a static token; no credentials needed', {}, (raw) => {
    if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/.test(raw.trim())) throw new InvalidValue(`must be host:port, got "${raw}"`);
    return raw.trim();
  })),
  fcmProjectId: withEnv('FCM_PROJECT_ID', str('Firebase project id (default: the credentials\' `project_id`, or `demo-radar` with `FCM_EMULATOR_HOST`)', {})),
  fileUploadEnabled: withEnv('RADAR_FILE_UPLOAD_ENABLED', bool('Serve the file upload (`POST /projects/{projectId}/users/{subjectId}/files/topics/{topicId}/upload`); needs the storage settings below. Off by default, as RADAR-Kubernetes deploys the reference', { default: false, spring: 'radar.file-upload.enabled' })),
  fileUploadMaxSize: withEnv('RADAR_FILE_UPLOAD_MAX_SIZE', dataSize('Largest uploaded file: bytes, or Spring\'s forms such as `10MB` or `512KB` (1KB = 1024 bytes); a larger file gets 413 and nothing is stored', { default: 10 * 1024 * 1024, max: 1024 ** 4, spring: 'spring.servlet.multipart.max-file-size' })),
  storageType: withEnv('RADAR_STORAGE_TYPE', oneOf('Where uploaded files go: `s3` (an S3-compatible object store, `RADAR_STORAGE_S3_*`) or `local` (a folder, `RADAR_STORAGE_LOCAL_PATH`, for a single container without object storage)', ['s3', 'local'], { default: 's3', spring: 'radar.storage.type' })),
  storageLocalPath: withEnv('RADAR_STORAGE_LOCAL_PATH', str('Folder the `local` storage writes uploaded files into, under their object keys (created if missing); required with `RADAR_STORAGE_TYPE=local`', {})),
  storageS3Url: withEnv('RADAR_STORAGE_S3_URL', httpUrl('S3 endpoint (`http://minio:9000`, `https://s3.eu-west-1.amazonaws.com`); addressed path-style (`{url}/{bucket}/{key}`); required with `RADAR_STORAGE_TYPE=s3`', { spring: 'radar.storage.s3.url' })),
  storageS3AccessKey: withEnv('RADAR_STORAGE_S3_ACCESS_KEY', str('S3 access key; required with `RADAR_STORAGE_TYPE=s3`', { spring: 'radar.storage.s3.access-key' })),
  storageS3SecretKey: withEnv('RADAR_STORAGE_S3_SECRET_KEY', str('S3 secret key; required with `RADAR_STORAGE_TYPE=s3`', { spring: 'radar.storage.s3.secret-key' })),
  storageS3Region: withEnv('RADAR_STORAGE_S3_REGION', str('Region the S3 requests are signed for (MinIO and most S3-compatible stores take any)', { default: 'us-east-1' })),
  storageS3BucketName: withEnv('RADAR_STORAGE_S3_BUCKET_NAME', str('Bucket the files go into; it must exist (an upload to a missing bucket gets 503)', { default: 'radar', spring: 'radar.storage.s3.bucket-name' })),
  storageS3PathPrefix: withEnv('RADAR_STORAGE_S3_PATH_PREFIX', str('First part of every object key (`{prefix}/{projectId}/…`); empty: none. Also used by the `local` storage', { default: '', spring: 'radar.storage.s3.path.prefix' })),
  storageS3PathCollectPerDay: withEnv('RADAR_STORAGE_S3_PATH_COLLECT_PER_DAY', bool('Put each day\'s files of a topic in a `yyyyMMdd/` folder (UTC) of the object key', { default: true, spring: 'radar.storage.s3.path.collect-per-day' })),
  notificationEmailEnabled: withEnv('RADAR_NOTIFICATION_EMAIL_ENABLED', bool('Also send notifications with `emailEnabled` to the user\'s e-mail address (needs `SMTP_URL` or `SPRING_MAIL_HOST`)', { default: false, spring: 'radar.notification.email.enabled' })),
  notificationEmailFrom: withEnv('RADAR_NOTIFICATION_EMAIL_FROM', str('Sender address of notification e-mails', { default: 'radar@radar.thehyve.nl', spring: 'radar.notification.email.from' })),
  notificationEmailMaxAttempts: withEnv('RADAR_NOTIFICATION_EMAIL_MAX_ATTEMPTS', int('Sends of a notification e-mail that failed for a passing reason (no connection, a 4xx reply) before it is given up; retried apart from the push', { default: 10, min: 1, max: 100 })),
  notificationEmailRetrySeconds: withEnv('RADAR_NOTIFICATION_EMAIL_RETRY_SECONDS', int('Wait before a notification e-mail\'s first retry; it doubles with each further attempt (at most one hour)', { default: 30, min: 0, max: 3600 })),
  protocolGithubRepoPath: withEnv('RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_REPO_PATH', make('GitHub repository (`owner/name`) holding the aRMT protocols, `{projectId}[/{key}/{value}…]/{file}`', { default: 'RADAR-base/RADAR-aRMT-protocols', spring: 'radar.questionnaire.protocol.github.repo.path' }, (raw) => {
    const value = raw.trim();
    if (!/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(value) || /\/\.\.?$/.test(value)) throw new InvalidValue(`must be a GitHub repository as owner/name, got "${raw}"`);
    return value;
  })),
  protocolGithubFileName: withEnv('RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_FILE_NAME', make('File name of a protocol in that repository', { default: 'protocol.json', spring: 'radar.questionnaire.protocol.github.file.name' }, (raw) => {
    const value = raw.trim();
    if (!value || value.includes('/') || value === '.' || value === '..') throw new InvalidValue(`must be a file name without "/", got "${raw}"`);
    return value;
  })),
  protocolGithubBranch: withEnv('RADAR_QUESTIONNAIRE_PROTOCOL_GITHUB_BRANCH', str('Branch of the protocol repository', { default: 'master', spring: 'radar.questionnaire.protocol.github.branch' })),
  githubClientToken: withEnv('SECURITY_GITHUB_CLIENT_TOKEN', str('GitHub token sent as `Authorization: Bearer` (optional; raises GitHub\'s rate limit). A 401 is retried once without it', { spring: 'security.github.client.token' })),
  githubClientTimeout: withEnv('SECURITY_GITHUB_CLIENT_TIMEOUT', int('Seconds a GitHub request (connection, answer and body) may take', { default: 10, min: 1, max: 600, spring: 'security.github.client.timeout' })),
  githubClientMaxContentLength: withEnv('SECURITY_GITHUB_CLIENT_MAXCONTENTLENGTH', int('Largest GitHub response body in bytes (by its Content-Length or as it streams in)', { default: 1_000_000, min: 1024, max: 100_000_000, spring: 'security.github.client.maxContentLength' })),
  githubCacheDuration: withEnv('SECURITY_GITHUB_CACHE_DURATION', int('Seconds a copy of a GitHub answer (a protocol, a `/github/content` body) is fresh; after that it is refreshed, and served as long as GitHub fails. Copies live in the database', { default: 3600, min: 0, max: 31_536_000, spring: 'security.github.cache.duration' })),
  githubCacheRetryDuration: withEnv('SECURITY_GITHUB_CACHE_RETRYDURATION', int('Seconds after a failed GitHub request before the same one is tried again', { default: 60, min: 0, max: 86_400, spring: 'security.github.cache.retryDuration' })),
  githubCacheSize: withEnv('SECURITY_GITHUB_CACHE_SIZE', int('`/github/content` answers kept, in memory and in the database (least recently used out first)', { default: 10_000, min: 1, max: 1_000_000, spring: 'security.github.cache.size' })),
  githubCacheMaxBytes: withEnv('SECURITY_GITHUB_CACHE_MAX_BYTES', byteSize('Bytes of `/github/content` answers kept, in memory and in the database (least recently used out first): a number of bytes, or with `k`, `m` or `g` (`64MB` is 64 MiB)', { default: 64 * 1024 * 1024, spring: 'security.github.cache.maxBytes' })),
  githubApiUrl: withEnv('GITHUB_API_URL', make('Base URL that every request for `https://api.github.com/…` goes to instead (a GitHub Enterprise API, a test stub); no user info (use `SECURITY_GITHUB_CLIENT_TOKEN`)', { default: 'https://api.github.com' }, (raw) => {
    const value = raw.trim().replace(/\/+$/, '');
    if (!/^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(value) || !URL.canParse(value)) throw new InvalidValue(`must be an http:// or https:// URL without query, got "${redactUrl(raw)}"`);
    // fetch refuses a URL with credentials, quoting it whole in the error that the log then records.
    if (/^[a-z]+:\/\/[^/]*@/i.test(value)) throw new InvalidValue(`must not carry a user or password (use SECURITY_GITHUB_CLIENT_TOKEN), got "${redactUrl(raw)}"`);
    return value;
  })),
  githubProxyAllowedOwners: withEnv('GITHUB_PROXY_ALLOWED_OWNERS', list('Comma-separated GitHub owners whose repositories `GET /github/content` may read (any case); default: the protocol repository\'s owner and `RADAR-base`', {})),
  securityRadarManagementportalEnabled: withEnv('SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED', bool('App server API needs a ManagementPortal token (radar-auth); unset: `true` in prod, `false` in dev', { spring: 'security.radar.managementportal.enabled' })),
  securityRadarManagementportalUrl: withEnv('SECURITY_RADAR_MANAGEMENTPORTAL_URL', make('Base URL of another ManagementPortal whose `{url}/oauth/token_key` keys the app server also trusts (this process\'s own keys always count)', { default: '', spring: 'security.radar.managementportal.url' }, (raw) => {
    const value = raw.trim().replace(/\/+$/, '');
    if (!/^https?:\/\/[^/?#]/i.test(value) || !URL.canParse(value)) throw new InvalidValue(`must be an http:// or https:// URL, got "${redactUrl(raw)}"`);
    return value;
  })),
  securityOauth2ResourceId: withEnv('SECURITY_OAUTH2_RESOURCE_ID', str('Audience (`aud`) an app server token must carry; unset: `resourceName` of `RADAR_IS_CONFIG_LOCATION`, else `res_AppServer`', { spring: 'security.oauth2.resource.id' })),
  radarIsConfigLocation: withEnv('RADAR_IS_CONFIG_LOCATION', str('Path of a radar-auth `radar_is.yml` (`resourceName`, `publicKeyEndpoints`, `publicKeys`) with further token key sources for the app server', {})),
  springBootAdminClientUrl: withEnv('SPRING_BOOT_ADMIN_CLIENT_URL', httpUrl('Spring Boot Admin server to register this instance with (`POST {url}/instances` every period); unset: no registration. User info (`http://user:pass@host`) is sent as Basic auth unless `SPRING_BOOT_ADMIN_CLIENT_USERNAME` is set, and never logged', { spring: 'spring.boot.admin.client.url' })),
  springBootAdminClientUsername: withEnv('SPRING_BOOT_ADMIN_CLIENT_USERNAME', str('Basic-auth user for the Spring Boot Admin server', { spring: 'spring.boot.admin.client.username' })),
  springBootAdminClientPassword: withEnv('SPRING_BOOT_ADMIN_CLIENT_PASSWORD', str('Basic-auth password for the Spring Boot Admin server', { spring: 'spring.boot.admin.client.password' })),
  springBootAdminClientInstanceName: withEnv('SPRING_BOOT_ADMIN_CLIENT_INSTANCE_NAME', str('Name this instance registers under', { default: 'radar-appserver', spring: 'spring.boot.admin.client.instance.name' })),
  springBootAdminClientInstanceServiceBaseUrl: withEnv('SPRING_BOOT_ADMIN_CLIENT_INSTANCE_SERVICE_BASE_URL', httpUrl('Base URL the admin server reaches this instance at; default `http://<hostname>:<port>`', { spring: 'spring.boot.admin.client.instance.service-base-url' })),
  springBootAdminClientPeriod: withEnv('SPRING_BOOT_ADMIN_CLIENT_PERIOD', int('Milliseconds between registrations', { default: 10_000, min: 100, max: 86_400_000, spring: 'spring.boot.admin.client.period' })),
  springBootAdminClientAutoDeregistration: withEnv('SPRING_BOOT_ADMIN_CLIENT_AUTO_DEREGISTRATION', bool('Deregister (`DELETE {url}/instances/{id}`) at shutdown', { default: true, spring: 'spring.boot.admin.client.auto-deregistration' })),
} as const;

type Settings = typeof settings;
/** Each setting's value: its parsed type, or `undefined` too when it has no default. */
type RawConfig = { [K in keyof Settings]: Settings[K] extends Setting<infer T, infer D> ? T | D : never };

export type DatabaseConfig =
  | { kind: 'pglite' }
  | { kind: 'postgres'; url: string; username?: string; password?: string; poolSize: number };

export interface Config extends Omit<RawConfig, 'databaseUrl' | 'springDatasourceUrl' | 'springDatasourceUsername' | 'springDatasourcePassword' | 'adminPassword' | 'smtpUrl' | 'springMailHost' | 'springMailPort' | 'springMailUsername' | 'springMailPassword' | 'databasePoolSize' | 'managementportalMailFrom' | 'host' | 'githubProxyAllowedOwners' | 'securityRadarManagementportalEnabled'> {
  /** Owners `GET /github/content` may read: `GITHUB_PROXY_ALLOWED_OWNERS`, else the protocol repository's owner and `RADAR-base`. */
  githubProxyAllowedOwners: readonly string[];
  /** Bind address: `HOST`, else `127.0.0.1` in dev and `0.0.0.0` in prod. */
  host: string;
  database: DatabaseConfig;
  adminPassword: string;
  /** Sender of the management e-mails (required in prod; dev default `ManagementPortal@localhost`). */
  managementportalMailFrom: string;
  /** nodemailer transport URL, or undefined when no mail server is configured. */
  smtpUrl: string | undefined;
  /** Version from package.json, for /actuator/info. */
  version: string;
  /** `SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED`, else on in prod and off in dev. */
  securityRadarManagementportalEnabled: boolean;
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    // V8 quotes the input in some messages, and this JSON may hold passwords: keep the position only.
    const position = /at position \d+/.exec((err as Error).message)?.[0];
    throw new InvalidValue(`must be a JSON object (not valid JSON${position ? ` ${position}` : ''})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidValue('must be a JSON object');
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

function lookup(setting: Setting<unknown, unknown>, env: Env, springJson: Map<string, string>): Found | undefined {
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

/** A URL for an error message: the password in its user info or query is masked. */
function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.:-]*:\/\/)([^/@?#:]*):[^/@?#]*@/i, '$1$2:***@')
    .replace(/([?&;]password=)[^&;#]*/gi, '$1***');
}

/**
 * pgjdbc query parameters with a postgres.js equivalent. Every other one (`currentSchema`,
 * `prepareThreshold`, `sslrootcert` paths, …) is driver tuning without a counterpart, and passing
 * it on would make postgres.js send it to the server as an unknown run-time parameter.
 */
const JDBC_PARAMS: Readonly<Record<string, string>> = {
  ssl: 'ssl',
  sslmode: 'sslmode',
  connecttimeout: 'connect_timeout',
  applicationname: 'application_name',
  options: 'options',
};

/**
 * Converts the reference's `jdbc:postgresql://host[:port][,host2…]/db?…` into a postgres:// URL.
 * `user` and `password` parameters become the URL's user info; see `JDBC_PARAMS` for the rest.
 */
export function jdbcToPostgresUrl(jdbc: string): string {
  const match = /^jdbc:postgresql:\/\/([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/i.exec(jdbc.trim());
  if (!match?.[1]) throw new InvalidValue(`must be a jdbc:postgresql://host:port/database URL, got "${redactUrl(jdbc)}"`);
  const [, hosts, path = '', query = ''] = match;
  const params = new URLSearchParams(query);
  const kept = new URLSearchParams();
  for (const [key, value] of params) {
    const name = JDBC_PARAMS[key.toLowerCase()];
    if (name) kept.append(name, value);
  }
  const user = params.get('user');
  const password = params.get('password');
  const userinfo = user ? `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  const search = kept.toString();
  return `postgres://${userinfo}${hosts}${path}${search ? `?${search}` : ''}`;
}

/** Accepts postgres:// and postgresql:// URLs (several comma-separated hosts included) and jdbc ones. */
function postgresUrl(url: string): string {
  const value = url.trim();
  if (/^jdbc:/i.test(value)) return jdbcToPostgresUrl(value);
  const match = /^postgres(?:ql)?:\/\/([^/?#]*)/i.exec(value);
  const invalid = () => new InvalidValue(`must be a postgres://user:password@host:port/database URL, got "${redactUrl(url)}"`);
  if (!match?.[1]) throw invalid();
  // WHATWG URL cannot parse several hosts; postgres.js can, so only single-host URLs are parsed here.
  if (!match[1].includes(',') && !URL.canParse(value)) throw invalid();
  return value;
}

/** The SMTP URL from `SPRING_MAIL_*`: credentials percent-encoded, IPv6 hosts bracketed. */
function smtpUrlOf(host: string, port: number | undefined, username: string | undefined, password: string | undefined): string {
  const auth = username ? `${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@` : '';
  const h = host.trim();
  return `smtp://${auth}${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port ?? 25}`;
}

/**
 * Why two domains' context paths cannot both be served, or undefined when they can. One domain
 * may sit at the root (`''`) beside another under a path (the default: the app server at `/`, the
 * management domain at `/managementportal`); two at the root, the same path, or one path inside
 * the other (`/a` and `/a/b`, whole segments: `/ab` is not inside `/a`) would put the inner
 * domain's pages and redirects under the outer one's routes.
 */
export function contextPathsOverlap(a: string, b: string): string | undefined {
  if (a === b) return `both are "${a || '/'}"; each domain needs its own path`;
  if (a === '' || b === '') return undefined;
  const [outer, inner] = a.length < b.length ? [a, b] : [b, a];
  if (inner.startsWith(`${outer}/`)) return `"${inner}" lies inside "${outer}"; the paths must not overlap`;
  return undefined;
}

export function loadConfig(env: Env, version = '0.0.0'): Config {
  const problems: string[] = [];
  let springJson = new Map<string, string>();
  if (env.SPRING_APPLICATION_JSON) {
    try {
      springJson = flattenSpringJson(env.SPRING_APPLICATION_JSON);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      problems.push(`SPRING_APPLICATION_JSON: ${err.message}`);
    }
  }

  const raw: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings) as [string, Setting<unknown, unknown>][]) {
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
      database = { kind: 'postgres', url: postgresUrl(values.databaseUrl), poolSize: values.databasePoolSize };
    } else if (values.springDatasourceUrl) {
      database = {
        kind: 'postgres',
        url: jdbcToPostgresUrl(values.springDatasourceUrl),
        username: values.springDatasourceUsername,
        password: values.springDatasourcePassword,
        poolSize: values.databasePoolSize,
      };
    } else if (prod) {
      problems.push('DATABASE_URL: required in the prod profile (or the reference\'s SPRING_DATASOURCE_URL)');
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

  // Dev serves demo accounts with known passwords, so it stays on this machine unless HOST says otherwise.
  const host = values.host ?? (prod ? '0.0.0.0' : '127.0.0.1');

  if (prod && values.managementportalCommonAdminPassword === 'admin') {
    problems.push('MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: the dev default "admin" is not allowed in the prod profile');
  }

  let mailFrom = values.managementportalMailFrom;
  if (!mailFrom) {
    if (prod) problems.push('MANAGEMENTPORTAL_MAIL_FROM: required in the prod profile');
    mailFrom = 'ManagementPortal@localhost';
  }
  if (values.managementportalCatalogueServerEnableAutoImport && !values.managementportalCatalogueServerServerUrl) {
    problems.push('MANAGEMENTPORTAL_CATALOGUE_SERVER_SERVER_URL: required when MANAGEMENTPORTAL_CATALOGUE_SERVER_ENABLE_AUTO_IMPORT is true');
  }

  // Unset when a path was itself invalid (already reported).
  const mpPath = values.managementportalContextPath as string | undefined;
  const appserverPath = values.appserverContextPath as string | undefined;
  const overlap = mpPath !== undefined && appserverPath !== undefined ? contextPathsOverlap(mpPath, appserverPath) : undefined;
  if (overlap) problems.push(`MANAGEMENTPORTAL_CONTEXT_PATH and APPSERVER_CONTEXT_PATH: ${overlap}`);

  let smtpUrl = values.smtpUrl;
  if (smtpUrl) {
    if (!/^smtps?:\/\/[^/?#]/i.test(smtpUrl) || !URL.canParse(smtpUrl)) {
      problems.push(`SMTP_URL: must be an smtp:// or smtps:// URL, got "${redactUrl(smtpUrl)}"`);
    }
  } else if (values.springMailHost) {
    smtpUrl = smtpUrlOf(values.springMailHost, values.springMailPort, values.springMailUsername, values.springMailPassword);
  }

  if (values.fileUploadEnabled) {
    const needed = values.storageType === 'local'
      ? [['RADAR_STORAGE_LOCAL_PATH', values.storageLocalPath]] as const
      : [['RADAR_STORAGE_S3_URL', values.storageS3Url], ['RADAR_STORAGE_S3_ACCESS_KEY', values.storageS3AccessKey], ['RADAR_STORAGE_S3_SECRET_KEY', values.storageS3SecretKey], ['RADAR_STORAGE_S3_BUCKET_NAME', values.storageS3BucketName]] as const;
    for (const [name, value] of needed) {
      if (!value) problems.push(`${name}: required when RADAR_FILE_UPLOAD_ENABLED is true and RADAR_STORAGE_TYPE is ${values.storageType}`);
    }
  }

  if (problems.length > 0) throw new ConfigError(problems);

  const {
    databaseUrl: _a, springDatasourceUrl: _b, springDatasourceUsername: _c, springDatasourcePassword: _d,
    springMailHost: _e, springMailPort: _f, springMailUsername: _g, springMailPassword: _h, databasePoolSize: _i,
    ...rest
  } = values;
  const githubProxyAllowedOwners = values.githubProxyAllowedOwners?.length
    ? values.githubProxyAllowedOwners
    : [...new Set([values.protocolGithubRepoPath.split('/')[0]!, 'RADAR-base'])];
  return {
    ...rest, host, database, adminPassword, smtpUrl, managementportalMailFrom: mailFrom, githubProxyAllowedOwners, version,
    securityRadarManagementportalEnabled: values.securityRadarManagementportalEnabled ?? prod,
  };
}

/** Rows for the README's configuration table: canonical name, default, meaning. */
export function settingsTable(): { env: string; default: string; doc: string; spring?: string }[] {
  return Object.values(settings).map((s: Setting<unknown, unknown>) => ({
    env: s.env,
    default: s.default === undefined ? '' : s.default === '' ? '(empty)' : String(s.default),
    doc: s.doc,
    spring: s.spring,
  }));
}
