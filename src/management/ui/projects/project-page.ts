/**
 * `/projects/{name}` and its tabs: subjects (the default: filters in a `role="search"` GET form
 * kept in the URL, sort, 20 a page with keyset "Load more" and "N of M"; each row with its sources
 * and a status badge) and admins (a row per role a user holds in the project, each with "Remove");
 * groups.ts and sources.ts serve the groups and sources tabs. Each
 * tab calls the API's services with the signed-in user as actor: a tab shows what the API lists to that user, a denied one is a 403 page.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../../platform/errors.js';
import { AUTHORITY_DTOS } from '../../api/roles/service.js';
import { hasPermission } from '../../authz/oracle.js';
import { AccessDenied } from '../../errors.js';
import type { GroupService } from '../../api/groups/service.js';
import type { ProjectService } from '../../api/projects/service.js';
import type { SourceService } from '../../api/sources/service.js';
import type { SubjectService } from '../../api/subjects/service.js';
import type { UserService } from '../../api/users/service.js';
import { actorOf, principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import type { MessageKey } from '../../i18n/translator.js';
import { headerOf, PROJECT_NAME, projectFirst, projectHeader, subjectPath } from './project.js';
import type { ShownFields } from './subject-form.js';
import { filtersOf, listQueryOf, nextPageUrl, shownBefore, SORTS, SubjectsPageQuery } from './subject-list.js';

export interface ProjectPageServices {
  projects: ProjectService;
  subjects: SubjectService;
  groups: GroupService;
  sources: SourceService;
  users: UserService;
  fields: ShownFields;
}

const Params = Type.Object({ name: Type.String(PROJECT_NAME) });
const AdminsQuery = Type.Object({
  /** Notice after "Remove": who lost which role. */
  removed: Type.Optional(Type.String({ maxLength: 255 })),
  role: Type.Optional(Type.String({ maxLength: 50 })),
});
const RemoveRoleForm = Type.Object({
  _csrf: Type.String(),
  login: Type.String({ minLength: 1, maxLength: 255 }),
  authority: Type.String({ minLength: 1, maxLength: 50 }),
});
/** The roles the tab lists and removes: the project-scoped authorities (no participant roles, which belong to subjects). */
const PROJECT_AUTHORITIES = new Set(AUTHORITY_DTOS.filter((a) => a.scope === 'PROJECT').map((a) => a.name));
const NOTICES = ['created', 'updated', 'discontinued', 'deleted'] as const;

