/** Process entry: read the configuration, build the app, listen, shut down gracefully. */
import { readFileSync } from 'node:fs';
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildApp } from './app.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

let config: Config;
try {
  config = loadConfig(process.env, pkg.version);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw err;
}

const started = performance.now();
let app: Awaited<ReturnType<typeof buildApp>>;
try {
  app = await buildApp(config);
} catch (err) {
  process.stderr.write(`Start-up failed: ${(err as Error).message}\n`);
  process.exit(1);
}

closeWithGrace({ delay: config.shutdownTimeoutSeconds * 1000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

await app.listen({ host: config.host, port: config.port });
const port = (app.server.address() as { port: number } | null)?.port ?? config.port;
const base = `http://localhost:${port}`;
app.log.info(
  { profile: config.profile, database: config.database.kind, startupMs: Math.round(performance.now() - started) },
  `RADAR platform ${config.version} (${config.profile}) ready: app server ${base}${config.appserverContextPath || '/'} · management ${base}${config.managementportalContextPath} · API docs ${base}/swagger-ui/ · health ${base}/actuator/health`,
);
