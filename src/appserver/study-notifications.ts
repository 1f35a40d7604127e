/**
 * The app server's side of the admin UI's notification pages (the management domain declares
 * what it needs as `NotificationDesk`; `app.ts` hands it this). Reads go through the app server's
 * queries; a test notification goes through the notification service, as `POST …/notifications`
 * does: stored SCHEDULED and due now, so the scheduler sends it (dedupe, FCM, state events).
 */
import type { Database } from '../platform/database.js';
import type { AppserverEventBus } from './events.js';
import { createMessageService } from './messages/service.js';
import { notificationCodec } from './notifications/codec.js';
import * as messages from './messages/queries.js';
import { findProjectByProjectId } from './projects/queries.js';
import { findProjectAndUser, listUsersOfProject } from './users/queries.js';
import { EVERYTHING } from './security/oracle.js';

/** Where the scheduler sends (the management domain's `PushRoute`, declared again: the domains share no imports). */
export interface PushRoute { mode: 'fcm' | 'emulator' | 'disabled'; emulatorHost?: string | undefined; scheduler: boolean }

/** The app package of the questionnaire app (aRMT), the reference's default for generated notifications. */
const ARMT_PACKAGE = 'org.phidatalab.radar-armt';
/** A test notification may wait this long for a device that is offline. */
const TEST_TTL_SECONDS = 86_400;

export function createStudyNotifications(deps: { db: Database; events: AppserverEventBus; push: PushRoute; clock?: () => Date }) {
  const { db, push } = deps;
  const clock = deps.clock ?? (() => new Date());
  const service = createMessageService(notificationCodec, deps);

  return {
    push,

    /** The project's app users; undefined when the app server does not know the project. */
    async users(projectId: string) {
      const project = await findProjectByProjectId(db, projectId);
      if (!project) return undefined;
      // The management side checked the signed-in user's permission on the project.
      return (await listUsersOfProject(db, project.id, EVERYTHING)).map(({ user }) => ({
        subjectId: user.subjectId,
        fcmTokenSet: Boolean(user.fcmToken),
        lastOpened: user.lastOpened,
        lastDelivered: user.lastDelivered,
      }));
    },

    /** A user's notifications, newest first, each with its state history; undefined for an unknown user. */
    async notifications(projectId: string, subjectId: string) {
      const found = await findProjectAndUser(db, projectId, subjectId);
      if (!found?.user) return undefined;
      const rows = await messages.listUserMessages(db, 'notification', found.user.id);
      const events = await messages.listStateEventsOfMessages(db, rows.map((row) => row.id));
      return rows.reverse().map((row) => ({
        id: row.id,
        title: row.title ?? '',
        body: row.body,
        scheduledTime: row.scheduledTime,
        state: row.state,
        states: events.filter((event) => event.messageId === row.id).map((event) => ({ state: event.state, time: event.time })),
      }));
    },

    /** Stores a notification due now for the scheduler to send. */
    async sendNow(projectId: string, subjectId: string, message: { title: string; body: string; sourceId: string }) {
      const stored = await service.add(projectId, subjectId, {
        title: message.title, body: message.body, type: 'test', sourceType: 'ManagementPortal', sourceId: message.sourceId,
        appPackage: ARMT_PACKAGE, scheduledTime: clock().toISOString(), ttlSeconds: TEST_TTL_SECONDS,
      }, { schedule: true });
      return { id: stored.id };
    },
  };
}
