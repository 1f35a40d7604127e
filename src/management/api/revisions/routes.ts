/**
 * `/api/revisions` (managementportal.md §2.11): the history of every project, subject, source,
 * source type, user and role change, for system admins (the reference's `@Secured`).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_PAGE_SIZE, PageQuery, pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { requireSysAdmin } from '../../security/authorization.js';
import { REVISION_SORTS } from './queries.js';
import { RevisionInfoDto, RevisionParams } from './schemas.js';
import type { RevisionService } from './service.js';

const tags = ['management: revisions'];
const errors = { 400: ErrorVm, 401: ErrorVm, 403: ErrorVm };

export const revisionsRoutes: FastifyPluginAsyncTypebox<{ revisions: RevisionService }> = async (app, { revisions }) => {

  app.get('/revisions', {
    schema: { tags, summary: 'Revisions, paged (system admins)', querystring: PageQuery, response: { 200: Type.Array(RevisionInfoDto), ...errors } },
    preHandler: requireSysAdmin,
  }, async (req, reply) => {
    const page = pageOf(req.query, REVISION_SORTS, MAX_PAGE_SIZE);
    const { revisions: list, total } = await revisions.list(page);
    setPageHeaders(reply, req, page, total);
    return list;
  });

  app.get('/revisions/:id', {
    schema: { tags, summary: 'One revision (system admins)', params: RevisionParams, response: { 200: RevisionInfoDto, ...errors, 404: RadarErrorVm } },
    preHandler: requireSysAdmin,
  }, async (req) => revisions.get(req.params.id));
};
