/**
 * The app server's notifications in the admin UI (RADAR-Appserver #3/#4): `/notifications` (the
 * projects), `/notifications/{projectId}` (its app users: token set, last opened and delivered),
 * `/notifications/{projectId}/{subjectId}` (each notification with its state history, and a form
 * that sends a test notification through the app server's scheduler). Viewing needs SUBJECT.READ
 * and sending SUBJECT.UPDATE on (project, subject), checked with the signed-in user as actor.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ProjectService } from '../../api/projects/service.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { NotFound } from '../../errors.js';
import { actorOf, type Actor } from '../../security/authorization.js';
import { requirePage } from '../nav.js';
import { context, render } from '../context.js';
import type { NotificationDesk } from './desk.js';
import type { Translate } from '../../i18n/translator.js';

const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 255 }) });
const SubjectParams = Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 255 }), subjectId: Type.String({ minLength: 1, maxLength: 255 }) });
const SendForm = Type.Object({
  _csrf: Type.String(),
  title: Type.String({ maxLength: 255 }),
  body: Type.Optional(Type.String({ maxLength: 4000 })),
});
const SentQuery = Type.Object({ sent: Type.Optional(Type.String({ maxLength: 20 })) });
const hide = { hide: true };

/**
 * A state as a coordinator should read it (issue 31 item 9): EXECUTED means FCM accepted the
 * message, not that a phone shows it; only DELIVERED is the app's own report.
 */
const stateLabel = (t: Translate) => (state: string): string =>
  state === 'EXECUTED' ? t('notifications.stateExecuted') : state === 'DELIVERED' ? t('notifications.stateDelivered') : state;

export const notificationPages: FastifyPluginAsyncTypebox<{ projects: ProjectService; desk: NotificationDesk | undefined; audit: AuditLog }> = async (app, { projects, desk, audit }) => {
  /** The project's organization, with 403/404 as the API answers them; then the permission on (project, subject). */
  async function check(actor: Actor, permission: string, projectId: string, subject?: string) {
    const project = await projects.summary(projectId, actor);
    actor.check(permission, { organization: project.organizationName ?? null, project: projectId, subject: subject ?? null });
    return project;
  }
  const requireDesk = () => {
    if (!desk) throw new NotFound('The app server is not available', 'notification', 'error.appServerUnavailable');
    return desk;
  };

  app.get('/notifications', { schema: hide }, async (request, reply) => {
    requirePage(request, 'notifications');
    const ui = context(request);
    const { items } = await projects.list({ page: 0, size: 2_147_483_647, minimized: true }, actorOf(request));
    const names = items.map((project) => project.projectName ?? '').filter(Boolean).sort((a, b) => a.localeCompare(b));
    return render(request, reply, 'notifications/projects', { title: ui.t('notifications.title'), projects: names });
  });

  app.get('/notifications/:projectId', { schema: { ...hide, params: ProjectParams } }, async (request, reply) => {
    const ui = context(request);
    const { projectId } = request.params;
    await check(actorOf(request), 'SUBJECT.READ', projectId);
    const users = await requireDesk().users(projectId);
    return render(request, reply, 'notifications/users', { title: ui.t('notifications.usersTitle', { project: projectId }), projectId, users: users ?? [] });
  });

  app.get('/notifications/:projectId/:subjectId', { schema: { ...hide, params: SubjectParams, querystring: SentQuery } }, async (request, reply) => {
    const ui = context(request);
    const { projectId, subjectId } = request.params;
    await check(actorOf(request), 'SUBJECT.READ', projectId, subjectId);
    const notifications = await requireDesk().notifications(projectId, subjectId);
    if (!notifications) throw new NotFound(ui.t('notifications.noUser', { subject: subjectId }), 'notification', 'error.userNotFound');
    return render(request, reply, 'notifications/user', {
      title: ui.t('notifications.userTitle', { subject: subjectId }), projectId, subjectId, notifications,
      sent: request.query.sent === '1', form: { title: ui.t('notifications.testTitle'), body: ui.t('notifications.testBody') }, error: null,
      push: requireDesk().push, stateLabel: stateLabel(ui.t),
    });
  });

  app.post('/notifications/:projectId/:subjectId', { schema: { ...hide, params: SubjectParams, body: SendForm } }, async (request, reply) => {
    const ui = context(request);
    const { projectId, subjectId } = request.params;
    const actor = actorOf(request);
    await check(actor, 'SUBJECT.UPDATE', projectId, subjectId);
    const title = request.body.title.trim();
    const body = request.body.body ?? '';
    const sink = requireDesk();
    if (!title) {
      const notifications = (await sink.notifications(projectId, subjectId)) ?? [];
      return render(request, reply, 'notifications/user', {
        title: ui.t('notifications.userTitle', { subject: subjectId }), projectId, subjectId, notifications,
        sent: false, form: { title, body }, error: ui.t('notifications.titleRequired'), push: sink.push, stateLabel: stateLabel(ui.t),
      }, 400);
    }
    // An unknown app user is the notification service's 404. A unique source per send: two tests
    // with the same text are two notifications, not a duplicate.
    const sent = await sink.sendNow(projectId, subjectId, { title, body, sourceId: `managementportal-${actor.name}-${Date.now()}` });
    request.log.info({ projectId, subjectId, notificationId: sent.id, by: actor.name }, 'test notification queued');
    // The app server stored the notification in its own transaction; the audit event follows it (batched writer).
    audit.record({
      principal: actor.name, type: 'TEST_NOTIFICATION_SENT', address: request.ip, target: { type: 'subject', id: subjectId },
      data: { projectId, notificationId: String(sent.id), title },
    });
    return reply.redirect(`${ui.base}/notifications/${encodeURIComponent(projectId)}/${encodeURIComponent(subjectId)}?sent=1`, 303);
  });
};
