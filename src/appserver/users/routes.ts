import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EmptyBody, errors, IdQuery, ProjectIdParams, SubjectParams } from '../schemas.js';
import { FcmUserBody, FcmUserCreateBody, FcmUserDtoRef, FcmUsers, ForceFcmTokenQuery } from './schemas.js';
import type { UserService } from './service.js';
import { NOT_ENOUGH_PRIVILEGES, type Access } from '../security/guard.js';

const tags = ['appserver: users'];

export const userRoutes: FastifyPluginAsyncTypebox<{ users: UserService; access: Access }> = async (app, { users, access }) => {
  // `/project/{projectId}/users` is the seed document's spelling of the same operation.
  for (const path of ['/projects/:projectId/users', '/project/:projectId/users']) {
    app.post(path, {
      schema: {
        tags, summary: 'Create a user in a project', params: ProjectIdParams, querystring: ForceFcmTokenQuery,
        body: FcmUserCreateBody, response: { 201: FcmUserDtoRef, ...errors(400, 404, 409, 417) },
      },
    }, async (req, reply) => {
      access.require(req, { project: req.params.projectId, subject: req.body.subjectId }, NOT_ENOUGH_PRIVILEGES);
      const dto = await users.create(req.params.projectId, req.body, { forceFcmToken: req.query.forceFcmToken });
      return reply.code(201).header('location', `/users/user?id=${dto.id}`).send(dto);
    });
  }

  app.post('/projects/:projectId/users/:subjectId', {
    schema: {
      tags, summary: 'Create the user named in the path', params: SubjectParams, querystring: ForceFcmTokenQuery,
      body: FcmUserBody, response: { 201: FcmUserDtoRef, ...errors(400, 404, 409, 417) },
    },
  }, async (req, reply) => {
    const dto = await users.create(req.params.projectId, req.body, { forceFcmToken: req.query.forceFcmToken, pathSubjectId: req.params.subjectId });
    return reply.code(201).header('location', `/users/user?id=${dto.id}`).send(dto);
  });

  app.put('/projects/:projectId/users/:subjectId', {
    schema: {
      tags, summary: 'Update a user', params: SubjectParams, querystring: ForceFcmTokenQuery,
      body: FcmUserBody, response: { 200: FcmUserDtoRef, ...errors(400, 404, 409) },
    },
  }, async (req) => users.update(req.params.projectId, req.params.subjectId, req.body, { forceFcmToken: req.query.forceFcmToken }));

  app.get('/users', {
    schema: { tags, summary: 'The users the token may read', response: { 200: FcmUsers } },
  }, async (req) => ({ users: await users.list(access.scope(req)) }));

  app.get('/users/user', {
    schema: { tags, summary: 'A user by numeric id', querystring: IdQuery, response: { 200: FcmUserDtoRef, ...errors(400, 404, 417) } },
  }, async (req) => {
    const dto = await users.getById(req.query.id);
    access.require(req, { project: dto.projectId, subject: dto.subjectId }, NOT_ENOUGH_PRIVILEGES);
    return dto;
  });

  app.get('/users/:subjectId', {
    schema: {
      tags, summary: 'A user by subjectId', params: Type.Object({ subjectId: Type.String({ minLength: 1 }) }),
      response: { 200: FcmUserDtoRef, ...errors(404, 409) },
    },
  }, async (req) => {
    const dto = await users.getBySubjectId(req.params.subjectId);
    access.require(req, { project: dto.projectId, subject: dto.subjectId }, NOT_ENOUGH_PRIVILEGES);
    return dto;
  });

  app.get('/projects/:projectId/users', {
    schema: { tags, summary: 'Users of a project', params: ProjectIdParams, response: { 200: FcmUsers, ...errors(404) } },
  }, async (req) => ({ users: await users.listOfProject(req.params.projectId, access.scope(req)) }));

  app.get('/projects/:projectId/users/:subjectId', {
    schema: { tags, summary: 'A user of a project', params: SubjectParams, response: { 200: FcmUserDtoRef, ...errors(404) } },
  }, async (req) => users.get(req.params.projectId, req.params.subjectId));

  app.delete('/projects/:projectId/users/:subjectId', {
    schema: { tags, summary: 'Delete a user and their messages', params: SubjectParams, response: { 200: EmptyBody, ...errors(404) } },
  }, async (req, reply) => {
    await users.remove(req.params.projectId, req.params.subjectId);
    return reply.code(200).send(undefined);
  });
};
