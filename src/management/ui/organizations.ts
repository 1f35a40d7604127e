/**
 * `/organizations` and `/organizations/{name}` (managementportal.md §13, §2.4): the organizations
 * the signed-in user may see, and one organization with its projects (links to the project pages)
 * and its organization admins. The lists are the API's: `OrganizationService` with the user as
 * actor (ORGANIZATION.READ), and the users API's list for the admins (USER.READ: users the
 * signed-in user may not see are not shown).
 *
 * Create, edit (name, description, location) and delete (issue 31 item 1) call the same service as
 * `POST`/`PUT`/`DELETE /api/organizations`, after its permission check (ORGANIZATION.CREATE, a
 * global permission; ORGANIZATION.UPDATE and .DELETE on the organization): a user without it gets
 * the 403 page, GET or POST, and nothing changes. What the service refuses (a taken name, a name
 * the pattern refuses, an organization that still has projects) is shown on the form with what was
 * typed (400/409). A change answers 303 to the changed organization, whose page names it.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../platform/errors.js';
import { hasPermission } from '../authz/oracle.js';
import type { OrganizationService } from '../api/organizations/service.js';
import { USER_SORTS } from '../api/users/queries.js';
import type { UserService } from '../api/users/service.js';
import { MAX_PAGE_SIZE, pageOf } from '../http/paging.js';
import { actorOf, principal } from '../security/authorization.js';
import { requirePage } from './nav.js';
import { context, render } from './context.js';
import { formRefusal } from './errors.js';

const ORGANIZATION_ADMIN = 'ROLE_ORGANIZATION_ADMIN';
const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) });
const schema = { hide: true };
const NOTICE = Type.Union([Type.Literal('created'), Type.Literal('updated')]);
const DetailQuery = Type.Object({ notice: Type.Optional(NOTICE), deletedProject: Type.Optional(Type.String({ maxLength: 255 })) });
const ListQuery = Type.Object({ deleted: Type.Optional(Type.String({ maxLength: 255 })) });
const OrganizationForm = Type.Object({
  _csrf: Type.String(),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  location: Type.Optional(Type.String({ maxLength: 255 })),
});
type OrganizationFormT = Static<typeof OrganizationForm>;
const CsrfForm = Type.Object({ _csrf: Type.String() });

interface FormValues { name: string; description: string; location: string }

const valuesOf = (body: OrganizationFormT): FormValues =>
  ({ name: (body.name ?? '').trim(), description: body.description ?? '', location: body.location ?? '' });

export const organizationPath = (base: string, name: string) => `${base}/organizations/${encodeURIComponent(name)}`;

export const organizationRoutes: FastifyPluginAsyncTypebox<{ organizations: OrganizationService; users: UserService }> = async (app, { organizations, users }) => {
  const formPage = (request: FastifyRequest, reply: FastifyReply, mode: 'create' | 'edit', values: FormValues, options: { original?: string; error?: string; status?: number } = {}) => {
    const { t, base } = context(request);
    const title = mode === 'create' ? t('orgSetup.createTitle') : t('orgSetup.editTitle', { name: options.original ?? values.name });
    const action = mode === 'create' ? `${base}/organizations` : `${organizationPath(base, options.original!)}/edit`;
    const back = mode === 'create' ? `${base}/organizations` : organizationPath(base, options.original!);
    return render(request, reply, 'organizations/form', { title, mode, action, back, values, error: options.error }, options.status ?? 200);
  };

  app.get('/organizations', { schema: { ...schema, querystring: ListQuery } }, async (request, reply) => {
    requirePage(request, 'organizations');
    const ui = context(request);
    const list = await organizations.list(actorOf(request));
    const { deleted } = request.query;
    return render(request, reply, 'organizations/list', {
      title: ui.t('organizations.title'), organizations: list,
      // A notice only says what is true: a link naming an organization that is still there shows none.
      notice: deleted && !list.some((organization) => organization.name === deleted) ? ui.t('orgSetup.deleted', { name: deleted }) : undefined,
      mayCreate: hasPermission(principal(request), 'ORGANIZATION.CREATE'),
    });
  });

  app.get('/organizations/new', { schema }, async (request, reply) => {
    actorOf(request).check('ORGANIZATION.CREATE', {});
    return formPage(request, reply, 'create', { name: '', description: '', location: '' });
  });

  app.post('/organizations', { schema: { ...schema, body: OrganizationForm } }, async (request, reply) => {
    const actor = actorOf(request);
    actor.check('ORGANIZATION.CREATE', {});
    const values = valuesOf(request.body);
    try {
      const created = await organizations.create(values, actor);
      return reply.redirect(`${organizationPath(context(request).base, created.name)}?notice=created`, 303);
    } catch (error) {
      const refusal = formRefusal(error);
      if (!refusal) throw error;
      return formPage(request, reply, 'create', values, { error: refusal.message, status: refusal.status });
    }
  });

  app.get('/organizations/:name', { schema: { ...schema, params: NameParams, querystring: DetailQuery } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name } = request.params;
    const organization = await organizations.get(name, actorOf(request));
    const page = pageOf({ page: 0, size: MAX_PAGE_SIZE, sort: ['login,asc'] }, USER_SORTS);
    // `organization` filters by part of the name: the exact role is picked here.
    const { users: holders } = await users.list(principal(request), { organization: name, authority: ORGANIZATION_ADMIN, includeProvenance: false }, page);
    const admins = holders.filter((user) => user.roles.some((role) => role.authorityName === ORGANIZATION_ADMIN && role.organizationName === name));
    const auth = principal(request);
    const path = organizationPath(base, name);
    const { notice, deletedProject } = request.query;
    return render(request, reply, 'organizations/detail', {
      title: organization.name, organization, admins,
      notice: notice ? t(`orgSetup.${notice}`, { name: organization.name })
        : deletedProject && !organization.projects.some((project) => project.projectName === deletedProject)
          ? t('projectSetup.deleted', { name: deletedProject }) : undefined,
      editPath: hasPermission(auth, 'ORGANIZATION.UPDATE', { organization: name }) ? `${path}/edit` : undefined,
      deletePath: hasPermission(auth, 'ORGANIZATION.DELETE', { organization: name }) ? `${path}/delete` : undefined,
      createProjectPath: hasPermission(auth, 'PROJECT.CREATE', { organization: name }) ? `${base}/projects/new?organization=${encodeURIComponent(name)}` : undefined,
    });
  });

  app.get('/organizations/:name/edit', { schema: { ...schema, params: NameParams } }, async (request, reply) => {
    const { name } = request.params;
    const actor = actorOf(request);
    actor.check('ORGANIZATION.UPDATE', { organization: name });
    const organization = await organizations.get(name, actor);
    return formPage(request, reply, 'edit', organization, { original: organization.name });
  });

  app.post('/organizations/:name/edit', { schema: { ...schema, params: NameParams, body: OrganizationForm } }, async (request, reply) => {
    const { name } = request.params;
    const actor = actorOf(request);
    actor.check('ORGANIZATION.UPDATE', { organization: name });
    const organization = await organizations.get(name, actor);
    const values = valuesOf(request.body);
    try {
      const { organization: saved } = await organizations.save({ id: organization.id, ...values }, actor);
      return reply.redirect(`${organizationPath(context(request).base, saved.name)}?notice=updated`, 303);
    } catch (error) {
      const refusal = formRefusal(error);
      if (!refusal) throw error;
      return formPage(request, reply, 'edit', values, { original: organization.name, error: refusal.message, status: refusal.status });
    }
  });

  const confirmPage = (request: FastifyRequest, reply: FastifyReply, name: string, blocked?: string, status = 200) => {
    const { t, base } = context(request);
    const path = organizationPath(base, name);
    return render(request, reply, 'projects/confirm', {
      title: t('orgSetup.deleteTitle', { name }), text: t('orgSetup.deleteText'), button: t('orgSetup.delete'),
      action: `${path}/delete`, back: path, blocked,
    }, status);
  };

  app.get('/organizations/:name/delete', { schema: { ...schema, params: NameParams } }, async (request, reply) => {
    const { name } = request.params;
    const actor = actorOf(request);
    actor.check('ORGANIZATION.DELETE', { organization: name });
    const organization = await organizations.get(name, actor);
    return confirmPage(request, reply, organization.name);
  });

  app.post('/organizations/:name/delete', { schema: { ...schema, params: NameParams, body: CsrfForm } }, async (request, reply) => {
    const { name } = request.params;
    try {
      await organizations.remove(name, actorOf(request));
    } catch (error) {
      // An unknown organization is the 404 page, not a refusal to show on the form.
      const refusal = error instanceof DomainError && error.status === 404 ? undefined : formRefusal(error);
      if (!refusal) throw error;
      return confirmPage(request, reply, name, refusal.message, refusal.status);
    }
    return reply.redirect(`${context(request).base}/organizations?deleted=${encodeURIComponent(name)}`, 303);
  });
};
