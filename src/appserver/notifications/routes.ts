import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { MessageService } from '../messages/service.js';
import type { Access } from '../security/guard.js';
import { NotificationFilterQuery, NotificationStateEventDto, StateEventBody } from '../messages/schemas.js';
import { EmptyBody, errors, Id, IdParams, MessageIdParams, ProjectIdParams, ScheduleQuery, SubjectIdParams, SubjectParams } from '../schemas.js';
import {
  DuplicateNotification, FcmNotificationBody, FcmNotificationDtoRef, FcmNotificationsIn, FcmNotificationsOut, FcmNotificationsText,
  type FcmNotificationBodyT, type FcmNotificationDtoT,
} from './schemas.js';

const tags = ['appserver: notifications'];
const U = '/projects/:projectId/users/:subjectId/messaging/notifications';
const StateEvents = Type.Array(NotificationStateEventDto);

export const notificationRoutes: FastifyPluginAsyncTypebox<{ notifications: MessageService<FcmNotificationBodyT, FcmNotificationDtoT>; access: Access }> = async (app, { notifications, access }) => {
  app.get('/messaging/notifications', {
    schema: { tags, summary: 'The notifications the token may read', response: { 200: FcmNotificationsOut } },
  }, async (req) => ({ notifications: await notifications.list(access.scope(req)) }));

  app.get('/messaging/notifications/filtered', {
    schema: {
      tags, summary: 'The notifications the token may read that match the filters, by scheduled time',
      querystring: NotificationFilterQuery, response: { 200: FcmNotificationsOut, ...errors(400) },
    },
  }, async (req) => ({ notifications: await notifications.listFiltered(access.scope(req), req.query) }));

  app.get('/messaging/notifications/:id', {
    schema: { tags, summary: 'A notification by id', params: IdParams, response: { 200: FcmNotificationDtoRef, ...errors(400, 404) } },
  }, async (req) => notifications.get(req.params.id, access.scope(req)));

  app.get('/projects/:projectId/messaging/notifications', {
    schema: { tags, summary: 'Notifications of all users of a project', params: ProjectIdParams, response: { 200: FcmNotificationsOut, ...errors(404) } },
  }, async (req) => ({ notifications: await notifications.listOfProject(req.params.projectId, access.scope(req)) }));

  app.get(U, {
    schema: { tags, summary: "A user's notifications", params: SubjectParams, response: { 200: FcmNotificationsText, ...errors(404) } },
  }, async (req, reply) => {
    // PostgreSQL writes the DTOs (the response schema above documents them); a string with its
    // content type set is sent as it is.
    const list = await notifications.listOfUserJson(req.params.projectId, req.params.subjectId);
    return reply.type('application/json; charset=utf-8').send(`{"notifications":${list}}`);
  });

  // `/project/{projectId}/users/{subjectId}/notifications` is the seed document's spelling.
  for (const path of [U, '/project/:projectId/users/:subjectId/notifications']) {
    app.post(path, {
      schema: {
        tags, summary: 'Add a notification (scheduled unless ?schedule=false)', params: SubjectParams, querystring: ScheduleQuery,
        body: FcmNotificationBody, response: { 201: FcmNotificationDtoRef, 409: DuplicateNotification, ...errors(400, 404) },
      },
    }, async (req, reply) => {
      const dto = await notifications.add(req.params.projectId, req.params.subjectId, req.body, { schedule: req.query.schedule });
      return reply.code(201).header('location', `/messaging/notifications/${dto.id}`).send(dto);
    });
  }

  app.post(`${U}/batch`, {
    schema: {
      tags, summary: 'Add up to 200 notifications; returns only the new ones', params: SubjectParams, querystring: ScheduleQuery,
      body: FcmNotificationsIn, response: { 200: FcmNotificationsOut, ...errors(400, 404) },
    },
  }, async (req) => ({
    notifications: await notifications.addBatch(req.params.projectId, req.params.subjectId, req.body.notifications, { schedule: req.query.schedule }),
  }));

  app.put(U, {
    schema: {
      tags, summary: 'Update a notification (body id)', params: SubjectParams,
      body: FcmNotificationBody, response: { 200: FcmNotificationDtoRef, ...errors(400, 404, 409, 417) },
    },
  }, async (req) => notifications.update(req.params.projectId, req.params.subjectId, req.body));

  app.post(`${U}/schedule`, {
    schema: { tags, summary: "Schedule the user's unscheduled notifications", params: SubjectParams, response: { 200: FcmNotificationsOut, ...errors(404) } },
  }, async (req) => ({ notifications: await notifications.schedule(req.params.projectId, req.params.subjectId) }));

  app.post(`${U}/:notificationId/schedule`, {
    schema: { tags, summary: 'Schedule one notification', params: MessageIdParams, response: { 200: FcmNotificationDtoRef, ...errors(400, 404) } },
  }, async (req) => (await notifications.schedule(req.params.projectId, req.params.subjectId, req.params.notificationId))[0]!);

  app.delete(`${U}/all`, {
    schema: { tags, summary: "Delete all of the user's notifications", params: SubjectParams, response: { 200: EmptyBody, ...errors(404) } },
  }, async (req, reply) => {
    await notifications.remove(req.params.projectId, req.params.subjectId);
    return reply.send(undefined);
  });

  app.delete(`${U}/tasks/:id`, {
    schema: { tags, summary: "Delete the user's notifications of a task", params: SubjectIdParams, response: { 200: EmptyBody, ...errors(400, 404) } },
  }, async (req, reply) => {
    await notifications.remove(req.params.projectId, req.params.subjectId, { taskId: req.params.id });
    return reply.send(undefined);
  });

  app.delete(`${U}/:notificationId`, {
    schema: { tags, summary: 'Delete a notification', params: MessageIdParams, response: { 200: EmptyBody, ...errors(400, 404) } },
  }, async (req, reply) => {
    await notifications.remove(req.params.projectId, req.params.subjectId, { id: req.params.notificationId });
    return reply.send(undefined);
  });

  app.get('/messaging/notifications/:notificationId/state_events', {
    schema: {
      tags, summary: 'State events of a notification', params: Type.Object({ notificationId: Id() }),
      response: { 200: StateEvents, ...errors(400, 404) },
    },
  }, async (req) => notifications.listStateEvents(req.params.notificationId, access.scope(req)));

  app.get(`${U}/:notificationId/state_events`, {
    schema: { tags, summary: "State events of a user's notification", params: MessageIdParams, response: { 200: StateEvents, ...errors(400, 404) } },
  }, async (req) => notifications.listUserStateEvents(req.params.projectId, req.params.subjectId, req.params.notificationId));

  app.post(`${U}/:notificationId/state_events`, {
    schema: {
      tags, summary: 'Report a state (DELIVERED, OPENED, DISMISSED, ERRORED, UNKNOWN)', params: MessageIdParams,
      body: StateEventBody, response: { 200: StateEvents, ...errors(400, 404, 409) },
    },
  }, async (req) => notifications.postStateEvent(req.params.projectId, req.params.subjectId, req.params.notificationId, req.body));
};
