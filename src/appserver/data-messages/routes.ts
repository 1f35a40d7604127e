import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MessageService } from '../messages/service.js';
import type { Access } from '../security/guard.js';
import { DataMessageFilterQuery } from '../messages/schemas.js';
import { EmptyBody, errors, IdParams, ProjectIdParams, SubjectIdParams, SubjectParams } from '../schemas.js';
import {
  FcmDataMessageBody, FcmDataMessageDtoRef, FcmDataMessagesIn, FcmDataMessagesOut, FcmDataMessagesText,
  type FcmDataMessageBodyT, type FcmDataMessageDtoT,
} from './schemas.js';

const tags = ['appserver: data messages'];
const U = '/projects/:projectId/users/:subjectId/messaging/data';

export const dataMessageRoutes: FastifyPluginAsyncTypebox<{ dataMessages: MessageService<FcmDataMessageBodyT, FcmDataMessageDtoT>; access: Access }> = async (app, { dataMessages, access }) => {
  app.get('/messaging/data', {
    schema: { tags, summary: 'The data messages the token may read', response: { 200: FcmDataMessagesOut } },
  }, async (req) => ({ dataMessages: await dataMessages.list(access.scope(req)) }));

  app.get('/messaging/data/filtered', {
    schema: {
      tags, summary: 'The data messages the token may read that match the filters, by scheduled time',
      querystring: DataMessageFilterQuery, response: { 200: FcmDataMessagesOut, ...errors(400) },
    },
  }, async (req) => ({ dataMessages: await dataMessages.listFiltered(access.scope(req), req.query) }));

  app.get('/messaging/data/:id', {
    schema: { tags, summary: 'A data message by id', params: IdParams, response: { 200: FcmDataMessageDtoRef, ...errors(400, 404) } },
  }, async (req) => dataMessages.get(req.params.id, access.scope(req)));

  app.get('/projects/:projectId/messaging/data', {
    schema: { tags, summary: 'Data messages of all users of a project', params: ProjectIdParams, response: { 200: FcmDataMessagesOut, ...errors(404) } },
  }, async (req) => ({ dataMessages: await dataMessages.listOfProject(req.params.projectId, access.scope(req)) }));

  app.get(U, {
    schema: { tags, summary: "A user's data messages", params: SubjectParams, response: { 200: FcmDataMessagesText, ...errors(404) } },
  }, async (req, reply) => {
    // PostgreSQL writes the DTOs (the response schema above documents them); a string with its
    // content type set is sent as it is.
    const list = await dataMessages.listOfUserJson(req.params.projectId, req.params.subjectId);
    return reply.type('application/json; charset=utf-8').send(`{"dataMessages":${list}}`);
  });

  app.post(U, {
    schema: {
      tags, summary: 'Add a data message (always scheduled); a repeat answers 208', params: SubjectParams,
      body: FcmDataMessageBody, response: { 201: FcmDataMessageDtoRef, ...errors(208, 400, 404) },
    },
  }, async (req, reply) => {
    const dto = await dataMessages.add(req.params.projectId, req.params.subjectId, req.body, { schedule: true });
    return reply.code(201).header('location', `/messaging/data/${dto.id}`).send(dto);
  });

  app.post(`${U}/batch`, {
    schema: {
      tags, summary: 'Add up to 200 data messages; returns only the new ones', params: SubjectParams,
      body: FcmDataMessagesIn, response: { 200: FcmDataMessagesOut, ...errors(400, 404) },
    },
  }, async (req) => ({
    dataMessages: await dataMessages.addBatch(req.params.projectId, req.params.subjectId, req.body.dataMessages, { schedule: true }),
  }));

  app.put(U, {
    schema: {
      tags, summary: 'Update a data message (body id)', params: SubjectParams,
      body: FcmDataMessageBody, response: { 200: FcmDataMessageDtoRef, ...errors(400, 404, 409, 417) },
    },
  }, async (req) => dataMessages.update(req.params.projectId, req.params.subjectId, req.body));

  app.delete(`${U}/all`, {
    schema: { tags, summary: "Delete all of the user's data messages", params: SubjectParams, response: { 200: EmptyBody, ...errors(404) } },
  }, async (req, reply) => {
    await dataMessages.remove(req.params.projectId, req.params.subjectId);
    return reply.send(undefined);
  });

  app.delete(`${U}/:id`, {
    schema: { tags, summary: 'Delete a data message', params: SubjectIdParams, response: { 200: EmptyBody, ...errors(400, 404) } },
  }, async (req, reply) => {
    await dataMessages.remove(req.params.projectId, req.params.subjectId, { id: req.params.id });
    return reply.send(undefined);
  });
};

