/**
 * Process entry: read the configuration, build the app, listen, shut down gracefully.
 *
 * Exit codes: 0 after a graceful shutdown (SIGTERM, SIGINT), 78 (EX_CONFIG) for invalid
 * configuration, 1 when start-up fails (database unreachable, port taken) or shutdown times out.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DEFAULT_ENV_FILE, loadDotEnv } from './dotenv.js';
import { SNAPSHOT_DIR } from './platform/pglite-snapshot.js';
import { prefetchKeystore } from './management/oauth/keystore-reader.js';

// Under steady load V8 lets the old generation grow to two to four times its live size between
// full collections (a growing factor it picks from its GC and allocation speeds): in the 20-minute
// soak ~60 MiB of live objects kept ~225 MiB of old space and an RSS of 280–345 MiB. A fixed
// factor of 1.5 bounds that headroom for a few more (mostly concurrent) major collections
// (issue 30 item 8, bench/README.md). The flag is read whenever V8 sizes the heap, so setting it
// here, before the app is built, takes effect for the whole run; `node --heap-growing-percent=N`
// on the command line wins.
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=50');

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

let config: Config;
try {
  // `.env` in the working directory, when there is one; real environment variables win.
  // `ENV_FILE` (from the real environment only) names another file, or none when empty.
  const envFile = process.env.ENV_FILE;
  if (envFile !== '') loadDotEnv(envFile ?? DEFAULT_ENV_FILE, process.env, { required: envFile !== undefined });
  config = loadConfig(process.env, pkg.version);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw err;
}

// The keystore's decryption (~0.1 s of node-forge) runs on a worker thread while this one loads
// the app's modules; buildApp takes the keys from it (issue 30 item 5).
const keystore = prefetchKeystore(config.managementportalOauthKeyStore, config.managementportalOauthKeyStorePassword);

// Sentry first, as its SDK asks: before the app's modules are loaded.
if (config.sentryDsn) (await import('./platform/sentry.js')).initSentry({ ...config, sentryDsn: config.sentryDsn });

const { buildApp } = await import('./app.js');
let app: Awaited<ReturnType<typeof buildApp>>;
try {
  // An in-memory PGlite (dev) starts from a migrated snapshot kept in the temporary directory.
  app = await buildApp(config, { pgliteSnapshotDir: SNAPSHOT_DIR, keystore });
} catch (err) {
  process.stderr.write(`Start-up failed: ${(err as Error).message}\n`);
  process.exit(1);
}

// On SIGTERM/SIGINT: the server stops accepting connections (new requests on kept-alive ones get
// 503), idle connections are closed, in-flight requests finish, then the onClose hooks run (the
// database closes last) and the process exits 0. Past SHUTDOWN_TIMEOUT_SECONDS it exits 1.
closeWithGrace({
  delay: config.shutdownTimeoutSeconds * 1000,
  // close-with-grace reports a timeout or a failing close through this logger (not console).
  logger: { error: (problem: unknown) => app.log.error(problem instanceof Error ? { err: problem } : { problem: String(problem) }, 'shutdown failed') },
}, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

try {
  await app.listen({ host: config.host, port: config.port });
} catch (err) {
  process.stderr.write(`Start-up failed: cannot listen on ${config.host}:${config.port} (HOST, PORT): ${(err as Error).message}\n`);
  await app.close().catch(() => {});
  process.exit(1);
}

const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const wildcard = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
const host = wildcard ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
const base = `http://${host}:${port}`;
const database = config.database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
const startupSeconds = (performance.now() / 1000).toFixed(1);

app.log.info({ profile: config.profile, database: config.database.kind, port, startupMs: Math.round(performance.now()) }, 'started');
// A plain line for people reading the console, whatever the log format.
process.stdout.write(
  `RADAR platform ${config.version} (${config.profile}, ${database}) listening on ${base}` +
  ` · app server ${base}${config.appserverContextPath || '/'}` +
  ` · management ${base}${config.managementportalContextPath}` +
  ` · API docs ${base}/swagger-ui/` +
  ` · health ${base}/actuator/health` +
  ` · started in ${startupSeconds} s\n`,
);
