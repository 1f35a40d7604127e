/**
 * A project's groups (issue 31 item 3): the groups tab lists them with "Create group", and each
 * can be renamed and deleted (confirmed on a page); the subject list's selection (a checkbox a
 * row, "Select all on this page") is added to a group or taken out of it. Every form calls the
 * API's group service with the signed-in user as actor (PROJECT.UPDATE to create, rename and
 * delete, SUBJECT.UPDATE to move subjects), answers success with a 303 to the groups tab naming
 * what changed, and a refusal of the service with the form again: an alert and what was typed.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GroupDtoT } from '../../api/groups/schemas.js';
import type { GroupService } from '../../api/groups/service.js';
import { ENTITY_ID } from '../../api/projects/schemas.js';
import { AccessDenied } from '../../errors.js';
import type { ProjectService } from '../../api/projects/service.js';
import { actorOf } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { formRefusal } from '../errors.js';
import type { MessageKey } from '../../i18n/translator.js';
import { PROJECT_NAME, projectFirst, projectHeader, projectPath, type ProjectHeader } from './project.js';

export interface GroupPagesServices {
  projects: ProjectService;
  groups: GroupService;
}

const GROUP_NAME = { minLength: 1, maxLength: 255 } as const;
const Params = Type.Object({ name: Type.String(PROJECT_NAME) });
const GroupParams = Type.Object({ name: Type.String(PROJECT_NAME), group: Type.String(GROUP_NAME) });
const GroupNotices = Type.Object({
  created: Type.Optional(Type.String({ maxLength: 255 })),
  renamed: Type.Optional(Type.String({ maxLength: 255 })),
  deleted: Type.Optional(Type.String({ maxLength: 255 })),
  added: Type.Optional(Type.String({ maxLength: 255 })),
  removed: Type.Optional(Type.String({ maxLength: 255 })),
  count: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
});
const NameForm = Type.Object({ _csrf: Type.String(), name: Type.Optional(Type.String({ maxLength: 1000 })) });
const DeleteForm = Type.Object({ _csrf: Type.String(), unlinkSubjects: Type.Optional(Type.String({ maxLength: 10 })) });
const Logins = Type.Union([Type.String({ maxLength: 255 }), Type.Array(Type.String({ maxLength: 255 }), { maxItems: 1000 })]);
/** The subject list's selection form: checked logins, and with `allOnPage` every login of the page. */
const MembersForm = Type.Object({
  _csrf: Type.String(),
  group: Type.Optional(Type.String({ maxLength: 255 })),
  op: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
  login: Type.Optional(Logins),
  allOnPage: Type.Optional(Type.String({ maxLength: 10 })),
  onPage: Type.Optional(Logins),
});

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** A group name the form refuses before asking the service (the API's rule, said in words). */
const nameProblem = (name: string): MessageKey | undefined =>
  (name.length < 1 || name.length > 50 || !ENTITY_ID.test(name) ? 'groups.nameInvalid' : undefined);

/** Whether the signed-in user holds `permission` on the project of `header` (to offer a form or not). */
export function mayOnProject(request: FastifyRequest, header: ProjectHeader, permission: string, more: { subject?: string | null; source?: string } = {}): boolean {
  try {
    actorOf(request).check(permission, { project: header.name, organization: header.organization || null, ...more });
    return true;
  } catch (error) {
    // The 403 the service would answer: the form is not offered.
    if (error instanceof AccessDenied) return false;
    throw error;
  }
}

/**
 * Throws the 403 (or 404) page unless the user holds `permission` on project `name`: the check the
 * group service makes, for a form refused before it is asked.
 */
async function mayChangeWith(projects: ProjectService, request: FastifyRequest, name: string, permission: string): Promise<void> {
  const project = await projectHeader(request, projects, name, 'groups');
  actorOf(request).check(permission, { project: project.name, organization: project.organization || null });
}

export const groupPagesRoutes: FastifyPluginAsyncTypebox<GroupPagesServices> = async (app, { projects, groups }) => {
  const mayChange = (request: FastifyRequest, name: string, permission: string) => mayChangeWith(projects, request, name, permission);
  const groupPath = (project: ProjectHeader, group: string) => `${project.path}/groups/${encodeURIComponent(group)}`;

  async function showTab(request: FastifyRequest, reply: FastifyReply, name: string, options: { notice?: string; error?: string; typed?: string; status?: number } = {}) {
    const { t } = context(request);
    const [project, list] = await projectFirst([projectHeader(request, projects, name, 'groups'), groups.list(name, actorOf(request))]);
    return render(request, reply, 'projects/groups', {
      title: t('project.title', { name }),
      project,
      groups: list.map((group: GroupDtoT) => ({ id: group.id, name: group.name, path: groupPath(project, group.name) })),
      notice: options.notice,
      error: options.error,
      typed: options.typed ?? '',
      mayEdit: mayOnProject(request, project, 'PROJECT.UPDATE'),
    }, options.status ?? 200);
  }

  app.get('/projects/:name/groups', { schema: { hide: true, params: Params, querystring: GroupNotices } }, async (request, reply) => {
    const { t } = context(request);
    const q = request.query;
    const notice = q.created ? t('groups.created', { group: q.created })
      : q.renamed ? t('groups.renamed', { group: q.renamed })
        : q.deleted ? t('groups.deleted', { group: q.deleted })
          : q.added ? t('groups.added', { group: q.added, count: q.count ?? 0 })
            : q.removed ? t('groups.removed', { group: q.removed, count: q.count ?? 0 }) : undefined;
    return showTab(request, reply, request.params.name, { notice });
  });

  app.post('/projects/:name/groups', { schema: { hide: true, params: Params, body: NameForm } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name } = request.params;
    const typed = (request.body.name ?? '').trim();
    const problem = nameProblem(typed);
    // Who may not create groups gets the 403 page, whatever was typed.
    if (problem) {
      await mayChange(request, name, 'PROJECT.UPDATE');
      return showTab(request, reply, name, { error: t(problem), typed, status: 400 });
    }
    try {
      const created = await groups.create(name, { name: typed }, actorOf(request));
      return reply.redirect(`${projectPath(base, name)}/groups?created=${encodeURIComponent(created.name)}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return showTab(request, reply, name, { error: refused.message, typed, status: refused.status });
    }
  });

  async function showRename(request: FastifyRequest, reply: FastifyReply, params: { name: string; group: string }, typed: string, error?: { message: string; status: number }) {
    const { t } = context(request);
    const project = await projectHeader(request, projects, params.name, 'groups');
    const group = await groups.get(params.name, params.group, actorOf(request));
    return render(request, reply, 'projects/group-rename', {
      title: t('groups.renameTitle', { group: group.name }), project, action: `${groupPath(project, group.name)}/rename`, typed, error: error?.message,
    }, error?.status ?? 200);
  }

  app.get('/projects/:name/groups/:group/rename', { schema: { hide: true, params: GroupParams } }, async (request, reply) =>
    showRename(request, reply, request.params, request.params.group));

  app.post('/projects/:name/groups/:group/rename', { schema: { hide: true, params: GroupParams, body: NameForm } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name, group } = request.params;
    const typed = (request.body.name ?? '').trim();
    const problem = nameProblem(typed);
    if (problem) {
      await mayChange(request, name, 'PROJECT.UPDATE');
      return showRename(request, reply, request.params, typed, { message: t(problem), status: 400 });
    }
    try {
      const renamed = await groups.rename(name, group, { name: typed }, actorOf(request));
      return reply.redirect(`${projectPath(base, name)}/groups?renamed=${encodeURIComponent(renamed.name)}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return showRename(request, reply, request.params, typed, refused);
    }
  });

  async function showDelete(request: FastifyRequest, reply: FastifyReply, params: { name: string; group: string }, error?: { message: string; status: number }, unlink = false) {
    const { t } = context(request);
    const project = await projectHeader(request, projects, params.name, 'groups');
    const group = await groups.get(params.name, params.group, actorOf(request));
    return render(request, reply, 'projects/group-delete', {
      title: t('groups.deleteTitle', { group: group.name }), project, action: `${groupPath(project, group.name)}/delete`,
      error: error?.message, unlink,
    }, error?.status ?? 200);
  }

  app.get('/projects/:name/groups/:group/delete', { schema: { hide: true, params: GroupParams } }, async (request, reply) =>
    showDelete(request, reply, request.params));

  app.post('/projects/:name/groups/:group/delete', { schema: { hide: true, params: GroupParams, body: DeleteForm } }, async (request, reply) => {
    const { base } = context(request);
    const { name, group } = request.params;
    const unlink = request.body.unlinkSubjects === 'true';
    try {
      await groups.remove(name, group, unlink, actorOf(request));
      return reply.redirect(`${projectPath(base, name)}/groups?deleted=${encodeURIComponent(group)}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return showDelete(request, reply, request.params, refused, unlink);
    }
  });

  /** The subject list's "Add to group" and "Remove from group" (the API's PATCH …/groups/{group}/subjects). */
  app.post('/projects/:name/group-subjects', { schema: { hide: true, params: Params, body: MembersForm } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name } = request.params;
    const body = request.body;
    const logins = [...new Set([...listOf(body.login), ...(body.allOnPage === 'true' ? listOf(body.onPage) : [])])];
    const group = body.group ?? '';
    const back = projectPath(base, name);
    const refuse = async (message: string, status: number) => {
      const project = await projectHeader(request, projects, name, 'subjects');
      return render(request, reply, 'projects/confirm', {
        title: t('groups.bulkFailed'), project, blocked: message, back, text: '', button: '', action: '',
      }, status);
    };
    try {
      if (logins.length === 0 || group === '') {
        // Who may not move subjects gets the 403 page, whatever was selected.
        await mayChange(request, name, 'SUBJECT.UPDATE');
        return await refuse(t(logins.length === 0 ? 'groups.noneSelected' : 'groups.noGroupChosen'), 400);
      }
      await groups.patchSubjects(name, group, [{ op: body.op, value: logins.map((login) => ({ login })) }], actorOf(request));
      const kind = body.op === 'add' ? 'added' : 'removed';
      return reply.redirect(`${back}/groups?${kind}=${encodeURIComponent(group)}&count=${logins.length}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return refuse(refused.message, refused.status);
    }
  });
};
