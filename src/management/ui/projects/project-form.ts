/**
 * A project created, edited and deleted from its pages (issue 31 item 2): "Create project" (from
 * an organization's page or the organizations list), the header's "Edit", and "Delete project" on
 * the edit page, confirmed on a page of its own. The form has every field of the API's
 * `ProjectDTO`: name (fixed once created), description, location, organization, start and end
 * date, status, attributes as key/value rows (three empty rows, "More attribute rows" adds three
 * more without JavaScript) and source types.
 *
 * Every change calls the service of `/api/projects` with the signed-in user as actor, after the
 * same check (PROJECT.CREATE on the chosen organization, PROJECT.UPDATE and PROJECT.DELETE on the
 * project); a user without it gets the 403 page and nothing changes. The organizations offered are
 * those the user may create projects in (or move this one to). What the form or the service
 * refuses is shown on the form again with what was typed (400/409); a change answers 303 to the
 * project's page, whose notice names it.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../../platform/errors.js';
import { hasPermission } from '../../authz/oracle.js';
import type { OrganizationService } from '../../api/organizations/service.js';
import type { ProjectDtoT } from '../../api/projects/dto.js';
import type { ProjectInputT } from '../../api/projects/schemas.js';
import type { ProjectService } from '../../api/projects/service.js';
import { SOURCE_TYPE_SORT, type SourceTypeSort } from '../../api/source-types/queries.js';
import type { SourceTypeService } from '../../api/source-types/service.js';
import { parseLocalDate } from '../../api/subjects/criteria.js';
import { AccessDenied } from '../../errors.js';
import { MAX_PAGE_SIZE, pageOf } from '../../http/paging.js';
import { PROJECT_STATUSES } from '../../schema.js';
import { actorOf, principal } from '../../security/authorization.js';
import { context, render } from '../context.js';
import { formRefusal } from '../errors.js';
import type { MessageKey } from '../../i18n/translator.js';
import { organizationPath } from '../organizations.js';
import { dayOf, PROJECT_NAME, projectPath } from './project.js';

export interface ProjectFormServices {
  projects: ProjectService;
  organizations: OrganizationService;
  sourceTypes: SourceTypeService;
}

/** Empty attribute rows a form shows below the filled ones, and adds with "More attribute rows". */
const EMPTY_ROWS = 3;
/** The API's limit on attributes; the form never shows more rows. */
const MAX_ROWS = 200;

