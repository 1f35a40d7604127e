/**
 * `/source-types` (managementportal.md §13, §2.7; issue 31 item 5): the source types, 50 a page,
 * each with its source data (topics), as `GET /api/source-types` lists them to holders of
 * SOURCETYPE.READ; a page per source type listing its source data; forms to create, edit and
 * delete source types and their source data.
 *
 * Every form calls the API's service after the API's own check: reading needs the scope
 * SOURCETYPE.READ (SOURCEDATA.READ for source data), changes the global SOURCETYPE.* and
 * SOURCEDATA.* permissions (403 page). A value the service refuses (a taken key or name, a type in
 * use) shows the form again with its message and what was typed (4xx); a save lands (303) on the
 * changed source type with a notice naming what changed.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SourceDataService } from '../api/source-data/service.js';
import type { SourceDataDtoT, SourceTypeDtoT } from '../api/source-types/dto.js';
import { SOURCE_TYPE_SORT, type SourceTypeSort } from '../api/source-types/queries.js';
import { ENTITY_ID, type SourceDataInputT, type SourceTypeInputT } from '../api/source-types/schemas.js';
import { displayName, type SourceTypeService } from '../api/source-types/service.js';
import { hasPermission } from '../authz/oracle.js';
import { NotFound, RadarWebApplicationException } from '../errors.js';
import { pageOf } from '../http/paging.js';
import { actorOf, authorize, authorizeScope, principal } from '../security/authorization.js';
import { requirePage } from './nav.js';
import { context, render } from './context.js';
import { formRefusal } from './errors.js';
import type { MessageKey } from '../i18n/translator.js';

const PAGE_SIZE = 50;
const SORTABLE = Object.keys(SOURCE_TYPE_SORT) as SourceTypeSort[];
const NAME = new RegExp(ENTITY_ID);
export const SCOPES = ['PASSIVE', 'ACTIVE', 'MONITOR', 'CONNECTOR'] as const;
const NOTICES = ['created', 'updated', 'deleted', 'dataCreated', 'dataUpdated', 'dataDeleted'] as const;

const text = (maxLength = 255) => Type.Optional(Type.String({ maxLength }));
const key = () => Type.String({ minLength: 1, maxLength: 255 });
const Notices = Object.fromEntries(NOTICES.map((n) => [n, text()])) as Record<(typeof NOTICES)[number], ReturnType<typeof text>>;
const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })), deleted: text() });
const TypeParams = Type.Object({ producer: key(), model: key(), version: key() });
const DataParams = Type.Object({ producer: key(), model: key(), version: key(), dataName: key() });
const DetailQuery = Type.Object(Notices);
const CsrfForm = Type.Object({ _csrf: Type.String() });

const TypeForm = Type.Object({
  _csrf: Type.String(),
  producer: text(), model: text(), catalogVersion: text(), sourceTypeScope: text(20),
  canRegisterDynamically: text(10), name: text(), description: text(), assessmentType: text(500), appProvider: text(500),
});
type TypeFormT = Static<typeof TypeForm>;
const DataForm = Type.Object({
  _csrf: Type.String(),
  sourceDataName: text(), sourceDataType: text(), topic: text(), frequency: text(), unit: text(), processingState: text(),
  dataClass: text(), keySchema: text(), valueSchema: text(), provider: text(), enabled: text(10),
});
type DataFormT = Static<typeof DataForm>;

const TYPE_FIELDS = ['producer', 'model', 'catalogVersion', 'sourceTypeScope', 'name', 'description', 'assessmentType', 'appProvider'] as const;
const DATA_FIELDS = ['sourceDataName', 'sourceDataType', 'topic', 'frequency', 'unit', 'processingState', 'dataClass', 'keySchema', 'valueSchema', 'provider'] as const;
type TypeValues = Record<(typeof TYPE_FIELDS)[number], string> & { canRegisterDynamically: boolean };
type DataValues = Record<(typeof DATA_FIELDS)[number], string> & { enabled: boolean };

class FormProblem extends Error {
  constructor(readonly key: MessageKey) { super(key); this.name = 'FormProblem'; }
}

const str = (value: string | null | undefined) => value ?? '';
const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

const typeValuesOf = (type?: SourceTypeDtoT): TypeValues => ({
  producer: str(type?.producer), model: str(type?.model), catalogVersion: str(type?.catalogVersion),
  sourceTypeScope: str(type?.sourceTypeScope) || 'PASSIVE', name: str(type?.name), description: str(type?.description),
  assessmentType: str(type?.assessmentType), appProvider: str(type?.appProvider), canRegisterDynamically: type?.canRegisterDynamically ?? false,
});
const typeValuesOfForm = (body: TypeFormT): TypeValues => ({
  ...Object.fromEntries(TYPE_FIELDS.map((f) => [f, body[f] ?? ''])) as Record<(typeof TYPE_FIELDS)[number], string>,
  canRegisterDynamically: body.canRegisterDynamically !== undefined,
});
const dataValuesOf = (data?: SourceDataDtoT): DataValues => ({
  ...Object.fromEntries(DATA_FIELDS.map((f) => [f, str(data?.[f] as string | null | undefined)])) as Record<(typeof DATA_FIELDS)[number], string>,
  enabled: data?.enabled ?? true,
});
const dataValuesOfForm = (body: DataFormT): DataValues => ({
  ...Object.fromEntries(DATA_FIELDS.map((f) => [f, body[f] ?? ''])) as Record<(typeof DATA_FIELDS)[number], string>,
  enabled: body.enabled !== undefined,
});

/** A name the API's schema would refuse (`Constants.ENTITY_ID_REGEX`): a form problem, not a 5xx or a 400 page. */
function entityName(value: string, problem: MessageKey): string {
  const name = value.trim();
  if (name === '' || !NAME.test(name)) throw new FormProblem(problem);
  return name;
}