export const projectPageRoutes: FastifyPluginAsyncTypebox<ProjectPageServices> = async (app, { projects, subjects, groups, users, fields }) => {
  app.get('/projects/:name', { schema: { hide: true, params: Params, querystring: SubjectsPageQuery } }, async (request, reply) => {
    const { t, base } = context(request);
    const { name } = request.params;
    const filters = filtersOf(request.query);
    // A hidden field is no filter either.
    if (!fields.personName) filters.personName = '';
    if (!fields.dateOfBirth) filters.dateOfBirth = '';
    if (!fields.group) filters.groupId = '';
    const before = shownBefore(request.query);
    const actor = actorOf(request);
    // A reversed enrolment range is the form's problem (400, the filters kept, no list), not an error page.
    const filterError = filters.enrolledFrom && filters.enrolledTo && filters.enrolledFrom > filters.enrolledTo ? t('subjects.reversedRange') : null;
    // The project (PROJECT.READ: 403 or 404 page) for the header, its groups and the page (SUBJECT.READ) are read together.
    const [details, groupList, page] = await projectFirst([
      projects.summary(name, actor), groups.list(name, actor),
      filterError ? { items: [], paging: undefined } : subjects.list(listQueryOf(filters, request.query), actor, name),
    ]);
    const project = headerOf(request, name, 'subjects', details);
    const total = page.paging?.total ?? page.items.length;
    const shown = before + page.items.length;
    const last = page.paging?.lastRow;
    const projectNotice = request.query.project && t(`projectInfo.${request.query.project}`, { name });
    const notice = projectNotice || NOTICES.flatMap((kind) => {
      const login = request.query[kind];
      return login ? [t(`subjects.${kind}` as MessageKey, { login })] : [];
    })[0];
    return render(request, reply, 'projects/subjects', {
      title: t('project.title', { name }),
      project,
      notice,
      filterError,
      filters,
      fields,
      groups: groupList.map((g) => ({ id: String(g.id), name: g.name })),
      sorts: SORTS.map((value) => ({ value, label: t(`subjects.sort.${value}` as MessageKey) })),
      rows: page.items.map((subject) => ({
        login: subject.login,
        externalId: subject.externalId ?? '',
        personName: subject.personName ?? '',
        group: subject.group ?? '',
        status: t(`subjects.status.${subject.status}` as MessageKey),
        /** The badge's colour (ui.css `.badge-…`); the text above says the same, for who cannot see colour. */
        statusClass: `badge-${subject.status.toLowerCase()}`,
        // The list query brings each subject's sources (one query for the page, queries.ts `listSubjects`).
        sources: (subject.sources ?? []).map((source) => ({
          name: source.sourceName,
          type: [source.sourceTypeProducer, source.sourceTypeModel, source.sourceTypeCatalogVersion].filter(Boolean).join(' '),
        })),
        // Pairing and discontinuing need an activated subject (subjects.ts `notActiveReason`).
        active: subject.status === 'ACTIVATED',
        enrollmentDate: subject.enrollmentDate,
        path: subjectPath(base, name, subject.login),
      })),
      count: t('subjects.count', { shown, total }),
      next: last && shown < total ? nextPageUrl(project.path, filters, last, shown) : undefined,
      // The notice of a saved project is no filter.
      filtered: request.url.includes('?') && !/\?project=\w+$/.test(request.url),
    }, filterError ? 400 : 200);
  });

  /**
   * The admins tab: one row per role a user holds in the project, each with "Remove" for who
   * holds ROLE.UPDATE on the project (the service checks the rest, `requireUserChange`).
   */
  async function showAdmins(request: FastifyRequest, reply: FastifyReply, name: string, options: { removed?: { login: string; role: string }; error?: string; status?: number } = {}) {
    const { t } = context(request);
    const project = await projectHeader(request, projects, name, 'admins');
    const auth = principal(request);
    const mayRemove = hasPermission(auth, 'ROLE.UPDATE', { organization: project.organization, project: name });
    // The users filter matches project names by substring: keep the roles of this project only.
    const { users: list } = await users.list(auth, { projectName: name }, { page: 0, size: 2000, offset: 0, sort: [] });
    const rows = list.flatMap((user) => {
      const fullName = [user.firstName, user.lastName].filter(Boolean).join(' ');
      return user.roles.filter((role) => role.projectName === name && role.authorityName)
        .map((role) => ({ login: user.login, name: fullName, email: user.email ?? '', role: role.authorityName! }));
    });
    // The notice of a removal only while it holds: a link naming a role the user has is no news.
    const { removed } = options;
    const notice = removed && !rows.some((row) => row.login === removed.login && row.role === removed.role)
      ? t('admins.removed', { ...removed, project: name }) : undefined;
    return render(request, reply, 'projects/admins', {
      title: t('project.title', { name }), project, rows, mayRemove, notice, error: options.error,
      action: `${project.path}/admins/remove`,
    }, options.status ?? 200);
  }

  app.get('/projects/:name/admins', { schema: { hide: true, params: Params, querystring: AdminsQuery } }, async (request, reply) => {
    const { removed, role } = request.query;
    return showAdmins(request, reply, request.params.name, removed && role ? { removed: { login: removed, role } } : {});
  });

  /**
   * "Remove" of a role row: the user's role in this project taken away through the users service
   * (the API's role change: its checks, revision and audit event), then back on the tab naming who
   * lost which role. A refusal of the service is the tab again with an alert, nothing changed.
   */
  app.post('/projects/:name/admins/remove', { schema: { hide: true, params: Params, body: RemoveRoleForm } }, async (request, reply) => {
    const { t } = context(request);
    const { name } = request.params;
    const { login, authority } = request.body;
    // The project first (PROJECT.READ): a user of another project gets the 403 page.
    const project = await projectHeader(request, projects, name, undefined);
    const values = { login, role: authority };
    if (!PROJECT_AUTHORITIES.has(authority)) return showAdmins(request, reply, name, { error: t('admins.notHeld', values), status: 400 });
    try {
      await users.removeProjectRole(principal(request), login, name, authority);
    } catch (error) {
      if (error instanceof AccessDenied) return showAdmins(request, reply, name, { error: t('admins.denied', values), status: 403 });
      if (error instanceof DomainError && error.status === 404) return showAdmins(request, reply, name, { error: t('admins.notHeld', values), status: 404 });
      throw error;
    }
    const query = new URLSearchParams({ removed: login, role: authority });
    return reply.redirect(`${project.path}/admins?${query.toString()}`, 303);
  });
};
