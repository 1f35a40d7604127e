/**
 * `/organizations` and `/organizations/{name}` (managementportal.md §13, §2.4): the organizations
 * the signed-in user may see, and one organization with its projects (links to the project pages)
 * and its organization admins. The lists are the API's: `OrganizationService` with the user as
 * actor (ORGANIZATION.READ), and the users API's list for the admins (USER.READ: users the
 * signed-in user may not see are not shown).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OrganizationService } from '../api/organizations/service.js';
import { USER_SORTS } from '../api/users/queries.js';
import type { UserService } from '../api/users/service.js';
import { MAX_PAGE_SIZE, pageOf } from '../http/paging.js';
import { actorOf, authorizeScope, principal } from '../security/authorization.js';
import { context, render } from './context.js';

const ORGANIZATION_ADMIN = 'ROLE_ORGANIZATION_ADMIN';
const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });
const schema = { hide: true };

export const organizationRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationService; users: UserService }> = async (app, { organizations, users }) => {
  app.get('/organizations', { schema }, async (request, reply) => {
    authorizeScope(request, 'ORGANIZATION.READ');
    const ui = context(request);
    const list = await organizations.list(actorOf(request));
    return render(request, reply, 'organizations/list', { title: ui.t('organizations.title'), organizations: list });
  });

  app.get('/organizations/:name', { schema: { ...schema, params: NameParams } }, async (request, reply) => {
    const { name } = request.params;
    const organization = await organizations.get(name, actorOf(request));
    const page = pageOf({ page: 0, size: MAX_PAGE_SIZE, sort: ['login,asc'] }, USER_SORTS);
    // `organization` filters by part of the name: the exact role is picked here.
    const { users: holders } = await users.list(principal(request), { organization: name, authority: ORGANIZATION_ADMIN, includeProvenance: false }, page);
    const admins = holders.filter((user) => user.roles.some((role) => role.authorityName === ORGANIZATION_ADMIN && role.organizationName === name));
    return render(request, reply, 'organizations/detail', { title: organization.name, organization, admins });
  });
};
