/**
 * A project's sources (issue 31 item 4): the sources tab lists them with "Create source", "Edit"
 * and "Delete" (confirmed on a page); a subject's "Pair sources" page assigns the project's
 * unassigned sources to it, unassigns its sources, and adds a new source of a type that may be
 * registered dynamically, as the reference's source assigner dialog does. Every form calls the
 * API's source or subject-source service with the signed-in user as actor, answers success with
 * a 303 to the changed thing naming it, and a refusal of the service with the form again: an
 * alert and what was typed.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProjectService } from '../../api/projects/service.js';
import type { MinimalSourceDtoT, SourceDtoT } from '../../api/sources/dto.js';
import { sourceNotFound, type SourceService } from '../../api/sources/service.js';
import type { SourceTypeDtoT } from '../../api/source-types/dto.js';
import { ENTITY_ID } from '../../api/source-types/schemas.js';
import type { SubjectService } from '../../api/subjects/service.js';
import type { SubjectSourcesService } from '../../api/subjects/subject-sources.js';
import { actorOf } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { formRefusal } from '../errors.js';
import { PROJECT_NAME, projectFirst, projectHeader, projectPath, subjectPath, type ProjectHeader } from './project.js';
import { mayOnProject } from './groups.js';
import { attributesOf, FormProblem } from './subject-form.js';
import { notActiveReason, subjectOfProject } from './subjects.js';

export interface SourcePagesServices {
  projects: ProjectService;
  sources: SourceService;
  subjects: SubjectService;
  subjectSources: SubjectSourcesService;
}

const SOURCE_NAME = { minLength: 1, maxLength: 255 } as const;
const Params = Type.Object({ name: Type.String(PROJECT_NAME) });
const SourceParams = Type.Object({ name: Type.String(PROJECT_NAME), source: Type.String(SOURCE_NAME) });
const SubjectParams = Type.Object({ name: Type.String(PROJECT_NAME), login: Type.String({ minLength: 1, maxLength: 255 }) });
const notice = () => Type.Optional(Type.String({ maxLength: 255 }));
const TabQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  created: notice(), updated: notice(), deleted: notice(),
});
const PairQuery = Type.Object({ assigned: notice(), unassigned: notice(), registered: notice() });
const SourceForm = Type.Object({
  _csrf: Type.String(),
  sourceName: Type.Optional(Type.String({ maxLength: 1000 })),
  sourceType: Type.Optional(Type.String({ maxLength: 20 })),
  expectedSourceName: Type.Optional(Type.String({ maxLength: 255 })),
  attributes: Type.Optional(Type.String({ maxLength: 100_000 })),
});
const CsrfForm = Type.Object({ _csrf: Type.String() });
const PairForm = Type.Object({ _csrf: Type.String(), sourceName: Type.String({ minLength: 1, maxLength: 255 }) });
/** A form sends text: the source type's id as digits. */
const RegisterForm = Type.Object({ _csrf: Type.String(), sourceTypeId: Type.String({ pattern: '^[1-9][0-9]{0,14}$' }) });

const TAB_SIZE = 50;

interface SourceFormValues { sourceName: string; sourceType: string; expectedSourceName: string; attributes: string }

const typeLabel = (type: { producer?: string | null; model?: string | null; catalogVersion?: string | null } | null | undefined) =>
  (type ? [type.producer, type.model, type.catalogVersion].filter(Boolean).join(' ') : '');

/** What the form sent, checked as the API's schema checks a body (the service trusts it did). */
function checkedValues(values: SourceFormValues): { sourceName: string; sourceTypeId: number; attributes: Record<string, string> } {
  const sourceName = values.sourceName;
  if (sourceName === '' || sourceName.length > 255 || !new RegExp(ENTITY_ID).test(sourceName)) throw new FormProblem('sources.nameInvalid');
  const sourceTypeId = Number(values.sourceType);
  if (!Number.isSafeInteger(sourceTypeId) || sourceTypeId < 1) throw new FormProblem('sources.typeRequired');
  return { sourceName, sourceTypeId, attributes: attributesOf(values.attributes, 'sources.attributesInvalid', 4096) };
}

