/**
 * A project's subjects changed from its page: "Create subject", "Edit" (form "Edit subject"),
 * "Discontinue" and "Delete" (each confirmed on a page by a button repeating its name). Every
 * form POSTs and is answered with a 303 to the project page, which names what was done; a value
 * the form or the API refuses shows the form again with an alert and what was typed (400).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../../platform/errors.js';
import type { GroupService } from '../../api/groups/service.js';
import type { ProjectService } from '../../api/projects/service.js';
import type { SubjectDtoT } from '../../api/subjects/schemas.js';
import type { SubjectService } from '../../api/subjects/service.js';
import { subjectNotFound } from '../../api/subjects/shared.js';
import { hasPermission } from '../../authz/oracle.js';
import { MAX_PAGE_SIZE } from '../../http/paging.js';
import { actorOf, principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { PROJECT_NAME, projectFirst, projectHeader, projectPath, subjectPath, type ProjectHeader } from './project.js';
import {
  FormProblem, formValuesOf, formValuesOfSubject, SubjectForm, subjectInputOf, type ShownFields, type SubjectFormValues,
} from './subject-form.js';

export interface SubjectPagesServices {
  projects: ProjectService;
  subjects: SubjectService;
  groups: GroupService;
  fields: ShownFields;
}

const LOGIN = { type: 'string', minLength: 1, maxLength: 255 } as const;
const ProjectParams = Type.Object({ name: Type.String(PROJECT_NAME) });
const SubjectParams = Type.Object({ name: Type.String(PROJECT_NAME), login: Type.String(LOGIN) });
const CsrfForm = Type.Object({ _csrf: Type.String() });

/** The subject `login` of project `name` (404 page when it is in another one; 403 without SUBJECT.READ). */
export async function subjectOfProject(request: FastifyRequest, subjects: SubjectService, name: string, login: string): Promise<SubjectDtoT> {
  const subject = await subjects.get(login, actorOf(request));
  if (subject.project?.projectName !== name) throw subjectNotFound();
  return subject;
}

/**
 * Why a subject cannot be paired or discontinued (not activated, or discontinued already), or
 * undefined when it can: its pages say so instead of offering the form.
 */
export function notActiveReason(request: FastifyRequest, subject: SubjectDtoT): string | undefined {
  const key = subject.status === 'DEACTIVATED' ? 'subjects.notActive.DEACTIVATED'
    : subject.status === 'DISCONTINUED' ? 'subjects.notActive.DISCONTINUED'
      : subject.status === 'INVALID' ? 'subjects.notActive.INVALID' : undefined;
  return key && context(request).t(key, { login: subject.login });
}

/** A form problem or a 4xx of the API on a form: the message the form's alert shows. */
function formError(request: FastifyRequest, error: unknown): string | undefined {
  if (error instanceof FormProblem) return context(request).t(error.key);
  if (error instanceof DomainError && (error.status === 400 || error.status === 404 || error.status === 409)) return error.message;
  return undefined;
}