function typeInputOf(values: TypeValues): SourceTypeInputT {
  if (!(SCOPES as readonly string[]).includes(values.sourceTypeScope)) throw new FormProblem('sourceTypes.badScope');
  return {
    producer: entityName(values.producer, 'sourceTypes.badKey'), model: entityName(values.model, 'sourceTypes.badKey'),
    catalogVersion: entityName(values.catalogVersion, 'sourceTypes.badKey'), sourceTypeScope: values.sourceTypeScope,
    canRegisterDynamically: values.canRegisterDynamically, name: orNull(values.name), description: orNull(values.description),
    assessmentType: orNull(values.assessmentType), appProvider: orNull(values.appProvider),
  };
}

function dataInputOf(values: DataValues, typeId: number): SourceDataInputT {
  const input: SourceDataInputT = { sourceDataName: entityName(values.sourceDataName, 'sourceTypes.badDataName'), enabled: values.enabled, sourceType: { id: typeId } };
  for (const field of DATA_FIELDS) if (field !== 'sourceDataName') input[field] = orNull(values[field]);
  if (input.sourceDataType == null && input.topic == null) throw new FormProblem('sourceTypes.typeOrTopic');
  return input;
}

/** `/source-types/{producer}/{model}/{version}`. */
export const sourceTypePath = (base: string, type: { producer: string; model: string; catalogVersion: string }) =>
  `${base}/source-types/${[type.producer, type.model, type.catalogVersion].map(encodeURIComponent).join('/')}`;

