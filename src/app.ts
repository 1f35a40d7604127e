/**
 * buildApp(config): the whole service as one Fastify instance. Platform plugins first, then the
 * two domains under their context paths. `main.ts` and the tests use this same wiring.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fastifyTrustProxy, type Config } from './config.js';
import './platform/types.js';
import { EventBus } from './platform/events.js';
import { closeLogDestinations, logDestinations, loggerOptions, LogLevels, logStream, requestLoggerFactory } from './platform/logging.js';
import { databasePlugin } from './platform/database-plugin.js';
import type { PgliteLease } from './platform/database.js';
import { openapiPlugin } from './platform/openapi.js';
import { actuatorErrorFormat, actuatorPlugin } from './platform/actuator.js';
import { routerErrorHandler } from './platform/errors.js';
import { appserverErrorFormat } from './appserver/errors.js';
import { managementErrorFormat } from './management/errors.js';
import { codeDocsPlugin } from './platform/code-docs.js';
import { ajvOptions, perPartSchemaController } from './platform/validation.js';
import { appserverNotificationDesk, appserverPlugin, readRadarIsConfig, seedAppserverDemoData, type ProtocolSource } from './appserver/plugin.js';
import { loadManagementKeys, localTokenAuthority, MANAGEMENT_API_PATHS, managementPlugin, managementRouterErrorPages, managementSettings } from './management/plugin.js';
import { httpSecurityPlugin } from './platform/http-security.js';
import type { KeystoreRead } from './management/oauth/keystore-reader.js';

export interface BuildOptions {
  /** Replaces the logger built from the config (tests pass `false` or a stream). */
  logger?: FastifyServerOptions['logger'];
  /** PGlite only: start from this migrated data-directory snapshot. */
  pgliteDataDir?: Blob;
  /** PGlite only: an open instance lent by the caller, handed back on close (tests reuse one per worker). */
  pglite?: PgliteLease;
  /** PGlite only, without `pgliteDataDir`: keep and reuse a migrated snapshot here (main.ts: the temporary directory). */
  pgliteSnapshotDir?: string;
  /** Load the dev profile's demo data (default: when the profile is dev). */
  demoData?: boolean;
  /**
   * Told about every route as it is added (tests check the route table against the OpenAPI
   * document; the fuzzer adds a route-level hook that counts the requests each route answered).
   */
  onRoute?: (route: RouteOptions) => void;
  /** Where the app server's schedule generation gets protocols (tests pass fixed ones). */
  protocolSource?: ProtocolSource;
  /** The management domain's clock, epoch milliseconds (tests move it instead of sleeping). */
  managementNow?: () => number;
  /** A read of the management keystore already under way (main.ts starts it before loading this module). */
  keystore?: KeystoreRead | undefined;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  if (config.sentryDsn) (await import('./platform/sentry.js')).initSentry({ ...config, sentryDsn: config.sentryDsn });
  const destinations = options.logger ? [] : await logDestinations(config);
  // The admin UI's pages of the router's errors; the management plugin gives them its sessions.
  const routerErrorPages = managementRouterErrorPages(config.managementportalContextPath);
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel, logStream(destinations, config.logLevel)),
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: config.httpBodyLimitBytes,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    // Every plugin is async (no forgotten `done` to catch), and on a busy 2-core host the
    // management plugin (keystore, migrations, demo data) can take longer than Fastify's 10 s.
    pluginTimeout: 120_000,
    // Query strings and paths coerce ("12" → 12); JSON bodies are validated as sent.
    ajv: ajvOptions,
    schemaController: perPartSchemaController(),
    // A malformed URL or an over-long path parameter: the error body of the domain it falls in.
    frameworkErrors: routerErrorHandler([
      { prefix: config.appserverContextPath, format: appserverErrorFormat },
      { prefix: config.managementportalContextPath, format: managementErrorFormat, page: routerErrorPages.page },
      { prefix: '/actuator', format: actuatorErrorFormat },
    ]),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // The first onClose hook runs last: the log files take every line the other hooks write.
  app.addHook('onClose', async () => closeLogDestinations(destinations));
  if (options.onRoute) app.addHook('onRoute', options.onRoute);

  await app.register(fp(async (instance) => {
    instance.decorate('config', config);
    const logLevels = new LogLevels(instance.log);
    instance.decorate('logLevels', logLevels);
    instance.decorate('events', new EventBus(logLevels.component('events')));
  }, { name: 'platform-config' }));
  // First: every later response (pages, API, errors, 404s) carries the security headers.
  await app.register(httpSecurityPlugin, { allowedOrigins: config.corsAllowedOrigins, corsPaths: corsPaths(config) });

  const management = managementSettings(config);
  // Before the database: a bad keystore stops the start before anything is migrated.
  const managementKeys = await loadManagementKeys(management, app.logLevels.component('management'), options.keystore);
  // Likewise the app server's radar_is.yml (read even while its security is off: a bad file is a bad setting).
  const radarIs = config.radarIsConfigLocation ? readRadarIsConfig(config.radarIsConfigLocation) : undefined;

  const demoData = options.demoData ?? config.profile === 'dev';
  await app.register(databasePlugin, {
    pgliteDataDir: options.pgliteDataDir,
    pglite: options.pglite,
    pgliteSnapshotDir: options.pgliteSnapshotDir,
    startupTasks: demoData ? [async (handle) => seedAppserverDemoData(handle.db, app.log)] : [],
  });
  await app.register(openapiPlugin);
  await app.register(actuatorPlugin);
  await app.register((await import('./platform/mail.js')).mailPlugin);
  if (config.springBootAdminClientUrl) {
    await app.register((await import('./platform/admin-client.js')).adminClientPlugin, {
      settings: {
        url: config.springBootAdminClientUrl,
        username: config.springBootAdminClientUsername,
        password: config.springBootAdminClientPassword,
        instanceName: config.springBootAdminClientInstanceName,
        serviceBaseUrl: config.springBootAdminClientInstanceServiceBaseUrl,
        periodMs: config.springBootAdminClientPeriod,
        autoDeregistration: config.springBootAdminClientAutoDeregistration,
      },
    });
  }

  // The admin UI's notification pages read and send through the app server (the domains meet only here).
  const notificationDesk = appserverNotificationDesk(app.db.db, app.events, config);
  await app.register(managementPlugin, { prefix: config.managementportalContextPath, settings: management, keys: managementKeys, demoData, notificationDesk, now: options.managementNow, operations: app.operations, routerErrorPages });
  // The app server verifies this process's tokens with the management keys directly (no HTTP).
  await app.register(appserverPlugin, { prefix: config.appserverContextPath, tokenAuthority: localTokenAuthority(app.db.db, managementKeys), radarIs, protocolSource: options.protocolSource });
  // Beside the app server's API, outside its scope: the code documentation needs no token.
  await app.register(codeDocsPlugin, { path: `${config.appserverContextPath}/java-docs/` });
  return app;
}

/**
 * Where CORS applies: the app server's API (everything under its context path but the code
 * documentation and Swagger UI) and the management domain's API paths; not the admin UI's pages.
 */
function corsPaths(config: Config): Record<string, boolean> {
  const mp = config.managementportalContextPath;
  const appserver = config.appserverContextPath;
  return {
    [appserver]: true, [`${appserver}/java-docs`]: false, '/swagger-ui': false,
    [mp]: false, ...Object.fromEntries(MANAGEMENT_API_PATHS.map((path) => [`${mp}${path}`, true])),
  };
}
