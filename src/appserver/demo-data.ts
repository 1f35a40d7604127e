/** Dev-profile demo data: project `radar` with users `sub-1`, `sub-2` and a few notifications. */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../platform/database.js';
import { EventBus } from '../platform/events.js';
import type { AppserverEvents } from './events.js';
import { createMessageService } from './messages/service.js';
import { notificationCodec } from './notifications/codec.js';
import { findProjectByProjectId } from './projects/queries.js';
import { createProjectService } from './projects/service.js';
import { createUserService } from './users/service.js';

const HOUR = 3600_000;

export async function seedAppserverDemoData(db: Database, log: FastifyBaseLogger, clock = () => new Date()): Promise<void> {
  if (await findProjectByProjectId(db, 'radar')) return; // already seeded (idempotent across restarts)
  await createProjectService({ db }).create({ projectId: 'radar' });
  // Nobody listens at start-up; the bus only satisfies the services' contract.
  const events = new EventBus<AppserverEvents>(log);
  const users = createUserService({ db, events });
  const now = clock();
  for (const subjectId of ['sub-1', 'sub-2']) {
    await users.create('radar', {
      subjectId, fcmToken: `demo-fcm-token-${subjectId}`, enrolmentDate: now.toISOString(), timezone: 'Europe/London', language: 'en',
    }, { forceFcmToken: false });
  }
  const notifications = createMessageService(notificationCodec, { db, events, clock });
  const demo = [1, 2, 3].map((n) => ({
    title: 'Questionnaire time',
    body: `Demo questionnaire ${n}: it won't take longer than 5 minutes`,
    ttlSeconds: 3600,
    sourceId: 'demo-source',
    type: 'PHQ8',
    sourceType: 'aRMT',
    appPackage: 'org.phidatalab.radar_armt',
    scheduledTime: new Date(now.getTime() + n * 24 * HOUR).toISOString(),
    additionalData: { action: 'QUESTIONNAIRE_TRIGGER' },
  }));
  await notifications.addBatch('radar', 'sub-1', demo, { schedule: false });
  log.info({ project: 'radar', users: 2, notifications: demo.length }, 'app server demo data loaded');
}
