/**
 * `/api/users` (managementportal.md §2.2): the accounts of people who run studies (participants
 * are managed as subjects). Each route needs its scope; the service then checks the permission on
 * the user concerned, whose roles decide who reaches it (users/service.ts).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { MAX_PAGE_SIZE, pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { RoleDto } from '../roles/dto.js';
import { principal, requireScope } from '../../security/authorization.js';
import { LoginParams, ManagedUserInput, RolesInput, UserDto, UsersQuery } from './schemas.js';
import type { UserService } from './service.js';
import { USER_SORTS } from './queries.js';

const tags = ['management: users'];
const errors = { 400: ErrorVm, 401: ErrorVm, 403: Type.Union([ErrorVm, RadarErrorVm]) };
const changeErrors = { ...errors, 400: Type.Union([ErrorVm, RadarErrorVm]), 404: RadarErrorVm, 409: ErrorVm };
const empty = Type.Null({ description: 'Empty body' });

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {

  app.post('/users', {
    schema: {
      tags, summary: 'Create a user (inactive, activated through its reset key)', body: ManagedUserInput,
      response: { 201: UserDto, ...changeErrors },
    },
    preHandler: requireScope('USER.CREATE'),
  }, async (req, reply) => {
    const user = await users.create(principal(req), req.body);
    return alert(reply.code(201).header('location', `/api/users/${encodeURIComponent(user.login)}`), 'userManagement', 'created', user.login).send(user);
  });

  app.put('/users', {
    schema: { tags, summary: 'Update a user and replace its roles', body: ManagedUserInput, response: { 200: UserDto, ...changeErrors } },
    preHandler: requireScope('USER.UPDATE'),
  }, async (req, reply) => {
    const user = await users.update(principal(req), req.body);
    return alert(reply, 'userManagement', 'updated', user.login).send(user);
  });

  app.get('/users', {
    schema: {
      tags, summary: 'Users that are not participants, filtered and paged', querystring: UsersQuery,
      response: { 200: Type.Array(UserDto), ...errors },
    },
    preHandler: requireScope('USER.READ'),
  }, async (req, reply) => {
    const page = pageOf(req.query, USER_SORTS, MAX_PAGE_SIZE);
    const { users: list, total } = await users.list(principal(req), req.query, page);
    setPageHeaders(reply, req, page, total);
    return list;
  });

  app.get('/users/:login', {
    schema: { tags, summary: 'One user', params: LoginParams, response: { 200: UserDto, ...errors, 404: RadarErrorVm } },
    preHandler: requireScope('USER.READ'),
  }, async (req) => users.get(principal(req), req.params.login));

  app.delete('/users/:login', {
    schema: { tags, summary: 'Delete a user (no error when there is none)', params: LoginParams, response: { 200: empty, ...errors } },
    preHandler: requireScope('USER.DELETE'),
  }, async (req, reply) => {
    await users.remove(principal(req), req.params.login);
    return alert(reply, 'userManagement', 'deleted', req.params.login).send(undefined as never);
  });

  app.get('/users/:login/roles', {
    schema: { tags, summary: 'The roles of a user', params: LoginParams, response: { 200: Type.Array(RoleDto), ...errors, 404: RadarErrorVm } },
    preHandler: requireScope('ROLE.READ'),
  }, async (req) => users.getRoles(principal(req), req.params.login));

  app.put('/users/:login/roles', {
    schema: { tags, summary: 'Replace the roles of a user', params: LoginParams, body: RolesInput, response: { 204: empty, ...changeErrors } },
    preHandler: requireScope('ROLE.UPDATE'),
  }, async (req, reply) => {
    await users.setRoles(principal(req), req.params.login, req.body);
    return reply.code(204).send(undefined as never);
  });
};
