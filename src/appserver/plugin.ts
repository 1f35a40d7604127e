/**
 * The app server domain (replaces RADAR-Appserver): its error bodies, JSON parsing and routes.
 * Not wrapped in fastify-plugin, so its hooks and handlers stay inside its scope.
 */
import type { FastifyPluginAsync } from 'fastify';
import { createErrorHandler, documentClientErrors } from '../platform/errors.js';
import { acceptEmptyJsonBodies } from '../platform/json-body.js';
import { rejectUnstorableInput } from '../platform/input-guard.js';
import type { Database } from '../platform/database.js';
import { appserverErrorFormat } from './errors.js';
import { appserverEvents } from './events.js';
import { component, ErrorDetails } from './schemas.js';
import { ProjectDto } from './projects/schemas.js';
import { FcmUserDto } from './users/schemas.js';
import { createProjectService } from './projects/service.js';
import { createUserService } from './users/service.js';
import { projectRoutes } from './projects/routes.js';
import { userRoutes } from './users/routes.js';
import { createMessageService } from './messages/service.js';
import { createStudyNotifications } from './study-notifications.js';
import { notificationCodec } from './notifications/codec.js';
import { notificationRoutes } from './notifications/routes.js';
import { FcmNotificationDto } from './notifications/schemas.js';
import { dataMessageCodec } from './data-messages/codec.js';
import { dataMessageRoutes } from './data-messages/routes.js';
import { FcmDataMessageDto } from './data-messages/schemas.js';
import { createNotificationEmailSender } from './transmit/email.js';
import { createFcmSender, resolveFcmSender } from './transmit/fcm.js';
import { createScheduler } from './scheduler/scheduler.js';
import { createSchedulerMetrics } from './scheduler/metrics.js';
import { createGithubClient } from './github/client.js';
import { createGithubContentCache } from './github/content-cache.js';
import { createGithubProxy, proxyFetchOptions } from './github/proxy.js';
import { ownerSet } from './github/proxy-url.js';
import { githubRoutes } from './github/routes.js';
import { createProtocolService, ProtocolsUnavailable } from './protocols/service.js';
import { protocolRoutes } from './protocols/routes.js';
import { access, installGuard } from './security/guard.js';
import { createAppserverSecurity, type LocalTokenAuthority } from './security/setup.js';
import type { RadarIsConfig } from './security/radar-is-config.js';
import type { Config } from '../config.js';
import { createScheduleService } from './schedules/service.js';
import { scheduleRoutes } from './schedules/routes.js';
import { startScheduleRuns } from './schedules/interval.js';
import { scheduleProtocolSource, type ProtocolSource } from './schedules/protocol.js';
import { createTaskService } from './tasks/service.js';
import { taskRoutes } from './tasks/routes.js';
import { createUploadService } from './uploads/service.js';
import { uploadRoutes } from './uploads/routes.js';
import type { FileStorage } from './uploads/storage.js';

export { seedAppserverDemoData } from './demo-data.js';
export type { LocalTokenAuthority } from './security/setup.js';
export { readRadarIsConfig, type RadarIsConfig } from './security/radar-is-config.js';

/** The admin UI's view of notifications (its `NotificationDesk`): `app.ts` hands it to the management domain. */
export const appserverNotificationDesk = (db: Database, bus: Parameters<typeof appserverEvents>[0], config: Parameters<typeof resolveFcmSender>[0] & Pick<Config, 'schedulerEnabled'>) => {
  const sender = resolveFcmSender(config);
  const mode = sender === 'disabled' ? 'disabled' : config.fcmEmulatorHost ? 'emulator' : 'fcm';
  return createStudyNotifications({ db, events: appserverEvents(bus), push: { mode, emulatorHost: config.fcmEmulatorHost, scheduler: config.schedulerEnabled } });
};

export interface AppserverPluginOptions {
  /** The authorization server in this process: its keys and its users' status (issue 21 item 2a). */
  tokenAuthority: LocalTokenAuthority;
  /** `readRadarIsConfig(RADAR_IS_CONFIG_LOCATION)`, read before the database opens. */
  radarIs?: RadarIsConfig;
  /** Clock in epoch milliseconds (tests move time). */
  now?: () => number;
  /** Where schedule generation gets users' protocols (default: the GitHub-backed protocols; tests pass fixed ones). */
  protocolSource?: ProtocolSource | undefined;
}

export type { ProtocolSource } from './schedules/protocol.js';