const valuesOfSource = (source: SourceDtoT): SourceFormValues => ({
  sourceName: source.sourceName,
  sourceType: source.sourceType ? String(source.sourceType.id) : '',
  expectedSourceName: source.expectedSourceName ?? '',
  attributes: Object.entries(source.attributes).map(([key, value]) => `${key}=${value}`).join('\n'),
});

const valuesOfForm = (body: { sourceName?: string; sourceType?: string; expectedSourceName?: string; attributes?: string }): SourceFormValues => ({
  sourceName: (body.sourceName ?? '').trim(),
  sourceType: body.sourceType ?? '',
  expectedSourceName: (body.expectedSourceName ?? '').trim(),
  attributes: body.attributes ?? '',
});

/** A refusal a form shows: its own problem (400) or the service's 4xx. */
function refusalOf(request: FastifyRequest, error: unknown): { message: string; status: number } | undefined {
  if (error instanceof FormProblem) return { message: context(request).t(error.key), status: 400 };
  return formRefusal(error);
}

export const sourcePagesRoutes: FastifyPluginAsyncTypebox<SourcePagesServices> = async (app, { projects, sources, subjects, subjectSources }) => {
  const sourcePath = (project: ProjectHeader, source: string) => `${project.path}/sources/${encodeURIComponent(source)}`;

  /** Source `source` of project `name` (404 page when it is in another project; 403 without SOURCE.READ). */
  async function sourceOfProject(request: FastifyRequest, name: string, source: string): Promise<SourceDtoT> {
    const found = await sources.get(source, actorOf(request));
    if (found.project?.projectName !== name) throw sourceNotFound(source);
    return found;
  }

  app.get('/projects/:name/sources', { schema: { hide: true, params: Params, querystring: TabQuery } }, async (request, reply) => {
    const { t } = context(request);
    const { name } = request.params;
    const q = request.query;
    const pageNumber = q.page ?? 0;
    const pageSpec = { page: pageNumber, size: TAB_SIZE, offset: pageNumber * TAB_SIZE, sort: [] };
    const [project, list] = await projectFirst([
      projectHeader(request, projects, name, 'sources'),
      sources.listOfProject(name, { minimized: false, page: pageSpec }, actorOf(request)),
    ]);
    const total = list.total ?? list.items.length;
    const shown = pageSpec.offset + list.items.length;
    const changed = q.created ? t('sources.created', { source: q.created })
      : q.updated ? t('sources.updated', { source: q.updated })
        : q.deleted ? t('sources.deleted', { source: q.deleted }) : undefined;
    return render(request, reply, 'projects/sources', {
      title: t('project.title', { name }),
      project,
      notice: changed,
      sources: (list.items as SourceDtoT[]).map((source) => ({
        name: source.sourceName,
        type: typeLabel(source.sourceType),
        assigned: source.assigned,
        subject: source.subjectLogin ?? '',
        path: sourcePath(project, source.sourceName),
      })),
      mayCreate: mayOnProject(request, project, 'SOURCE.CREATE'),
      mayChange: mayOnProject(request, project, 'SOURCE.UPDATE') || mayOnProject(request, project, 'SOURCE.DELETE'),
      count: t('sources.count', { shown, total }),
      next: shown < total ? `${project.path}/sources?page=${pageNumber + 1}` : undefined,
    });
  });

  async function showForm(request: FastifyRequest, reply: FastifyReply, options: {
    project: ProjectHeader; mode: 'create' | 'edit'; values: SourceFormValues; action: string; source?: SourceDtoT; error?: { message: string; status: number };
  }) {
    const { t } = context(request);
    const types: SourceTypeDtoT[] = await projects.sourceTypes(options.project.name, actorOf(request));
    return render(request, reply, 'projects/source-form', {
      title: options.mode === 'create' ? t('sources.createTitle') : t('sources.editTitle', { source: options.source!.sourceName }),
      project: options.project,
      mode: options.mode,
      values: options.values,
      action: options.action,
      types: types.map((type) => ({ id: String(type.id), label: typeLabel(type) })),
      error: options.error?.message,
    }, options.error?.status ?? 200);
  }

  app.get('/projects/:name/sources/new', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const project = await projectHeader(request, projects, request.params.name, 'sources');
    const values = { sourceName: '', sourceType: '', expectedSourceName: '', attributes: '' };
    return showForm(request, reply, { project, mode: 'create', values, action: `${project.path}/sources` });
  });

  app.post('/projects/:name/sources', { schema: { hide: true, params: Params, body: SourceForm } }, async (request, reply) => {
    const project = await projectHeader(request, projects, request.params.name, 'sources');
    const values = valuesOfForm(request.body);
    try {
      let checked;
      try {
        checked = checkedValues(values);
      } catch (problem) {
        // Who may not create sources in the project gets the 403 page, whatever was typed.
        actorOf(request).check('SOURCE.CREATE', { project: project.name, organization: project.organization || null });
        throw problem;
      }
      const created = await sources.create({
        sourceName: checked.sourceName, expectedSourceName: values.expectedSourceName || null, assigned: false,
        sourceType: { id: checked.sourceTypeId }, project: { id: project.id, projectName: project.name }, attributes: checked.attributes,
      }, actorOf(request));
      return reply.redirect(`${project.path}/sources?created=${encodeURIComponent(created.sourceName)}`, 303);
    } catch (error) {
      const refused = refusalOf(request, error);
      if (!refused) throw error;
      return showForm(request, reply, { project, mode: 'create', values, action: `${project.path}/sources`, error: refused });
    }
  });

  app.get('/projects/:name/sources/:source/edit', { schema: { hide: true, params: SourceParams } }, async (request, reply) => {
    const { name, source } = request.params;
    const [project, found] = await projectFirst([projectHeader(request, projects, name, 'sources'), sourceOfProject(request, name, source)]);
    return showForm(request, reply, { project, mode: 'edit', values: valuesOfSource(found), action: `${sourcePath(project, source)}/edit`, source: found });
  });

  app.post('/projects/:name/sources/:source/edit', { schema: { hide: true, params: SourceParams, body: SourceForm } }, async (request, reply) => {
    const { name, source } = request.params;
    const [project, found] = await projectFirst([projectHeader(request, projects, name, 'sources'), sourceOfProject(request, name, source)]);
    const values = valuesOfForm(request.body);
    try {
      let checked;
      try {
        checked = checkedValues(values);
      } catch (problem) {
        actorOf(request).check('SOURCE.UPDATE', { project: project.name, organization: project.organization || null, subject: found.subjectLogin, source });
        throw problem;
      }
      const updated = await sources.update({
        id: found.id, sourceId: found.sourceId, sourceName: checked.sourceName, expectedSourceName: values.expectedSourceName || null,
        assigned: found.assigned, sourceType: { id: checked.sourceTypeId }, project: { id: project.id, projectName: project.name },
        subjectLogin: found.subjectLogin, attributes: checked.attributes,
      }, actorOf(request));
      return reply.redirect(`${project.path}/sources?updated=${encodeURIComponent(updated.sourceName)}`, 303);
    } catch (error) {
      const refused = refusalOf(request, error);
      if (!refused) throw error;
      return showForm(request, reply, { project, mode: 'edit', values, action: `${sourcePath(project, source)}/edit`, source: found, error: refused });
    }
  });

  async function showDelete(request: FastifyRequest, reply: FastifyReply, name: string, source: string, error?: { message: string; status: number }) {
    const { t } = context(request);
    const [project] = await projectFirst([projectHeader(request, projects, name, 'sources'), sourceOfProject(request, name, source)]);
    return render(request, reply, 'projects/source-delete', {
      title: t('sources.deleteTitle', { source }), project, action: `${sourcePath(project, source)}/delete`, error: error?.message,
    }, error?.status ?? 200);
  }

  app.get('/projects/:name/sources/:source/delete', { schema: { hide: true, params: SourceParams } }, async (request, reply) =>
    showDelete(request, reply, request.params.name, request.params.source));

  app.post('/projects/:name/sources/:source/delete', { schema: { hide: true, params: SourceParams, body: CsrfForm } }, async (request, reply) => {
    const { name, source } = request.params;
    await sourceOfProject(request, name, source);
    try {
      await sources.remove(source, actorOf(request));
      return reply.redirect(`${projectPath(context(request).base, name)}/sources?deleted=${encodeURIComponent(source)}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return showDelete(request, reply, name, source, refused);
    }
  });

  // ---- Pair sources ----------------------------------------------------------------------------

  async function showPairing(request: FastifyRequest, reply: FastifyReply, name: string, login: string, options: { notice?: string; error?: { message: string; status: number } } = {}) {
    const { t, base } = context(request);
    const actor = actorOf(request);
    const [project, subject] = await projectFirst([projectHeader(request, projects, name, 'subjects'), subjectOfProject(request, subjects, name, login)]);
    const page = { page: 0, size: 0, offset: 0, sort: [] };
    const [free, types] = await Promise.all([
      sources.listOfProject(name, { assigned: false, minimized: true, page }, actor),
      projects.sourceTypes(name, actor),
    ]);
    const path = `${subjectPath(base, name, login)}/sources`;
    return render(request, reply, 'projects/subject-sources', {
      title: t('pairSources.title', { login }),
      project,
      login,
      notice: options.notice,
      error: options.error?.message,
      notActive: notActiveReason(request, subject),
      mayChange: mayOnProject(request, project, 'SUBJECT.UPDATE', { subject: login }),
      assigned: (subject.sources ?? []).map((source: MinimalSourceDtoT) => ({
        name: source.sourceName,
        type: typeLabel({ producer: source.sourceTypeProducer, model: source.sourceTypeModel, catalogVersion: source.sourceTypeCatalogVersion }),
      })),
      available: (free.items as MinimalSourceDtoT[]).map((source) => ({
        name: source.sourceName,
        type: typeLabel({ producer: source.sourceTypeProducer, model: source.sourceTypeModel, catalogVersion: source.sourceTypeCatalogVersion }),
      })),
      dynamic: types.filter((type) => type.canRegisterDynamically).map((type) => ({ id: type.id, label: typeLabel(type) })),
      path,
    }, options.error?.status ?? 200);
  }

  app.get('/projects/:name/subjects/:login/sources', { schema: { hide: true, params: SubjectParams, querystring: PairQuery } }, async (request, reply) => {
    const { t } = context(request);
    const { name, login } = request.params;
    const q = request.query;
    const shown = q.assigned ? t('pairSources.assignedNotice', { source: q.assigned, login })
      : q.unassigned ? t('pairSources.unassignedNotice', { source: q.unassigned, login })
        : q.registered ? t('pairSources.registeredNotice', { source: q.registered, login }) : undefined;
    return showPairing(request, reply, name, login, { notice: shown });
  });

  /** "Assign", "Unassign" and "Add": the subject-source service, then back to the page naming the source. */
  const actions = {
    assign: { notice: 'assigned', run: (login: string, body: { sourceName: string }, request: FastifyRequest) => subjectSources.assign(login, body.sourceName, actorOf(request)) },
    unassign: { notice: 'unassigned', run: (login: string, body: { sourceName: string }, request: FastifyRequest) => subjectSources.unassign(login, body.sourceName, actorOf(request)) },
  } as const;
  for (const [kind, action] of Object.entries(actions)) {
    app.post(`/projects/:name/subjects/:login/sources/${kind}`, { schema: { hide: true, params: SubjectParams, body: PairForm } }, async (request, reply) => {
      const { base } = context(request);
      const { name, login } = request.params;
      await subjectOfProject(request, subjects, name, login);
      try {
        const source = await action.run(login, request.body, request);
        return reply.redirect(`${subjectPath(base, name, login)}/sources?${action.notice}=${encodeURIComponent(source.sourceName)}`, 303);
      } catch (error) {
        const refused = formRefusal(error);
        if (!refused) throw error;
        return showPairing(request, reply, name, login, { error: refused });
      }
    });
  }

  app.post('/projects/:name/subjects/:login/sources/register', { schema: { hide: true, params: SubjectParams, body: RegisterForm } }, async (request, reply) => {
    const { base } = context(request);
    const { name, login } = request.params;
    await subjectOfProject(request, subjects, name, login);
    try {
      const { source } = await subjectSources.register(login, { sourceTypeId: Number(request.body.sourceTypeId) }, actorOf(request));
      return reply.redirect(`${subjectPath(base, name, login)}/sources?registered=${encodeURIComponent(source.sourceName)}`, 303);
    } catch (error) {
      const refused = formRefusal(error);
      if (!refused) throw error;
      return showPairing(request, reply, name, login, { error: refused });
    }
  });
};

