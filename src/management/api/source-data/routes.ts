/**
 * `/api/source-data` (managementportal.md §2.7). Reading needs the scope `SOURCEDATA.READ` held by
 * a role or client (as in the reference); creating, changing and deleting are global permissions.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { MAX_PAGE_SIZE, pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { actorOf, authorize, requireGlobalPermission, requireScope } from '../../security/authorization.js';
import { SourceDataDto } from '../source-types/dto.js';
import { SOURCE_DATA_SORT, type SourceDataSort } from '../source-types/queries.js';
import { ListQuery, SourceDataInput, SourceDataNameParams } from '../source-types/schemas.js';
import type { SourceDataService } from './service.js';

const tags = ['management: source-data'];
const SORTABLE = Object.keys(SOURCE_DATA_SORT) as SourceDataSort[];
const errors = { 400: Type.Union([ErrorVm, RadarErrorVm]), 401: ErrorVm, 403: ErrorVm };
const location = (name: string) => `/api/source-data/${encodeURIComponent(name)}`;

export const sourceDataRoutes: FastifyPluginAsyncTypebox<{ sourceData: SourceDataService }> = async (app, { sourceData }) => {

  app.get('/source-data', {
    schema: { tags, summary: 'All source data (paged)', querystring: ListQuery, response: { 200: Type.Array(SourceDataDto), ...errors } },
    preHandler: requireScope('SOURCEDATA.READ'),
  }, async (req, reply) => {
    const page = pageOf(req.query, SORTABLE, MAX_PAGE_SIZE);
    const { items, total } = await sourceData.list(page);
    setPageHeaders(reply, req, page, total);
    return items;
  });

  app.get('/source-data/:sourceDataName', {
    schema: { tags, summary: 'One source data by name', params: SourceDataNameParams, response: { 200: SourceDataDto, ...errors, 404: RadarErrorVm } },
    preHandler: requireScope('SOURCEDATA.READ'),
  }, async (req) => sourceData.get(req.params.sourceDataName));

  app.post('/source-data', {
    schema: { tags, summary: 'Create a source data', body: SourceDataInput, response: { 201: SourceDataDto, ...errors, 404: RadarErrorVm, 409: RadarErrorVm } },
    preHandler: requireGlobalPermission('SOURCEDATA.CREATE'),
  }, async (req, reply) => {
    const created = await sourceData.create(req.body, actorOf(req));
    alert(reply, 'sourceData', 'created', created.sourceDataName);
    return reply.code(201).header('location', location(created.sourceDataName)).send(created);
  });

  app.put('/source-data', {
    schema: { tags, summary: 'Update a source data (without id: create it)', body: SourceDataInput, response: { 200: SourceDataDto, 201: SourceDataDto, ...errors, 404: RadarErrorVm, 409: RadarErrorVm } },
  }, async (req, reply) => {
    const { id } = req.body;
    if (id == null) {
      authorize(req, 'SOURCEDATA.CREATE', {});
      const created = await sourceData.create(req.body, actorOf(req));
      alert(reply, 'sourceData', 'created', created.sourceDataName);
      return reply.code(201).header('location', location(created.sourceDataName)).send(created);
    }
    authorize(req, 'SOURCEDATA.UPDATE', {});
    const updated = await sourceData.update({ ...req.body, id }, actorOf(req));
    alert(reply, 'sourceData', 'updated', updated.sourceDataName);
    return updated;
  });

  app.delete('/source-data/:sourceDataName', {
    schema: { tags, summary: 'Delete a source data', params: SourceDataNameParams, response: { 200: Type.Null({ description: 'Empty body' }), ...errors, 404: RadarErrorVm } },
    preHandler: requireGlobalPermission('SOURCEDATA.DELETE'),
  }, async (req, reply) => {
    await sourceData.remove(req.params.sourceDataName, actorOf(req));
    return alert(reply, 'sourceData', 'deleted', req.params.sourceDataName).send(undefined as never);
  });
};
