/**
 * `/audits` (managementportal.md §13 admin menu, §2.11): the audit events of a date range (UTC
 * days, both included; the last 30 days unless asked), newest first, 20 a page, for holders of the
 * global AUDIT.READ, as `GET /management/audits` answers them. The range is a `role="search"` GET
 * form, so it stays in the URL.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AUDIT_SORTS } from '../api/audits/queries.js';
import type { AuditService } from '../api/audits/service.js';
import { pageOf } from '../http/paging.js';
import { authorize } from '../security/authorization.js';
import { context, render } from './context.js';

const PAGE_SIZE = 20;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
/** A date input's value: empty, or a day. */
const DayOrEmpty = Type.Optional(Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' }));
const AuditsQuery = Type.Object({
  fromDate: DayOrEmpty,
  toDate: DayOrEmpty,
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A real calendar day (`2024-02-30` is not). */
const isDay = (value: string) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && day(Date.parse(`${value}T00:00:00Z`)) === value;

export const auditRoutes: FastifyPluginAsyncTypebox<{ audits: AuditService; now: () => number }> = async (app, { audits, now }) => {
  app.get('/audits', { schema: { hide: true, querystring: AuditsQuery } }, async (request, reply) => {
    authorize(request, 'AUDIT.READ', {});
    const ui = context(request);
    const fromDate = request.query.fromDate || day(now() - DEFAULT_DAYS * DAY_MS);
    const toDate = request.query.toDate || day(now());
    const number = request.query.page ?? 0;
    const data = { title: ui.t('audits.title'), fromDate, toDate };
    if (!isDay(fromDate) || !isDay(toDate)) return render(request, reply, 'audits/list', { ...data, error: ui.t('error.400'), events: [] }, 400);
    if (fromDate > toDate) return render(request, reply, 'audits/list', { ...data, error: ui.t('audits.badRange'), events: [] }, 400);
    const page = pageOf({ page: number, size: PAGE_SIZE, sort: ['timestamp,desc'] }, AUDIT_SORTS, PAGE_SIZE);
    const { events, total } = await audits.list({ fromDate, toDate }, page);
    const link = (n: number) => `${ui.base}/audits?${new URLSearchParams({ fromDate, toDate, page: String(n) }).toString()}`;
    return render(request, reply, 'audits/list', {
      ...data, error: null, events, total, from: page.offset + 1, to: page.offset + events.length,
      previous: number > 0 ? link(number - 1) : null,
      next: page.offset + events.length < total ? link(number + 1) : null,
    });
  });
};
