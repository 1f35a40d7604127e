import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EmptyBody, errors, SubjectParams } from '../schemas.js';
import { BareTaskIdParams, Task, TaskDeleteQuery, TaskIdParams, TaskQuery, TaskStateEventBody, TaskStateEventDto } from './schemas.js';
import type { Access } from '../security/guard.js';
import type { TaskService } from './service.js';

const tags = ['appserver: questionnaire schedule'];
const U = '/projects/:projectId/users/:subjectId/questionnaire/schedule';
const Tasks = Type.Array(Task);
const StateEvents = Type.Array(TaskStateEventDto);

export const taskRoutes: FastifyPluginAsyncTypebox<{ tasks: TaskService; access: Access }> = async (app, { tasks, access }) => {
  app.get(U, {
    schema: {
      tags, summary: "The subject's tasks (by window, type and search)", params: SubjectParams, querystring: TaskQuery,
      response: { 200: Tasks, ...errors(400, 404) },
    },
  }, async (req) => tasks.list(req.params.projectId, req.params.subjectId, req.query));

  app.delete(U, {
    schema: {
      tags, summary: "Delete the subject's tasks (by type and search) and their unsent notifications", params: SubjectParams,
      querystring: TaskDeleteQuery, response: { 200: EmptyBody, ...errors(400, 404) },
    },
  }, async (req, reply) => {
    await tasks.remove(req.params.projectId, req.params.subjectId, req.query);
    return reply.send(undefined);
  });

  app.get('/questionnaire/schedule/:taskId/state_events', {
    schema: { tags, summary: 'State events of a task', params: BareTaskIdParams, response: { 200: StateEvents, ...errors(400, 403, 404) } },
  }, async (req) => tasks.listStateEvents(req.params.taskId, access.scope(req)));

  app.get(`${U}/:taskId/state_events`, {
    schema: { tags, summary: "State events of a subject's task", params: TaskIdParams, response: { 200: StateEvents, ...errors(400, 404) } },
  }, async (req) => tasks.listUserStateEvents(req.params.projectId, req.params.subjectId, req.params.taskId));

  app.post(`${U}/:taskId/state_events`, {
    schema: {
      tags, summary: 'Report a task state (COMPLETED, UNKNOWN, ERRORED)', params: TaskIdParams,
      body: TaskStateEventBody, response: { 200: StateEvents, ...errors(400, 404, 409) },
    },
  }, async (req) => tasks.postStateEvent(req.params.projectId, req.params.subjectId, req.params.taskId, req.body));
};