export const sourceTypeRoutes: FastifyPluginAsyncTypebox<{ sourceTypes: SourceTypeService; sourceData: SourceDataService }> = async (app, { sourceTypes, sourceData }) => {
  /** What the signed-in user may change (links to forms that would refuse are not shown). */
  const mayOf = (request: FastifyRequest) => {
    const auth = principal(request);
    return {
      create: hasPermission(auth, 'SOURCETYPE.CREATE'), update: hasPermission(auth, 'SOURCETYPE.UPDATE'), delete: hasPermission(auth, 'SOURCETYPE.DELETE'),
      createData: hasPermission(auth, 'SOURCEDATA.CREATE'), updateData: hasPermission(auth, 'SOURCEDATA.UPDATE'), deleteData: hasPermission(auth, 'SOURCEDATA.DELETE'),
    };
  };

  /** A form's refusal: the alert's message (form problems in the page's language, the API's 4xx as it says them). */
  function refusalOf(request: FastifyRequest, error: unknown): { message: string; status: number } | undefined {
    if (error instanceof FormProblem) return { message: context(request).t(error.key), status: 400 };
    return formRefusal(error);
  }

  const typeOf = (params: Static<typeof TypeParams>) => sourceTypes.get(params.producer, params.model, params.version);

  async function dataOf(params: Static<typeof DataParams>): Promise<{ type: SourceTypeDtoT; data: SourceDataDtoT }> {
    const type = await typeOf(params);
    const data = (type.sourceData ?? []).find((d) => d.sourceDataName === params.dataName);
    if (!data) throw new NotFound('SourceData not found', 'sourceData', 'error.entityNotFound', { sourceDataName: params.dataName });
    return { type, data };
  }

  function typeForm(request: FastifyRequest, reply: FastifyReply, options: { mode: 'create' | 'edit'; values: TypeValues; action: string; back: string; error?: string; status?: number }) {
    const { t } = context(request);
    const title = options.mode === 'create' ? t('sourceTypes.createTitle') : t('sourceTypes.editTitle');
    return render(request, reply, 'source-types/form', { title, scopes: SCOPES, ...options }, options.error ? options.status ?? 400 : 200);
  }

  function dataForm(request: FastifyRequest, reply: FastifyReply, options: { mode: 'create' | 'edit'; type: SourceTypeDtoT; values: DataValues; action: string; error?: string; status?: number }) {
    const { t, base } = context(request);
    const title = options.mode === 'create' ? t('sourceTypes.dataCreateTitle', { type: displayName(options.type) }) : t('sourceTypes.dataEditTitle', { type: displayName(options.type) });
    return render(request, reply, 'source-types/data-form', { title, back: sourceTypePath(base, options.type), ...options }, options.error ? options.status ?? 400 : 200);
  }

  function confirm(request: FastifyRequest, reply: FastifyReply, options: { title: string; text: string; action: string; back: string; error?: string; status?: number }) {
    return render(request, reply, 'source-types/confirm', options, options.error ? options.status ?? 400 : 200);
  }

  app.get('/source-types', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    requirePage(request, 'sourceTypes');
    const ui = context(request);
    const number = request.query.page ?? 0;
    const page = pageOf({ page: number, size: PAGE_SIZE, sort: ['producer,asc', 'model,asc', 'catalogVersion,asc'] }, SORTABLE, PAGE_SIZE);
    const { items, total } = await sourceTypes.list(page);
    const link = (n: number) => `${ui.base}/source-types?page=${n}`;
    return render(request, reply, 'source-types/list', {
      title: ui.t('sourceTypes.title'), sourceTypes: items.map((type) => ({ ...type, path: sourceTypePath(ui.base, type) })), total,
      from: page.offset + 1, to: page.offset + items.length,
      previous: number > 0 ? link(number - 1) : null,
      next: page.offset + items.length < total ? link(number + 1) : null,
      notice: request.query.deleted ? ui.t('sourceTypes.notice.deleted', { name: request.query.deleted }) : null,
      may: mayOf(request),
    });
  });

  app.get('/source-types/new', { schema: { hide: true } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.CREATE', {});
    const { base } = context(request);
    return typeForm(request, reply, { mode: 'create', values: typeValuesOf(), action: `${base}/source-types/new`, back: `${base}/source-types` });
  });

  app.post('/source-types/new', { schema: { hide: true, body: TypeForm } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.CREATE', {});
    const { base } = context(request);
    const values = typeValuesOfForm(request.body);
    try {
      const created = await sourceTypes.create(typeInputOf(values), actorOf(request));
      return reply.redirect(`${sourceTypePath(base, created)}?created=${encodeURIComponent(displayName(created))}`, 303);
    } catch (error) {
      const refusal = refusalOf(request, error);
      if (!refusal) throw error;
      return typeForm(request, reply, { mode: 'create', values, action: `${base}/source-types/new`, back: `${base}/source-types`, error: refusal.message, status: refusal.status });
    }
  });

  app.get('/source-types/:producer/:model/:version', { schema: { hide: true, params: TypeParams, querystring: DetailQuery } }, async (request, reply) => {
    authorizeScope(request, 'SOURCETYPE.READ');
    const { t, base } = context(request);
    const type = await typeOf(request.params);
    const shown = NOTICES.find((n) => request.query[n] !== undefined);
    const path = sourceTypePath(base, type);
    return render(request, reply, 'source-types/detail', {
      title: t('sourceTypes.detailTitle', { type: displayName(type) }), type, path,
      data: (type.sourceData ?? []).map((d) => ({ ...d, path: `${path}/source-data/${encodeURIComponent(d.sourceDataName)}` })),
      notice: shown ? t(`sourceTypes.notice.${shown}`, { name: request.query[shown]! }) : null,
      may: mayOf(request),
    });
  });

  app.get('/source-types/:producer/:model/:version/edit', { schema: { hide: true, params: TypeParams } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.UPDATE', {});
    const type = await typeOf(request.params);
    const path = sourceTypePath(context(request).base, type);
    return typeForm(request, reply, { mode: 'edit', values: typeValuesOf(type), action: `${path}/edit`, back: path });
  });

  app.post('/source-types/:producer/:model/:version/edit', { schema: { hide: true, params: TypeParams, body: TypeForm } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.UPDATE', {});
    const { base } = context(request);
    const type = await typeOf(request.params);
    const path = sourceTypePath(base, type);
    const values = typeValuesOfForm(request.body);
    try {
      // No `sourceData`: the type's source data are kept (they are changed on their own forms).
      const updated = await sourceTypes.update({ ...typeInputOf(values), id: type.id }, actorOf(request));
      return reply.redirect(`${sourceTypePath(base, updated)}?updated=${encodeURIComponent(displayName(updated))}`, 303);
    } catch (error) {
      const refusal = refusalOf(request, error);
      if (!refusal) throw error;
      return typeForm(request, reply, { mode: 'edit', values, action: `${path}/edit`, back: path, error: refusal.message, status: refusal.status });
    }
  });

  const deleteTypePage = (request: FastifyRequest, reply: FastifyReply, type: SourceTypeDtoT, error?: { message: string; status: number }) => {
    const { t, base } = context(request);
    const path = sourceTypePath(base, type);
    return confirm(request, reply, {
      title: t('sourceTypes.deleteTitle', { type: displayName(type) }), text: t('sourceTypes.deleteText'), action: `${path}/delete`, back: path,
      ...(error ? { error: error.message, status: error.status } : {}),
    });
  };

  app.get('/source-types/:producer/:model/:version/delete', { schema: { hide: true, params: TypeParams } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.DELETE', {});
    return deleteTypePage(request, reply, await typeOf(request.params));
  });

  app.post('/source-types/:producer/:model/:version/delete', { schema: { hide: true, params: TypeParams, body: CsrfForm } }, async (request, reply) => {
    authorize(request, 'SOURCETYPE.DELETE', {});
    const { base } = context(request);
    const { producer, model, version } = request.params;
    const type = await typeOf(request.params);
    try {
      const deleted = await sourceTypes.remove(producer, model, version, actorOf(request));
      return reply.redirect(`${base}/source-types?deleted=${encodeURIComponent(displayName(deleted))}`, 303);
    } catch (error) {
      // In use by a project or a source: the API's 403 `error.sourceTypeInUse`, said on the page that asked.
      const inUse = error instanceof RadarWebApplicationException && error.errorCode === 'error.sourceTypeInUse';
      const refusal = inUse ? { message: error.message, status: 403 } : formRefusal(error);
      if (!refusal) throw error;
      return deleteTypePage(request, reply, type, refusal);
    }
  });

  app.get('/source-types/:producer/:model/:version/source-data/new', { schema: { hide: true, params: TypeParams } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.CREATE', {});
    const type = await typeOf(request.params);
    return dataForm(request, reply, { mode: 'create', type, values: dataValuesOf(), action: `${sourceTypePath(context(request).base, type)}/source-data/new` });
  });

  app.post('/source-types/:producer/:model/:version/source-data/new', { schema: { hide: true, params: TypeParams, body: DataForm } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.CREATE', {});
    const type = await typeOf(request.params);
    const path = sourceTypePath(context(request).base, type);
    const values = dataValuesOfForm(request.body);
    try {
      const created = await sourceData.create(dataInputOf(values, type.id), actorOf(request));
      return reply.redirect(`${path}?dataCreated=${encodeURIComponent(created.sourceDataName)}`, 303);
    } catch (error) {
      const refusal = refusalOf(request, error);
      if (!refusal) throw error;
      return dataForm(request, reply, { mode: 'create', type, values, action: `${path}/source-data/new`, error: refusal.message, status: refusal.status });
    }
  });

  app.get('/source-types/:producer/:model/:version/source-data/:dataName/edit', { schema: { hide: true, params: DataParams } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.UPDATE', {});
    const { type, data } = await dataOf(request.params);
    const action = `${sourceTypePath(context(request).base, type)}/source-data/${encodeURIComponent(data.sourceDataName)}/edit`;
    return dataForm(request, reply, { mode: 'edit', type, values: dataValuesOf(data), action });
  });

  app.post('/source-types/:producer/:model/:version/source-data/:dataName/edit', { schema: { hide: true, params: DataParams, body: DataForm } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.UPDATE', {});
    const { type, data } = await dataOf(request.params);
    const path = sourceTypePath(context(request).base, type);
    const action = `${path}/source-data/${encodeURIComponent(data.sourceDataName)}/edit`;
    const values = dataValuesOfForm(request.body);
    try {
      const updated = await sourceData.update({ ...dataInputOf(values, type.id), id: data.id }, actorOf(request));
      return reply.redirect(`${path}?dataUpdated=${encodeURIComponent(updated.sourceDataName)}`, 303);
    } catch (error) {
      const refusal = refusalOf(request, error);
      if (!refusal) throw error;
      return dataForm(request, reply, { mode: 'edit', type, values, action, error: refusal.message, status: refusal.status });
    }
  });

  app.get('/source-types/:producer/:model/:version/source-data/:dataName/delete', { schema: { hide: true, params: DataParams } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.DELETE', {});
    const { t, base } = context(request);
    const { type, data } = await dataOf(request.params);
    const path = sourceTypePath(base, type);
    return confirm(request, reply, {
      title: t('sourceTypes.dataDeleteTitle', { name: data.sourceDataName }), text: t('sourceTypes.dataDeleteText', { type: displayName(type) }),
      action: `${path}/source-data/${encodeURIComponent(data.sourceDataName)}/delete`, back: path,
    });
  });

  app.post('/source-types/:producer/:model/:version/source-data/:dataName/delete', { schema: { hide: true, params: DataParams, body: CsrfForm } }, async (request, reply) => {
    authorize(request, 'SOURCEDATA.DELETE', {});
    const { type, data } = await dataOf(request.params);
    await sourceData.remove(data.sourceDataName, actorOf(request));
    return reply.redirect(`${sourceTypePath(context(request).base, type)}?dataDeleted=${encodeURIComponent(data.sourceDataName)}`, 303);
  });
};
