import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdQuery, ProjectIdParams } from '../schemas.js';
import { ProjectBody, ProjectDtoRef, ProjectDtos } from './schemas.js';
import type { ProjectService } from './service.js';

const tags = ['appserver: projects'];

export const projectRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (app, { projects }) => {
  app.post('/projects', {
    schema: { tags, summary: 'Create a project', body: ProjectBody, response: { 201: ProjectDtoRef, ...errors(400, 409, 417) } },
  }, async (req, reply) => {
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
    schema: { tags, summary: 'All projects', response: { 200: ProjectDtos } },
  }, async () => ({ projects: await projects.list() }));

  app.get('/projects/project', {
    schema: { tags, summary: 'A project by its numeric id', querystring: IdQuery, response: { 200: ProjectDtoRef, ...errors(400, 404, 417) } },
  }, async (req) => projects.getById(req.query.id));

  app.get('/projects/:projectId', {
    schema: { tags, summary: 'A project by its projectId', params: ProjectIdParams, response: { 200: ProjectDtoRef, ...errors(404) } },
  }, async (req) => projects.getByProjectId(req.params.projectId));
};
