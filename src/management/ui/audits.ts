/**
 * `/audits` (managementportal.md §13 admin menu, §2.11; issue 31 item 8): the audit trail of a date
 * range (UTC days, both included; the last 30 days unless asked), filtered by kind, actor and
 * target, newest first, 20 a page by keyset (`before`: the id the next page starts below), for
 * holders of the global AUDIT.READ. The filters are a `role="search"` GET form, so they stay in
 * the URL; `/audits.csv` exports the filtered events.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AUDIT_EVENT_TYPES } from '../audit/audit-log.js';
import type { AuditService } from '../api/audits/service.js';
import { requirePage } from './nav.js';
import { context, render } from './context.js';

const PAGE_SIZE = 20;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
/** The entity types events name as their target. */
const TARGET_TYPES = ['organization', 'project', 'group', 'subject', 'source', 'sourceType', 'user', 'role', 'oauthClient'] as const;
/** A date input's value: empty, or a day. */
const DayOrEmpty = Type.Optional(Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' }));
const AuditsQuery = Type.Object({
  fromDate: DayOrEmpty,
  toDate: DayOrEmpty,
  type: Type.Optional(Type.String({ maxLength: 64 })),
  principal: Type.Optional(Type.String({ maxLength: 256 })),
  targetType: Type.Optional(Type.String({ maxLength: 64 })),
  target: Type.Optional(Type.String({ maxLength: 256 })),
  before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
});
type AuditsQueryT = Static<typeof AuditsQuery>;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A real calendar day (`2024-02-30` is not). */
const isDay = (value: string) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && day(Date.parse(`${value}T00:00:00Z`)) === value;

export const auditRoutes: FastifyPluginAsyncTypebox<{ audits: AuditService; now: () => number }> = async (app, { audits, now }) => {
  /** The request's filters with the default range, or the form problem. */
  function filtersOf(request: FastifyRequest, q: AuditsQueryT) {
    const ui = context(request);
    const filter = { type: q.type ?? '', principal: q.principal ?? '', targetType: q.targetType ?? '', target: q.target ?? '' };
    const fromDate = q.fromDate || day(now() - DEFAULT_DAYS * DAY_MS);
    const toDate = q.toDate || day(now());
    let error: string | null = null;
    if (!isDay(fromDate) || !isDay(toDate)) error = ui.t('error.400');
    else if (fromDate > toDate) error = ui.t('audits.badRange');
    return { ui, filter, fromDate, toDate, error };
  }

  app.get('/audits', { schema: { hide: true, querystring: AuditsQuery } }, async (request, reply) => {
    requirePage(request, 'audits');
    const { ui, filter, fromDate, toDate, error } = filtersOf(request, request.query);
    const params = { fromDate, toDate, ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== '')) };
    const link = (path: string, extra: Record<string, string> = {}) => `${ui.base}${path}?${new URLSearchParams({ ...params, ...extra }).toString()}`;
    const data = { title: ui.t('audits.title'), fromDate, toDate, filter, kinds: AUDIT_EVENT_TYPES, targetTypes: TARGET_TYPES };
    if (error) return render(request, reply, 'audits/list', { ...data, error, events: [] }, 400);
    const { events, next } = await audits.search({ fromDate, toDate, ...filter }, request.query.before, PAGE_SIZE);
    return render(request, reply, 'audits/list', {
      ...data, error: null, events, csv: link('/audits.csv'),
      first: request.query.before !== undefined ? link('/audits') : null,
      next: next !== null ? link('/audits', { before: String(next) }) : null,
    });
  });

  app.get('/audits.csv', { schema: { hide: true, querystring: AuditsQuery } }, async (request, reply) => {
    requirePage(request, 'audits');
    const { fromDate, toDate, filter, error } = filtersOf(request, request.query);
    if (error) return reply.code(400).type('text/plain; charset=utf-8').send(`${error}\n`);
    const csv = await audits.csv({ fromDate, toDate, ...filter });
    return reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="audit-events-${fromDate}-${toDate}.csv"`)
      .send(csv);
  });
};
