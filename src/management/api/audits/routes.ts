/**
 * `/management/audits` (managementportal.md §2.11): authentication, token and pairing events, for
 * holders of the global `AUDIT.READ` permission (system admins, or a client with the scope).
 * Pages are 20 events unless asked otherwise (the reference's Spring default).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { requireGlobalPermission } from '../../security/authorization.js';
import { AUDIT_SORTS } from './queries.js';
import { AuditEventDto, AuditParams, AuditsQuery } from './schemas.js';
import type { AuditService } from './service.js';

const tags = ['management: audits'];
const errors = { 400: ErrorVm, 401: ErrorVm, 403: ErrorVm };
const DEFAULT_PAGE_SIZE = 20;

export const auditsRoutes: FastifyPluginAsyncTypebox<{ audits: AuditService }> = async (app, { audits }) => {

  app.get('/audits', {
    schema: {
      tags, summary: 'Audit events, optionally of the days fromDate to toDate, of a kind, actor or target', querystring: AuditsQuery,
      response: { 200: Type.Array(AuditEventDto), ...errors },
    },
    preHandler: requireGlobalPermission('AUDIT.READ'),
  }, async (req, reply) => {
    const page = pageOf(req.query, AUDIT_SORTS, DEFAULT_PAGE_SIZE);
    const { events, total } = await audits.list(req.query, page);
    setPageHeaders(reply, req, page, total);
    return events;
  });

  app.get('/audits/:id', {
    schema: { tags, summary: 'One audit event', params: AuditParams, response: { 200: AuditEventDto, ...errors, 404: RadarErrorVm } },
    preHandler: requireGlobalPermission('AUDIT.READ'),
  }, async (req) => audits.get(req.params.id));
};