export const appserverPlugin: FastifyPluginAsync<AppserverPluginOptions> = async (app, { tokenAuthority, radarIs, now = Date.now, protocolSource: givenSource }) => {
  const db: Database = app.db.db;
  const events = appserverEvents(app.events);
  const { config } = app;

  acceptEmptyJsonBodies(app);
  // A NUL character or a coerced Infinity anywhere in a request: 400, before the database refuses it.
  app.addHook('preHandler', rejectUnstorableInput());
  const handler = createErrorHandler(appserverErrorFormat);
  app.setErrorHandler(handler);
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(appserverErrorFormat.body(404, `No endpoint ${request.method} ${request.url.split('?')[0]}`, request, null));
  });

  const security = createAppserverSecurity({
    enabled: config.securityRadarManagementportalEnabled,
    managementportalUrl: config.securityRadarManagementportalUrl,
    resourceId: config.securityOauth2ResourceId,
    radarIs,
  }, { local: tokenAuthority, log: app.logLevels.component('appserver-security'), now });
  // Before any route: every route from here on is guarded by its line in security/permissions.ts.
  installGuard(app, { contextPath: config.appserverContextPath, authenticator: security.authenticator });
  app.addHook('onRoute', documentClientErrors({ badRequest: { $ref: 'ErrorDetails#' }, uriTooLong: { $ref: 'ErrorDetails#' }, unsupportedMediaType: { $ref: 'ErrorDetails#' } }));
  app.addHook('onReady', async () => {
    if (security.authenticator || config.profile === 'prod') await security.start();
  });

  app.addSchema(component('ErrorDetails', ErrorDetails));
  app.addSchema(component('ProjectDto', ProjectDto));
  app.addSchema(component('FcmUserDto', FcmUserDto));
  app.addSchema(component('FcmNotificationDto', FcmNotificationDto));
  app.addSchema(component('FcmDataMessageDto', FcmDataMessageDto));

  const projects = createProjectService({ db });
  const users = createUserService({ db, events });
  const notifications = createMessageService(notificationCodec, { db, events });
  const dataMessages = createMessageService(dataMessageCodec, { db, events });

  const github = createGithubClient({
    apiUrl: config.githubApiUrl,
    token: config.githubClientToken,
    timeoutMs: config.githubClientTimeout * 1000,
    maxContentLength: config.githubClientMaxContentLength,
  });
  const githubLog = app.logLevels.component('github');
  const githubProxyOwners = ownerSet(config.githubProxyAllowedOwners);
  const githubCache = createGithubContentCache({
    db, github, log: githubLog, fetchOptions: proxyFetchOptions({ github, allowedOwners: githubProxyOwners }),
    settings: {
      durationMs: config.githubCacheDuration * 1000, retryMs: config.githubCacheRetryDuration * 1000,
      maxEntries: config.githubCacheSize, maxBytes: config.githubCacheMaxBytes,
    },
  });
  const githubProxy = createGithubProxy({ cache: githubCache, allowedOwners: githubProxyOwners });
  const protocols = createProtocolService({
    db, github, events, log: githubLog,
    source: { repo: config.protocolGithubRepoPath, branch: config.protocolGithubBranch, fileName: config.protocolGithubFileName },
    durationMs: config.githubCacheDuration * 1000,
    retryMs: config.githubCacheRetryDuration * 1000,
  });
  app.addHook('onClose', async () => {
    await protocols.close();
    await githubCache.close();
  });

  await app.register(projectRoutes, { projects, access });
  await app.register(userRoutes, { users, access });
  await app.register(notificationRoutes, { notifications, access });
  await app.register(dataMessageRoutes, { dataMessages, access });
  await app.register(protocolRoutes, { protocols, access });
  await app.register(githubRoutes, { proxy: githubProxy });

  const protocolSource = givenSource ?? scheduleProtocolSource(protocols, events, (err) => err instanceof ProtocolsUnavailable);
  const schedules = createScheduleService({
    db, events, protocols: protocolSource, log: app.logLevels.component('schedules'), concurrency: app.config.questionnaireScheduleConcurrency,
  });
  const tasks = createTaskService({ db, events });
  await app.register(scheduleRoutes, { schedules });
  await app.register(taskRoutes, { tasks, access });
  // The reference's `@ConditionalOnProperty(radar.file-upload.enabled)`: off, the route does not exist (404).
  if (config.fileUploadEnabled) {
    // Loaded only when switched on: the AWS SDK alone costs about 0.2 s of every start.
    const { createLocalStorage, createS3Storage, prepareLocalStorage } = await import('./uploads/storage.js');
    const uploadLog = app.log.child({ component: 'uploads' });
    let storage: FileStorage;
    if (config.storageType === 'local') {
      await prepareLocalStorage(config.storageLocalPath!);
      storage = createLocalStorage(config.storageLocalPath!, uploadLog);
    } else {
      storage = createS3Storage({
        url: config.storageS3Url!, region: config.storageS3Region, accessKey: config.storageS3AccessKey!,
        secretKey: config.storageS3SecretKey!, bucket: config.storageS3BucketName,
      }, uploadLog);
    }
    app.addHook('onClose', async () => storage.close());
    const uploads = createUploadService({
      storage, now, settings: { prefix: config.storageS3PathPrefix, collectPerDay: config.storageS3PathCollectPerDay },
    });
    await app.register(uploadRoutes, { uploads, maxBytes: config.fileUploadMaxSize });
  }
  startScheduleRuns(app, { schedules, events, protocols: protocolSource, intervalSeconds: app.config.questionnaireScheduleIntervalSeconds });

  // The scheduler (and FCM with it) runs only where enabled: an API-only process needs no credentials.
  const metrics = createSchedulerMetrics(app.metrics);
  if (config.schedulerEnabled) {
    const log = app.logLevels.component('scheduler');
    const fcm = await createFcmSender(config, log);
    const email = config.notificationEmailEnabled
      ? createNotificationEmailSender({ mailer: app.mail, from: config.notificationEmailFrom, log })
      : undefined;
    const scheduler = createScheduler({
      db, events, fcm, email, metrics, log,
      settings: {
        tickMs: config.schedulerTickMs,
        batchSize: config.schedulerBatchSize,
        concurrency: config.schedulerConcurrency,
        leaseSeconds: config.schedulerLeaseSeconds,
        maxAttempts: config.schedulerMaxAttempts,
        retrySeconds: config.schedulerRetrySeconds,
        emailMaxAttempts: config.notificationEmailMaxAttempts,
        emailRetrySeconds: config.notificationEmailRetrySeconds,
      },
    });
    app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => {
      await scheduler.stop();
      await email?.close();
      await fcm.close();
    });
  }
};

