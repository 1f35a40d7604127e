/** Dev-profile demo data: project `radar` with users `sub-1`, `sub-2` and a few notifications. */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../platform/database.js';
import { findProjectByProjectId } from './projects/queries.js';
import { createProjectService } from './projects/service.js';
import { createUserService } from './users/service.js';

export async function seedAppserverDemoData(db: Database, log: FastifyBaseLogger): Promise<void> {
  if (await findProjectByProjectId(db, 'radar')) return; // already seeded (idempotent across restarts)
  await createProjectService({ db }).create({ projectId: 'radar' });
  const users = createUserService({ db });
  const enrolmentDate = new Date().toISOString();
  for (const [subjectId, fcmToken] of [['sub-1', 'demo-fcm-token-sub-1'], ['sub-2', 'demo-fcm-token-sub-2']] as const) {
    await users.create('radar', { subjectId, fcmToken, enrolmentDate, timezone: 'Europe/London', language: 'en' }, { forceFcmToken: false });
  }
  log.info({ project: 'radar', users: 2 }, 'app server demo data loaded');
}
