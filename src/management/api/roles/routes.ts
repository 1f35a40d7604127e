/**
 * `/api/roles` (managementportal.md §2.9). Creating and changing roles is for system admins (the
 * reference's `@Secured(ROLE_SYS_ADMIN)`); reading is for roles holding `ROLE.READ`, each seeing
 * the roles of its projects and organizations.
 *
 * Reference bug fixed: `GET /api/roles` made a global `ROLE.READ` check, so the project admins it
 * was meant to list roles for got 403; here any holder of the scope gets the roles it may see.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { principal, requireScope, requireSysAdmin } from '../../security/authorization.js';
import { RoleDto, type RoleDtoT } from './dto.js';
import { RoleInput, RoleParams } from './schemas.js';
import type { RoleService } from './service.js';

const tags = ['management: roles'];
const errors = { 400: ErrorVm, 401: ErrorVm, 403: ErrorVm };
const changeErrors = { ...errors, 400: Type.Union([ErrorVm, RadarErrorVm]), 404: RadarErrorVm, 409: Type.Union([RadarErrorVm, ErrorVm]) };

/** `HeaderUtil.buildPath`: URL-encoded components, absent ones skipped. */
const locationOf = (role: RoleDtoT) =>
  `/${['api', 'roles', role.projectName, role.authorityName].filter((c): c is string => !!c).map(encodeURIComponent).join('/')}`;
/** The alert's `<referent>: <authority>`; organization names are free text, so anything a header cannot carry is URL-encoded. */
const displayName = (role: RoleDtoT) => {
  const referent = role.projectName ?? role.organizationName;
  const name = referent ? `${referent}: ${role.authorityName}` : String(role.authorityName);
  return /^[\x20-\x7e]*$/.test(name) ? name : encodeURIComponent(name);
};

export const rolesRoutes: FastifyPluginAsyncTypebox<{ roles: RoleService }> = async (app, { roles }) => {

  app.post('/roles', {
    schema: { tags, summary: 'Create a role (system admins)', body: RoleInput, response: { 201: RoleDto, ...changeErrors } },
    preHandler: requireSysAdmin,
  }, async (req, reply) => {
    const role = await roles.create(principal(req), req.body);
    return alert(reply.code(201).header('location', locationOf(role)), 'role', 'created', displayName(role)).send(role);
  });

  app.put('/roles', {
    schema: { tags, summary: 'Change a role\'s authority or referent (system admins); creates one without an id', body: RoleInput, response: { 200: RoleDto, 201: RoleDto, ...changeErrors } },
    preHandler: requireSysAdmin,
  }, async (req, reply) => {
    const { role, created } = await roles.update(principal(req), req.body);
    if (created) return alert(reply.code(201).header('location', locationOf(role)), 'role', 'created', displayName(role)).send(role);
    return alert(reply, 'role', 'updated', displayName(role)).send(role);
  });

  app.get('/roles', {
    schema: { tags, summary: 'The roles the caller may read', response: { 200: Type.Array(RoleDto), ...errors } },
    preHandler: requireScope('ROLE.READ'),
  }, async (req) => roles.list(principal(req)));

  app.get('/roles/admin', {
    schema: { tags, summary: 'The system admin roles (system admins)', response: { 200: Type.Array(RoleDto), ...errors } },
    preHandler: requireSysAdmin,
  }, async () => roles.admins());

  app.get('/roles/:projectName/:authorityName', {
    schema: { tags, summary: 'The role of an authority in a project', params: RoleParams, response: { 200: RoleDto, ...errors, 404: RadarErrorVm } },
  }, async (req) => roles.get(principal(req), req.params.projectName, req.params.authorityName));
};
