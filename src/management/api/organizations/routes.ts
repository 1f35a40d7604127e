/**
 * `/api/organizations` (managementportal.md §2.4): create, update, list, read, an organization's
 * projects, and delete (not in the reference: issue 31 item 1; only an organization without projects). The managementportal-client lists
 * organizations with `page=0&size=2147483647` (clients.md §4): the list is unpaged, so paging
 * parameters are accepted and ignored.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { PageQuery } from '../../http/paging.js';
import { ProjectDto } from '../projects/dto.js';
import { OrganizationInput } from '../projects/schemas.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { actorOf, requireScope } from '../../security/authorization.js';
import { OrganizationNameParams, OrganizationWithProjectsDto } from './schemas.js';
import type { OrganizationService } from './service.js';

const tags = ['management: organizations'];
const denied = { 401: ErrorVm, 403: ErrorVm };
const bad = Type.Union([ErrorVm, RadarErrorVm]);
const location = (name: string) => `/api/organizations/${encodeURIComponent(name)}`;

export const organizationsRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationService }> = async (app, { organizations }) => {

  app.post('/organizations', {
    schema: {
      tags, summary: 'Create an organization', body: OrganizationInput,
      response: { 201: OrganizationWithProjectsDto, 400: bad, ...denied, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    const created = await organizations.create(req.body, actorOf(req));
    return alert(reply.code(201).header('location', location(created.name)), 'organization', 'created', created.name).send(created);
  });

  app.put('/organizations', {
    schema: {
      tags, summary: 'Update an organization (without id: create one)', body: OrganizationInput,
      response: { 200: OrganizationWithProjectsDto, 201: OrganizationWithProjectsDto, 400: bad, ...denied, 404: RadarErrorVm, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    const { organization, created } = await organizations.save(req.body, actorOf(req));
    if (created) reply.code(201).header('location', location(organization.name));
    return alert(reply, 'organization', created ? 'created' : 'updated', organization.name).send(organization);
  });

  app.get('/organizations', {
    schema: {
      tags, summary: 'The organizations the caller may read (unpaged)', querystring: PageQuery,
      response: { 200: Type.Array(OrganizationWithProjectsDto), 400: ErrorVm, ...denied },
    },
    preHandler: requireScope('ORGANIZATION.READ'),
  }, async (req) => organizations.list(actorOf(req)));

  app.get('/organizations/:name', {
    schema: {
      tags, summary: 'One organization', params: OrganizationNameParams,
      response: { 200: OrganizationWithProjectsDto, 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
  }, async (req) => organizations.get(req.params.name, actorOf(req)));

  app.delete('/organizations/:name', {
    schema: {
      tags, summary: 'Delete an organization without projects (its organization roles go with it)', params: OrganizationNameParams,
      response: { 200: Type.Null({ description: 'Empty body' }), 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
    preHandler: requireScope('ORGANIZATION.DELETE'),
  }, async (req, reply) => {
    await organizations.remove(req.params.name, actorOf(req));
    return alert(reply, 'organization', 'deleted', req.params.name).send(undefined as never);
  });

  app.get('/organizations/:name/projects', {
    schema: {
      tags, summary: 'The projects of an organization the caller may read', params: OrganizationNameParams,
      response: { 200: Type.Array(ProjectDto), 400: ErrorVm, ...denied, 404: RadarErrorVm },
    },
  }, async (req) => organizations.projects(req.params.name, actorOf(req)));
};
