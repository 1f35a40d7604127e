/**
 * `/api/projects/{projectName}/groups` (managementportal.md §2.8): groups of subjects within a
 * project. The PATCH of a group's subjects is sent as `application/json-patch+json` by the
 * reference's UI; the domain's JSON parser takes every `+json` type.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../security/authorization.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { GroupDeleteQuery, GroupDto, GroupInput, GroupParams, GroupsParams, GroupSubjectsPatch } from './schemas.js';
import type { GroupService } from './service.js';

const tags = ['management: groups'];
const denied = { 401: ErrorVm, 403: ErrorVm };
const empty = Type.Null({ description: 'Empty body' });

export const groupsRoutes: FastifyPluginAsyncTypebox<{ groups: GroupService }> = async (app, { groups }) => {
  const base = '/projects/:projectName/groups';

  app.post(base, {
    schema: {
      tags, summary: 'Create a group in a project', params: GroupsParams, body: GroupInput,
      response: { 201: GroupDto, 400: ErrorVm, ...denied, 404: RadarErrorVm, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    const group = await groups.create(req.params.projectName, req.body, actorOf(req));
    const location = `/api/projects/${encodeURIComponent(req.params.projectName)}/groups/${encodeURIComponent(group.name)}`;
    return reply.code(201).header('location', location).send(group);
  });

  app.get(base, {
    schema: { tags, summary: 'The groups of a project', params: GroupsParams, response: { 200: Type.Array(GroupDto), 400: ErrorVm, ...denied, 404: RadarErrorVm } },
  }, async (req) => groups.list(req.params.projectName, actorOf(req)));

  app.get(`${base}/:groupName`, {
    schema: { tags, summary: 'One group', params: GroupParams, response: { 200: GroupDto, 400: ErrorVm, ...denied, 404: RadarErrorVm } },
  }, async (req) => groups.get(req.params.projectName, req.params.groupName, actorOf(req)));

  app.put(`${base}/:groupName`, {
    schema: {
      tags, summary: 'Rename a group (its subjects stay in it); not in the reference', params: GroupParams, body: GroupInput,
      response: { 200: GroupDto, 400: ErrorVm, ...denied, 404: RadarErrorVm, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    const group = await groups.rename(req.params.projectName, req.params.groupName, req.body, actorOf(req));
    const location = `/api/projects/${encodeURIComponent(req.params.projectName)}/groups/${encodeURIComponent(group.name)}`;
    return reply.header('location', location).send(group);
  });

  app.delete(`${base}/:groupName`, {
    schema: {
      tags, summary: 'Delete a group (with subjects only when `unlinkSubjects=true`)', params: GroupParams, querystring: GroupDeleteQuery,
      response: { 204: empty, 400: ErrorVm, ...denied, 404: RadarErrorVm, 409: RadarErrorVm },
    },
  }, async (req, reply) => {
    await groups.remove(req.params.projectName, req.params.groupName, req.query.unlinkSubjects ?? false, actorOf(req));
    return reply.code(204).send(null);
  });

  app.patch(`${base}/:groupName/subjects`, {
    schema: {
      tags, summary: 'Add subjects to and remove them from a group', params: GroupParams, body: GroupSubjectsPatch,
      response: { 204: empty, 400: Type.Union([ErrorVm, RadarErrorVm]), ...denied, 404: RadarErrorVm },
    },
  }, async (req, reply) => {
    await groups.patchSubjects(req.params.projectName, req.params.groupName, req.body, actorOf(req));
    return reply.code(204).send(null);
  });
};
