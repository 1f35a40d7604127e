/**
 * The app server domain (replaces RADAR-Appserver): its error bodies, JSON parsing and routes.
 * Not wrapped in fastify-plugin, so its hooks and handlers stay inside its scope.
 */
import type { FastifyPluginAsync } from 'fastify';
import { createErrorHandler } from '../platform/errors.js';
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
import { notificationCodec } from './notifications/codec.js';
import { notificationRoutes } from './notifications/routes.js';
import { FcmNotificationDto } from './notifications/schemas.js';
import { dataMessageCodec } from './data-messages/codec.js';
import { dataMessageRoutes } from './data-messages/routes.js';
import { FcmDataMessageDto } from './data-messages/schemas.js';
import { createNotificationEmailSender } from './transmit/email.js';
import { createFcmSender } from './transmit/fcm.js';
import { createScheduler } from './scheduler/scheduler.js';
import { createSchedulerMetrics } from './scheduler/metrics.js';
import { createScheduleService } from './schedules/service.js';
import { scheduleRoutes } from './schedules/routes.js';
import { startScheduleRuns } from './schedules/interval.js';
import { noProtocols, type ProtocolSource } from './schedules/protocol.js';
import { createTaskService } from './tasks/service.js';
import { taskRoutes } from './tasks/routes.js';

export { seedAppserverDemoData } from './demo-data.js';

export type { ProtocolSource } from './schedules/protocol.js';

export interface AppserverOptions {
  /** Where schedule generation gets users' protocols (default: none, so nothing is generated). */
  protocolSource?: ProtocolSource;
}

export const appserverPlugin: FastifyPluginAsync<AppserverOptions> = async (app, opts) => {
  const db: Database = app.db.db;
  const events = appserverEvents(app.events);

  acceptEmptyJsonBodies(app);
  // A NUL character or a coerced Infinity anywhere in a request: 400, before the database refuses it.
  app.addHook('preHandler', rejectUnstorableInput());
  const handler = createErrorHandler(appserverErrorFormat);
  app.setErrorHandler(handler);
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(appserverErrorFormat.body(404, `No endpoint ${request.method} ${request.url.split('?')[0]}`, request, null));
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

  await app.register(projectRoutes, { projects });
  await app.register(userRoutes, { users });
  await app.register(notificationRoutes, { notifications });
  await app.register(dataMessageRoutes, { dataMessages });

  // TODO(merge with issue-20-github): pass the GitHub-backed protocol source from protocols/.
  const protocols = opts.protocolSource ?? noProtocols;
  const schedules = createScheduleService({
    db, events, protocols, log: app.log.child({ component: 'schedules' }), concurrency: app.config.questionnaireScheduleConcurrency,
  });
  const tasks = createTaskService({ db, events });
  await app.register(scheduleRoutes, { schedules });
  await app.register(taskRoutes, { tasks });
  startScheduleRuns(app, { schedules, events, protocols, intervalSeconds: app.config.questionnaireScheduleIntervalSeconds });

  // The scheduler (and FCM with it) runs only where enabled: an API-only process needs no credentials.
  const metrics = createSchedulerMetrics(app.metrics);
  const { config } = app;
  if (config.schedulerEnabled) {
    const log = app.log.child({ component: 'scheduler' });
    const fcm = await createFcmSender(config, log);
    const email = config.notificationEmailEnabled
      ? createNotificationEmailSender({ mailer: app.mail, from: config.notificationEmailFrom, counter: metrics.emails, log })
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

