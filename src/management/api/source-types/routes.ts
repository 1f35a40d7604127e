/**
 * `/api/source-types` (managementportal.md §2.7). Reading needs the scope `SOURCETYPE.READ` held by
 * a role or client; creating, changing and deleting stay global permissions (SYS_ADMIN or client
 * credentials).
 *
 * Reference bug fixed (§15.6): reads were a global permission, so organization and project admins
 * got 403 on the source types they pick for their projects.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { MAX_PAGE_SIZE, pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { actorOf, authorize, requireGlobalPermission, requireScope } from '../../security/authorization.js';
import { SourceTypeDto } from './dto.js';
import { SOURCE_TYPE_SORT, type SourceTypeSort } from './queries.js';
import { ListQuery, ProducerModelParams, ProducerParams, SourceTypeInput, SourceTypeKeyParams } from './schemas.js';
import { displayName, type SourceTypeService } from './service.js';

const tags = ['management: source-types'];
const SORTABLE = Object.keys(SOURCE_TYPE_SORT) as SourceTypeSort[];
const errors = { 400: Type.Union([ErrorVm, RadarErrorVm]), 401: ErrorVm, 403: Type.Union([ErrorVm, RadarErrorVm]) };

const location = (t: { producer: string; model: string; catalogVersion: string }) =>
  `/api/source-types/${[t.producer, t.model, t.catalogVersion].map(encodeURIComponent).join('/')}`;

export const sourceTypesRoutes: FastifyPluginAsyncTypebox<{ sourceTypes: SourceTypeService }> = async (app, { sourceTypes }) => {

  app.get('/source-types', {
    schema: { tags, summary: 'All source types (paged)', querystring: ListQuery, response: { 200: Type.Array(SourceTypeDto), ...errors } },
    preHandler: requireScope('SOURCETYPE.READ'),
  }, async (req, reply) => {
    const page = pageOf(req.query, SORTABLE, MAX_PAGE_SIZE);
    const { items, total } = await sourceTypes.list(page);
    setPageHeaders(reply, req, page, total);
    return items;
  });

  app.get('/source-types/:producer', {
    schema: { tags, summary: 'Source types of a producer (reduced)', params: ProducerParams, response: { 200: Type.Array(SourceTypeDto), ...errors } },
    preHandler: requireScope('SOURCETYPE.READ'),
  }, async (req) => sourceTypes.listOf(req.params.producer));

  app.get('/source-types/:producer/:model', {
    schema: { tags, summary: 'Source types of a producer and model (reduced)', params: ProducerModelParams, response: { 200: Type.Array(SourceTypeDto), ...errors } },
    preHandler: requireScope('SOURCETYPE.READ'),
  }, async (req) => sourceTypes.listOf(req.params.producer, req.params.model));

  app.get('/source-types/:producer/:model/:version', {
    schema: { tags, summary: 'One source type', params: SourceTypeKeyParams, response: { 200: SourceTypeDto, ...errors, 404: RadarErrorVm } },
    preHandler: requireScope('SOURCETYPE.READ'),
  }, async (req) => sourceTypes.get(req.params.producer, req.params.model, req.params.version));

  app.post('/source-types', {
    schema: { tags, summary: 'Create a source type with its source data', body: SourceTypeInput, response: { 201: SourceTypeDto, ...errors, 404: RadarErrorVm, 409: RadarErrorVm } },
    preHandler: requireGlobalPermission('SOURCETYPE.CREATE'),
  }, async (req, reply) => {
    const created = await sourceTypes.create(req.body, actorOf(req));
    alert(reply, 'sourceType', 'created', displayName(created));
    return reply.code(201).header('location', location(created)).send(created);
  });

  app.put('/source-types', {
    schema: { tags, summary: 'Update a source type (without id: create it)', body: SourceTypeInput, response: { 200: SourceTypeDto, 201: SourceTypeDto, ...errors, 404: RadarErrorVm, 409: RadarErrorVm } },
  }, async (req, reply) => {
    const { id } = req.body;
    if (id == null) {
      authorize(req, 'SOURCETYPE.CREATE', {});
      const created = await sourceTypes.create(req.body, actorOf(req));
      alert(reply, 'sourceType', 'created', displayName(created));
      return reply.code(201).header('location', location(created)).send(created);
    }
    authorize(req, 'SOURCETYPE.UPDATE', {});
    const updated = await sourceTypes.update({ ...req.body, id }, actorOf(req));
    alert(reply, 'sourceType', 'updated', displayName(updated));
    return updated;
  });

  app.delete('/source-types/:producer/:model/:version', {
    schema: { tags, summary: 'Delete a source type and its source data (403 while a project or source uses it)', params: SourceTypeKeyParams, response: { 200: Type.Null({ description: 'Empty body' }), ...errors, 404: RadarErrorVm } },
    preHandler: requireGlobalPermission('SOURCETYPE.DELETE'),
  }, async (req, reply) => {
    const deleted = await sourceTypes.remove(req.params.producer, req.params.model, req.params.version, actorOf(req));
    return alert(reply, 'sourceType', 'deleted', displayName(deleted)).send(undefined as never);
  });
};
