// The bound for the notification-list benchmark: a bare Fastify route that does per
// `GET /projects/{p}/users/{s}/messaging/notifications` (and `…/messaging/data`) what the
// service must do at the least, with postgres.js on the same database and pool size:
//  1. the project and its user (404 when either is unknown),
//  2. every message of that user and kind, oldest id first (the same SELECT of the message
//     columns the answer shows),
//  3. the rows as the DTO's JSON (epoch seconds with the milliseconds as fraction), by a plain
//     map and JSON.stringify.
// The benchmark checks that both answers are byte for byte the same.
// Not done here (it is our overhead that the ratio measures): the bearer token, the permission
// check, query building, the response schema.
// Started by bench/notifications-list.mjs: node notifications-list-bound-server.mjs port databaseUrl poolSize; prints its port.
import Fastify from 'fastify';
import postgres from 'postgres';

const [port, databaseUrl, poolSize] = process.argv.slice(2);
const sql = postgres(databaseUrl, { max: Number(poolSize), onnotice: () => {}, connection: { application_name: 'notifications-list-bound' } });

const userOf = (projectId, subjectId) => sql`select p.id as project, u.id as user from appserver.projects p
  left join appserver.users u on u.project_id = p.id and u.subject_id = ${subjectId} where p.project_id = ${projectId} limit 1`;

const messagesOf = (kind, userId) => sql`select id, scheduled_time, delivered, ttl_seconds, source_id, fcm_message_id, fcm_topic, fcm_condition,
  app_package, source_type, priority, mutable_content, created_at, updated_at, data, title, body, type, sound, badge, subtitle, icon, color,
  body_loc_key, body_loc_args, title_loc_key, title_loc_args, android_channel_id, tag, click_action, email_enabled, email_title, email_body
  from appserver.messages where kind = ${kind} and user_id = ${userId} order by id`;

const common = (r) => ({
  id: Number(r.id), scheduledTime: r.scheduled_time.getTime() / 1000, delivered: r.delivered, ttlSeconds: r.ttl_seconds, sourceId: r.source_id,
  fcmMessageId: r.fcm_message_id, fcmTopic: r.fcm_topic, fcmCondition: r.fcm_condition, appPackage: r.app_package, sourceType: r.source_type,
  priority: r.priority, mutableContent: r.mutable_content, createdAt: r.created_at.getTime() / 1000, updatedAt: r.updated_at.getTime() / 1000,
});
const notification = (r) => Object.assign(common(r), {
  title: r.title ?? '', body: r.body, type: r.type ?? '', additionalData: r.data, sound: r.sound, badge: r.badge, subtitle: r.subtitle, icon: r.icon,
  color: r.color, bodyLocKey: r.body_loc_key, bodyLocArgs: r.body_loc_args, titleLocKey: r.title_loc_key, titleLocArgs: r.title_loc_args,
  androidChannelId: r.android_channel_id, tag: r.tag, clickAction: r.click_action, emailEnabled: r.email_enabled, emailTitle: r.email_title, emailBody: r.email_body,
});
const dataMessage = (r) => Object.assign(common(r), { dataMap: r.data });

const app = Fastify({ logger: false });
const route = (path, kind, key, dto) => app.get(path, async (req, reply) => {
  const [found] = await userOf(req.params.projectId, req.params.subjectId);
  if (!found?.user) return reply.code(404).send({ error: 'not found' });
  const rows = await messagesOf(kind, found.user);
  reply.type('application/json; charset=utf-8');
  return JSON.stringify({ [key]: rows.map(dto) });
});
route('/projects/:projectId/users/:subjectId/messaging/notifications', 'notification', 'notifications', notification);
route('/projects/:projectId/users/:subjectId/messaging/data', 'data', 'dataMessages', dataMessage);
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.stdout.write(`${app.server.address().port}\n`);
