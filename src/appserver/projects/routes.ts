import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdQuery, ProjectIdParams } from '../schemas.js';
import { ProjectBody, ProjectDtoRef, ProjectDtos } from './schemas.js';
import type { ProjectService } from './service.js';
import { noProjectPermission, type Access } from '../security/guard.js';

const tags = ['appserver: projects'];

export const projectRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService; access: Access }> = async (app, { projects, access }) => {
  app.post('/projects', {
    schema: { tags, summary: 'Create a project', body: ProjectBody, response: { 201: ProjectDtoRef, ...errors(400, 409, 417) } },
  }, async (req, reply) => {
    const { projectId } = req.body;
    // Kept from the reference: a participant may create its own project (the questionnaire app does, clients.md §2.1).
    if (projectId) access.require(req, { project: projectId }, noProjectPermission(projectId));
    const dto = await projects.create(req.body);
    return reply.code(201).header('location', `/projects/project?id=${dto.id}`).send(dto);
  });

  app.post('/projects/:projectId', {
    schema: {
      tags, summary: 'Create the project named in the path', params: ProjectIdParams,
      body: ProjectBody, response: { 201: ProjectDtoRef, ...errors(400, 409, 417) },
    },
  }, async (req, reply) => {
    const dto = await projects.create(req.body ?? {}, req.params.projectId);
    return reply.code(201).header('location', `/projects/project?id=${dto.id}`).send(dto);
  });

  app.put('/projects/:projectId', {
    schema: {
      tags, summary: 'Rename the project named in the path (a body id must be its id)', params: ProjectIdParams,
      body: ProjectBody, response: { 200: ProjectDtoRef, ...errors(400, 404, 409, 417) },
    },
  }, async (req) => projects.update(req.params.projectId, req.body));

  app.get('/projects', {
    schema: { tags, summary: 'The projects the token may read', response: { 200: ProjectDtos } },
  }, async (req) => ({ projects: await projects.list(access.scope(req)) }));

  app.get('/projects/project', {
    schema: { tags, summary: 'A project by its numeric id', querystring: IdQuery, response: { 200: ProjectDtoRef, ...errors(400, 404, 417) } },
  }, async (req) => {
    const dto = await projects.getById(req.query.id);
    access.require(req, { project: dto.projectId }, noProjectPermission(dto.projectId));
    return dto;
  });

  app.get('/projects/:projectId', {
    schema: { tags, summary: 'A project by its projectId', params: ProjectIdParams, response: { 200: ProjectDtoRef, ...errors(404) } },
  }, async (req) => projects.getByProjectId(req.params.projectId));
};
