/**
 * `/source-types` (managementportal.md §13, §2.7): the source types, 50 a page, each with its
 * source data (topics), as `GET /api/source-types` lists them to holders of SOURCETYPE.READ.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SOURCE_TYPE_SORT, type SourceTypeSort } from '../api/source-types/queries.js';
import type { SourceTypeService } from '../api/source-types/service.js';
import { pageOf } from '../http/paging.js';
import { authorizeScope } from '../security/authorization.js';
import { context, render } from './context.js';

const PAGE_SIZE = 50;
const SORTABLE = Object.keys(SOURCE_TYPE_SORT) as SourceTypeSort[];
const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })) });

export const sourceTypeRoutes: FastifyPluginAsyncTypebox<{ sourceTypes: SourceTypeService }> = async (app, { sourceTypes }) => {
  app.get('/source-types', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    authorizeScope(request, 'SOURCETYPE.READ');
    const ui = context(request);
    const number = request.query.page ?? 0;
    const page = pageOf({ page: number, size: PAGE_SIZE, sort: ['producer,asc', 'model,asc', 'catalogVersion,asc'] }, SORTABLE, PAGE_SIZE);
    const { items, total } = await sourceTypes.list(page);
    const link = (n: number) => `${ui.base}/source-types?page=${n}`;
    return render(request, reply, 'source-types/list', {
      title: ui.t('sourceTypes.title'), sourceTypes: items, total, from: page.offset + 1, to: page.offset + items.length,
      previous: number > 0 ? link(number - 1) : null,
      next: page.offset + items.length < total ? link(number + 1) : null,
    });
  });
};