export const subjectPagesRoutes: FastifyPluginAsyncTypebox<SubjectPagesServices> = async (app, { projects, subjects, groups, fields }) => {
  async function showForm(request: FastifyRequest, reply: FastifyReply, options: {
    project: ProjectHeader; mode: 'create' | 'edit'; values: SubjectFormValues; action: string; login?: string; error?: string; status?: number;
  }) {
    const { t } = context(request);
    const groupNames = fields.group ? (await groups.list(options.project.name, actorOf(request))).map((g) => g.name) : [];
    return render(request, reply, 'projects/subject-form', {
      title: t(options.mode === 'create' ? 'subjects.create' : 'subjects.editTitle'),
      ...options,
      groups: groupNames,
      fields,
      moveTargets: options.mode === 'edit' ? await moveTargets(request, options.project.name, options.login ?? '') : [],
    }, options.error ? options.status ?? 400 : 200);
  }

  /**
   * The projects "Edit subject" may move the subject to (the reference's Edit allows it): those the
   * user may read and holds SUBJECT.UPDATE in, as the API checks the move; the current one first.
   */
  async function moveTargets(request: FastifyRequest, current: string, login: string): Promise<string[]> {
    const auth = principal(request);
    const { items } = await projects.list({ size: MAX_PAGE_SIZE }, actorOf(request));
    const names = (items as { projectName: string; organizationName?: string; organization?: { name?: string } }[])
      .filter((p) => p.projectName !== current)
      .filter((p) => {
        const organization = p.organizationName ?? p.organization?.name;
        return hasPermission(auth, 'SUBJECT.UPDATE', { project: p.projectName, ...(organization ? { organization } : {}), subject: login });
      })
      .map((p) => p.projectName);
    return [current, ...names];
  }

  app.get('/projects/:name/subjects/new', { schema: { hide: true, params: ProjectParams } }, async (request, reply) => {
    const project = await projectHeader(request, projects, request.params.name, 'subjects');
    const values = { externalId: '', personName: '', dateOfBirth: '', group: '', attributes: '' };
    return showForm(request, reply, { project, mode: 'create', values, action: `${project.path}/subjects` });
  });

  app.post('/projects/:name/subjects', { schema: { hide: true, params: ProjectParams, body: SubjectForm } }, async (request, reply) => {
    const project = await projectHeader(request, projects, request.params.name, 'subjects');
    const values = formValuesOf(request.body, fields);
    try {
      const created = await subjects.create(subjectInputOf(values, { id: project.id, projectName: project.name }), actorOf(request));
      return reply.redirect(`${project.path}?created=${encodeURIComponent(created.login)}`, 303);
    } catch (error) {
      const message = formError(request, error);
      if (message === undefined) throw error;
      return showForm(request, reply, { project, mode: 'create', values, action: `${project.path}/subjects`, error: message });
    }
  });

  app.get('/projects/:name/subjects/:login/edit', { schema: { hide: true, params: SubjectParams } }, async (request, reply) => {
    const { name, login } = request.params;
    const [project, subject] = await projectFirst([
      projectHeader(request, projects, name, 'subjects'), subjectOfProject(request, subjects, name, login),
    ]);
    const action = `${subjectPath(context(request).base, name, login)}/edit`;
    return showForm(request, reply, { project, mode: 'edit', values: formValuesOfSubject(subject), action, login });
  });

  app.post('/projects/:name/subjects/:login/edit', { schema: { hide: true, params: SubjectParams, body: SubjectForm } }, async (request, reply) => {
    const { name, login } = request.params;
    const [project, subject] = await projectFirst([
      projectHeader(request, projects, name, 'subjects'), subjectOfProject(request, subjects, name, login),
    ]);
    const values = formValuesOf(request.body, fields, formValuesOfSubject(subject));
    try {
      // Moved to another project: the API's move (SUBJECT.UPDATE in both); the history goes along.
      const moveTo = values.project && values.project !== name ? await projects.get(values.project, actorOf(request)) : undefined;
      const target = moveTo ? { id: moveTo.id ?? 0, projectName: moveTo.projectName ?? values.project! } : { id: project.id, projectName: name };
      await subjects.update(subjectInputOf(values, { id: target.id, projectName: target.projectName }, subject), actorOf(request));
      // Lands on the subject's page (in its new project when moved), which names what was saved.
      return reply.redirect(`${subjectPath(context(request).base, target.projectName, login)}?updated=${encodeURIComponent(login)}`, 303);
    } catch (error) {
      const message = formError(request, error);
      if (message === undefined) throw error;
      const action = `${subjectPath(context(request).base, name, login)}/edit`;
      return showForm(request, reply, { project, mode: 'edit', values, action, login, error: message, status: error instanceof DomainError && error.status === 409 ? 409 : 400 });
    }
  });

  /** "Discontinue" and "Delete": a page that asks, and its form. */
  for (const kind of ['discontinue', 'delete'] as const) {
    app.get(`/projects/:name/subjects/:login/${kind}`, { schema: { hide: true, params: SubjectParams } }, async (request, reply) => {
      const { t, base } = context(request);
      const { name, login } = request.params;
      const [project, subject] = await projectFirst([projectHeader(request, projects, name, 'subjects'), subjectOfProject(request, subjects, name, login)]);
      return render(request, reply, 'projects/confirm', {
        blocked: kind === 'discontinue' ? notActiveReason(request, subject) : undefined,
        title: t(kind === 'discontinue' ? 'subjects.discontinueTitle' : 'subjects.deleteTitle', { login }),
        text: t(kind === 'discontinue' ? 'subjects.discontinueText' : 'subjects.deleteText'),
        button: t(kind === 'discontinue' ? 'subjects.discontinue' : 'subjects.delete'),
        action: `${subjectPath(base, name, login)}/${kind}`,
        back: project.path,
      });
    });
  }

  app.post('/projects/:name/subjects/:login/discontinue', { schema: { hide: true, params: SubjectParams, body: CsrfForm } }, async (request, reply) => {
    const { base } = context(request);
    const { name, login } = request.params;
    const subject = await subjectOfProject(request, subjects, name, login);
    const blocked = notActiveReason(request, subject);
    if (blocked) {
      const { t } = context(request);
      const project = await projectHeader(request, projects, name, 'subjects');
      return render(request, reply, 'projects/confirm', {
        blocked, title: t('subjects.discontinueTitle', { login }), text: t('subjects.discontinueText'), button: t('subjects.discontinue'),
        action: `${subjectPath(base, name, login)}/discontinue`, back: project.path,
      }, 409);
    }
    await subjects.discontinue({ id: subject.id, project: { id: subject.project!.id!, projectName: name } }, actorOf(request));
    return reply.redirect(`${projectPath(base, name)}?discontinued=${encodeURIComponent(login)}`, 303);
  });

  app.post('/projects/:name/subjects/:login/delete', { schema: { hide: true, params: SubjectParams, body: CsrfForm } }, async (request, reply) => {
    const { base } = context(request);
    const { name, login } = request.params;
    await subjectOfProject(request, subjects, name, login);
    await subjects.remove(login, actorOf(request));
    return reply.redirect(`${projectPath(base, name)}?deleted=${encodeURIComponent(login)}`, 303);
  });
};
