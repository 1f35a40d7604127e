/**
 * `/projects/{name}` and its tabs: subjects (the default: filters in a `role="search"` GET form
 * kept in the URL, sort, 20 a page with keyset "Load more" and "N of M") and admins (the users
 * with a role in the project); groups.ts and sources.ts serve the groups and sources tabs. Each
 * tab calls the API's services with the signed-in user as actor: a tab shows what the API lists to that user, a denied one is a 403 page.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { GroupService } from '../../api/groups/service.js';
import type { ProjectService } from '../../api/projects/service.js';
import type { SourceService } from '../../api/sources/service.js';
import type { SubjectService } from '../../api/subjects/service.js';
import type { UserService } from '../../api/users/service.js';
import { actorOf, principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import type { MessageKey } from '../../i18n/translator.js';
import { headerOf, PROJECT_NAME, projectHeader, subjectPath } from './project.js';
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
    const [details, groupList, page] = await Promise.all([
      projects.get(name, actor), groups.list(name, actor),
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

  app.get('/projects/:name/admins', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const { t } = context(request);
    const { name } = request.params;
    const project = await projectHeader(request, projects, name, 'admins');
    // The users filter matches project names by substring: keep the roles of this project only.
    const { users: list } = await users.list(principal(request), { projectName: name }, { page: 0, size: 2000, offset: 0, sort: [] });
    const admins = list.flatMap((user) => {
      const roles = user.roles.filter((role) => role.projectName === name).map((role) => role.authorityName ?? '');
      const fullName = [user.firstName, user.lastName].filter(Boolean).join(' ');
      return roles.length > 0 ? [{ login: user.login, name: fullName, email: user.email ?? '', roles }] : [];
    });
    return render(request, reply, 'projects/admins', { title: t('project.title', { name }), project, admins });
  });
};