const Params = Type.Object({ name: Type.String(PROJECT_NAME) });
const NewQuery = Type.Object({ organization: Type.Optional(Type.String({ maxLength: 255 })) });
const oneOrMany = (maxLength: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength }), Type.Array(Type.String({ maxLength }), { maxItems: MAX_ROWS + 50 })]));
const ProjectForm = Type.Object({
  _csrf: Type.String(),
  projectName: Type.Optional(Type.String({ maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  location: Type.Optional(Type.String({ maxLength: 255 })),
  organization: Type.Optional(Type.String({ maxLength: 255 })),
  startDate: Type.Optional(Type.String({ maxLength: 10 })),
  endDate: Type.Optional(Type.String({ maxLength: 10 })),
  projectStatus: Type.Optional(Type.String({ maxLength: 20 })),
  attributeKey: oneOrMany(255),
  attributeValue: oneOrMany(10_000),
  sourceTypeId: oneOrMany(20),
  /** "More attribute rows": show the form again with more empty rows, saving nothing. */
  more: Type.Optional(Type.String({ maxLength: 10 })),
});
type ProjectFormT = Static<typeof ProjectForm>;
const CsrfForm = Type.Object({ _csrf: Type.String() });
const SORTABLE = Object.keys(SOURCE_TYPE_SORT) as SourceTypeSort[];

interface Row { key: string; value: string }
interface ProjectFormValues {
  projectName: string;
  description: string;
  location: string;
  organization: string;
  startDate: string;
  endDate: string;
  projectStatus: string;
  rows: Row[];
  sourceTypeIds: string[];
}

/** A value the form refuses before the service sees it: the message key shown in the alert. */
class FormProblem extends Error {
  constructor(readonly key: MessageKey) { super(key); }
}

const listOf = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const emptyRows = (n: number): Row[] => Array.from({ length: n }, () => ({ key: '', value: '' }));

function valuesOfBody(body: ProjectFormT): ProjectFormValues {
  const keys = listOf(body.attributeKey);
  const values = listOf(body.attributeValue);
  const rows = Array.from({ length: Math.min(Math.max(keys.length, values.length), MAX_ROWS) }, (_, i) => ({ key: keys[i] ?? '', value: values[i] ?? '' }));
  return {
    projectName: (body.projectName ?? '').trim(),
    description: body.description ?? '',
    location: body.location ?? '',
    organization: body.organization ?? '',
    startDate: (body.startDate ?? '').trim(),
    endDate: (body.endDate ?? '').trim(),
    projectStatus: body.projectStatus ?? '',
    rows,
    sourceTypeIds: listOf(body.sourceTypeId),
  };
}

function valuesOfProject(project: ProjectDtoT): ProjectFormValues {
  return {
    projectName: project.projectName ?? '',
    description: project.description ?? '',
    location: project.location ?? '',
    organization: project.organizationName ?? project.organization?.name ?? '',
    startDate: dayOf(project.startDate),
    endDate: dayOf(project.endDate),
    projectStatus: project.projectStatus ?? '',
    rows: [...Object.entries(project.attributes ?? {}).map(([key, value]) => ({ key, value })), ...emptyRows(EMPTY_ROWS)],
    sourceTypeIds: (project.sourceTypes ?? []).map((type) => String(type.id)),
  };
}

/**
 * The instant of a typed day (midnight UTC); an unchanged day keeps the project's instant (which
 * may have a time of day the form does not show).
 */
function instantOf(day: string, existing: string | undefined): string | null {
  if (day === '') return null;
  if (!parseLocalDate(day)) throw new FormProblem('projectSetup.dateInvalid');
  if (existing && dayOf(existing) === day) return existing;
  return `${day}T00:00:00Z`;
}

/** The API's `ProjectDTO` of the form's values. */
function inputOf(values: ProjectFormValues, existing?: ProjectDtoT): ProjectInputT {
  const startDate = instantOf(values.startDate, existing?.startDate);
  const endDate = instantOf(values.endDate, existing?.endDate);
  // Reference gap closed in the form: the API takes an end before the start; a form says so.
  if (startDate && endDate && Date.parse(endDate) < Date.parse(startDate)) throw new FormProblem('projectSetup.datesReversed');
  const attributes: Record<string, string> = {};
  for (const { key: typedKey, value } of values.rows) {
    const key = typedKey.trim();
    if (key === '' && value === '') continue;
    if (key === '') throw new FormProblem('projectSetup.attributeNoKey');
    if (Object.hasOwn(attributes, key)) throw new FormProblem('projectSetup.attributeTwice');
    attributes[key] = value;
  }
  if (values.sourceTypeIds.some((id) => !/^[1-9]\d{0,14}$/.test(id))) throw new FormProblem('error.400');
  return {
    ...(existing?.id !== undefined ? { id: existing.id } : {}),
    projectName: values.projectName,
    description: values.description,
    location: values.location,
    organizationName: values.organization,
    startDate,
    endDate,
    projectStatus: values.projectStatus === '' ? null : values.projectStatus,
    attributes,
    sourceTypes: [...new Set(values.sourceTypeIds)].map((id) => ({ id: Number(id) })),
  };
}

const organizationOf = (project: ProjectDtoT) => project.organizationName ?? project.organization?.name ?? '';

export const projectFormRoutes: FastifyPluginAsyncTypebox<ProjectFormServices> = async (app, { projects, organizations, sourceTypes }) => {
  /**
   * The organizations the form offers: those the user may create a project in (PROJECT.CREATE), or
   * for an edit, the project's own and those it may be moved to (PROJECT.UPDATE on both).
   */
  async function organizationChoices(request: FastifyRequest, current?: string): Promise<string[]> {
    const auth = principal(request);
    const permission = current === undefined ? 'PROJECT.CREATE' : 'PROJECT.UPDATE';
    return (await organizations.list(actorOf(request)))
      .map((organization) => organization.name)
      .filter((name) => name === current || hasPermission(auth, permission, { organization: name }))
      .sort((a, b) => a.localeCompare(b));
  }

  /** The organizations a new project may go in; the 403 page when there is none. */
  async function creatableIn(request: FastifyRequest): Promise<string[]> {
    const choices = await organizationChoices(request);
    if (choices.length === 0) throw new AccessDenied('No organization to create a project in');
    return choices;
  }

  /** The project `name` (403/404 page without PROJECT.READ or when unknown), once the user holds `permission` on it. */
  async function permitted(request: FastifyRequest, name: string, permission: string): Promise<ProjectDtoT> {
    const actor = actorOf(request);
    const project = await projects.get(name, actor);
    actor.check(permission, { organization: organizationOf(project), project: name });
    return project;
  }

  async function formPage(request: FastifyRequest, reply: FastifyReply, options: {
    mode: 'create' | 'edit'; values: ProjectFormValues; choices: string[]; project?: ProjectDtoT; error?: string; status?: number;
  }) {
    const { t, base } = context(request);
    const { mode, values, project } = options;
    const { items } = await sourceTypes.list(pageOf({ page: 0, size: MAX_PAGE_SIZE, sort: ['producer,asc', 'model,asc', 'catalogVersion,asc'] }, SORTABLE));
    const name = project?.projectName ?? '';
    const path = projectPath(base, name);
    const mayDelete = project !== undefined && hasPermission(principal(request), 'PROJECT.DELETE', { organization: organizationOf(project), project: name });
    return render(request, reply, 'projects/form', {
      title: mode === 'create' ? t('projectSetup.createTitle') : t('projectSetup.editTitle', { name }),
      mode,
      action: mode === 'create' ? `${base}/projects` : `${path}/edit`,
      back: mode === 'create' ? (values.organization ? organizationPath(base, values.organization) : `${base}/organizations`) : path,
      deletePath: mayDelete ? `${path}/delete` : undefined,
      values,
      organizations: options.choices,
      statuses: PROJECT_STATUSES.map((value) => ({ value, label: t(`projectInfo.status.${value}`) })),
      sourceTypes: items.map((type) => ({
        id: String(type.id), label: `${type.producer}_${type.model}_${type.catalogVersion}`, checked: values.sourceTypeIds.includes(String(type.id)),
      })),
      error: options.error,
    }, options.status ?? 200);
  }

  /** Saves the form, or answers it again: with more rows, or with what refused it. */
  async function submit(request: FastifyRequest, reply: FastifyReply, body: ProjectFormT, choices: string[], project?: ProjectDtoT) {
    const { t, base } = context(request);
    const mode = project ? 'edit' : 'create';
    const values = valuesOfBody(body);
    if (project) values.projectName = project.projectName ?? '';
    if (body.more !== undefined) {
      values.rows = [...values.rows, ...emptyRows(EMPTY_ROWS)].slice(0, MAX_ROWS);
      return formPage(request, reply, { mode, values, choices, project });
    }
    const again = (error: string, status: number) => formPage(request, reply, { mode, values, choices, project, error, status });
    let input: ProjectInputT;
    try {
      input = inputOf(values, project);
    } catch (error) {
      if (error instanceof FormProblem) return again(t(error.key), 400);
      throw error;
    }
    try {
      const saved = project ? (await projects.save(input, actorOf(request))).project : await projects.create(input, actorOf(request));
      return reply.redirect(`${projectPath(base, saved.projectName ?? values.projectName)}?project=${project ? 'updated' : 'created'}`, 303);
    } catch (error) {
      const refusal = formRefusal(error);
      if (!refusal) throw error;
      return again(refusal.message, refusal.status);
    }
  }

  app.get('/projects/new', { schema: { hide: true, querystring: NewQuery } }, async (request, reply) => {
    const choices = await creatableIn(request);
    const organization = request.query.organization && choices.includes(request.query.organization) ? request.query.organization : choices[0]!;
    const values: ProjectFormValues = {
      projectName: '', description: '', location: '', organization, startDate: '', endDate: '', projectStatus: 'PLANNING',
      rows: emptyRows(EMPTY_ROWS), sourceTypeIds: [],
    };
    return formPage(request, reply, { mode: 'create', values, choices });
  });

  app.post('/projects', { schema: { hide: true, body: ProjectForm } }, async (request, reply) => {
    const choices = await creatableIn(request);
    return submit(request, reply, request.body, choices);
  });

  app.get('/projects/:name/edit', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const project = await permitted(request, request.params.name, 'PROJECT.UPDATE');
    const choices = await organizationChoices(request, organizationOf(project));
    return formPage(request, reply, { mode: 'edit', values: valuesOfProject(project), choices, project });
  });

  app.post('/projects/:name/edit', { schema: { hide: true, params: Params, body: ProjectForm } }, async (request, reply) => {
    const project = await permitted(request, request.params.name, 'PROJECT.UPDATE');
    const choices = await organizationChoices(request, organizationOf(project));
    return submit(request, reply, request.body, choices, project);
  });

  const confirmPage = (request: FastifyRequest, reply: FastifyReply, name: string, blocked?: string, status = 200) => {
    const { t, base } = context(request);
    const path = projectPath(base, name);
    return render(request, reply, 'projects/confirm', {
      title: t('projectSetup.deleteTitle', { name }), text: t('projectSetup.deleteText'), button: t('projectSetup.delete'),
      action: `${path}/delete`, back: path, blocked,
    }, status);
  };

  app.get('/projects/:name/delete', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const project = await permitted(request, request.params.name, 'PROJECT.DELETE');
    return confirmPage(request, reply, project.projectName ?? request.params.name);
  });

  app.post('/projects/:name/delete', { schema: { hide: true, params: Params, body: CsrfForm } }, async (request, reply) => {
    const { name } = request.params;
    const project = await permitted(request, name, 'PROJECT.DELETE');
    try {
      await projects.remove(name, actorOf(request));
    } catch (error) {
      // Subjects or sources still in it (400): said on the page; anything else is the error page.
      const refusal = error instanceof DomainError && error.status === 404 ? undefined : formRefusal(error);
      if (!refusal) throw error;
      return confirmPage(request, reply, name, refusal.message, refusal.status);
    }
    const { base } = context(request);
    return reply.redirect(`${organizationPath(base, organizationOf(project))}?deletedProject=${encodeURIComponent(name)}`, 303);
  });
};
