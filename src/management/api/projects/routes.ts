/**
 * `/api/projects` (managementportal.md §2.3): create, update, list, read, delete, and a project's
 * source types and roles. A project's subjects and sources are served by those resources' routes.
 * Reading needs the scope `PROJECT.READ` first (a preHandler), then the permission on the project
 * itself once it is loaded (the service, through the caller's `Actor`).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { setPageHeaders } from '../../http/paging.js';
import { RoleDto } from '../roles/dto.js';
import { actorOf, requireScope } from '../../security/authorization.js';
import { SourceTypeDto } from '../source-types/dto.js';
import { ProjectDto } from './dto.js';
import { ProjectInput, ProjectListQuery, ProjectNameParams } from './schemas.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import type { ProjectService } from './service.js';

const tags = ['management: projects'];


const denied = { 401: ErrorVm, 403: ErrorVm };
const bad = Type.Union([ErrorVm, RadarErrorVm]);

export const projectsRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (app, { projects }) => {

  app.post('/projects', {
    schema: {
      tags, summary: 'Create a project in an organization', body: ProjectInput,
      response: { 201: ProjectDto, 400: bad, ...denied, 404: RadarErrorVm },
    },
  }, async (req, reply) => {
    const created = await projects.create(req.body, actorOf(req));
    return alert(reply.code(201).header('location', `/api/projects/${encodeURIComponent(created.projectName!)}`), 'project', 'created', created.projectName!)
      .send(created);
  });

  app.put('/projects', {
    schema: {
      tags, summary: 'Update a project (without id: create one); the name cannot change', body: ProjectInput,
      response: { 200: ProjectDto, 201: ProjectDto, 400: bad, ...denied, 404: RadarErrorVm },
    },
  }, async (req, reply) => {
    const { project, created } = await projects.save(req.body, actorOf(req));
    if (created) reply.code(201).header('location', `/api/projects/${encodeURIComponent(project.projectName!)}`);
    return alert(reply, 'project', created ? 'created' : 'updated', project.projectName!).send(project);
  });

  app.get('/projects', {
    schema: {
      tags, summary: 'The projects the caller may read, one page', querystring: ProjectListQuery,
      response: { 200: Type.Array(ProjectDto, { description: 'ProjectDTOs, or `{id, projectName}` when minimized' }), 400: ErrorVm, ...denied },
    },
    preHandler: requireScope('PROJECT.READ'),
  }, async (req, reply) => {
    const { items, total, page } = await projects.list(req.query, actorOf(req));
    setPageHeaders(reply, req, page, total);
    return items;
  });

  app.get('/projects/:projectName', {
    schema: { tags, summary: 'One project', params: ProjectNameParams, response: { 200: ProjectDto, 400: ErrorVm, ...denied, 404: RadarErrorVm } },
    preHandler: requireScope('PROJECT.READ'),
  }, async (req) => projects.get(req.params.projectName, actorOf(req)));

  app.get('/projects/:projectName/source-types', {
    schema: {
      tags, summary: 'The source types of a project', params: ProjectNameParams,
      response: { 200: Type.Array(SourceTypeDto), 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
    preHandler: requireScope('PROJECT.READ'),
  }, async (req) => projects.sourceTypes(req.params.projectName, actorOf(req)));

  app.get('/projects/:projectName/roles', {
    schema: {
      tags, summary: 'The roles on a project', params: ProjectNameParams,
      response: { 200: Type.Array(RoleDto), 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
    preHandler: requireScope('ROLE.READ'),
  }, async (req) => projects.roles(req.params.projectName, actorOf(req)));

  app.delete('/projects/:projectName', {
    schema: {
      tags, summary: 'Delete a project without subjects or sources', params: ProjectNameParams,
      response: { 200: Type.Null({ description: 'Empty body' }), 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
    preHandler: requireScope('PROJECT.DELETE'),
  }, async (req, reply) => {
    await projects.remove(req.params.projectName, actorOf(req));
    return alert(reply, 'project', 'deleted', req.params.projectName).send(undefined as never);
  });
};
