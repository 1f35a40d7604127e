/**
 * `/api/sources` and `/api/projects/{projectName}/sources` (managementportal.md §2.3, §2.6). Each
 * source is checked with the permission oracle on its project (and organization), its subject and
 * itself (sources/service.ts).
 *
 * Reference bug fixed (§15.6): `GET /api/sources` was a global `SUBJECT.READ` check; here it needs
 * `SOURCE.READ` and lists the sources of the projects where the caller holds it (global: all).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { alert } from '../../http/alerts.js';
import { MAX_PAGE_SIZE, PageQuery, pageOf, setPageHeaders } from '../../http/paging.js';
import { ErrorVm, RadarErrorVm } from '../../http/error-schemas.js';
import { actorOf, listReferents, requireScope } from '../../security/authorization.js';
import { MinimalSourceDto, SourceDto } from './dto.js';
import { SOURCE_SORT, type SourceSort } from './queries.js';
import { ProjectNameParams, ProjectSourcesQuery, SourceInput, SourceNameParams } from './schemas.js';
import type { SourceService } from './service.js';

const tags = ['management: sources'];
const SORTABLE = Object.keys(SOURCE_SORT) as SourceSort[];
/** Spring's default page size: the project listing has no `@PageableDefault` in the reference. */
const PROJECT_PAGE_SIZE = 20;
const errors = { 400: Type.Union([ErrorVm, RadarErrorVm]), 401: ErrorVm, 403: Type.Union([ErrorVm, RadarErrorVm]), 404: RadarErrorVm };

const location = (sourceName: string) => `/api/sources/${encodeURIComponent(sourceName)}`;

export const sourcesRoutes: FastifyPluginAsyncTypebox<{ sources: SourceService }> = async (app, { sources }) => {

  app.post('/sources', {
    schema: { tags, summary: 'Create a source (its sourceId is generated)', body: SourceInput, response: { 201: SourceDto, ...errors } },
  }, async (req, reply) => {
    const created = await sources.create(req.body, actorOf(req));
    alert(reply, 'source', 'created', created.sourceName);
    return reply.code(201).header('location', location(created.sourceName)).send(created);
  });

  app.put('/sources', {
    schema: { tags, summary: 'Update a source (without id: create it)', body: SourceInput, response: { 200: SourceDto, 201: SourceDto, ...errors } },
  }, async (req, reply) => {
    const { id } = req.body;
    if (id == null) {
      const created = await sources.create(req.body, actorOf(req));
      alert(reply, 'source', 'created', created.sourceName);
      return reply.code(201).header('location', location(created.sourceName)).send(created);
    }
    const updated = await sources.update({ ...req.body, id }, actorOf(req));
    alert(reply, 'source', 'updated', updated.sourceName);
    return updated;
  });

  app.get('/sources', {
    schema: { tags, summary: 'The sources of the projects the caller may read sources of (paged)', querystring: PageQuery, response: { 200: Type.Array(SourceDto), ...errors } },
  }, async (req, reply) => {
    const referents = listReferents(req, 'SOURCE.READ');
    const page = pageOf(req.query, SORTABLE, MAX_PAGE_SIZE);
    const { items, total } = await sources.list(
      { global: referents.global, projects: [...referents.projects], organizations: [...referents.organizations] }, page);
    setPageHeaders(reply, req, page, total);
    return items;
  });

  app.get('/sources/:sourceName', {
    schema: { tags, summary: 'One source', params: SourceNameParams, response: { 200: SourceDto, ...errors } },
    preHandler: requireScope('SOURCE.READ'),
  }, async (req) => sources.get(req.params.sourceName, actorOf(req)));

  app.delete('/sources/:sourceName', {
    schema: { tags, summary: 'Delete a source that is not and never was assigned', params: SourceNameParams, response: { 200: Type.Null({ description: 'Empty body' }), ...errors, 409: RadarErrorVm } },
    preHandler: requireScope('SOURCE.DELETE'),
  }, async (req, reply) => {
    await sources.remove(req.params.sourceName, actorOf(req));
    return alert(reply, 'source', 'deleted', req.params.sourceName).send(undefined as never);
  });

  app.get('/projects/:projectName/sources', {
    schema: {
      tags, summary: 'A project\'s sources: with `assigned` all (un)assigned ones, otherwise paged',
      params: ProjectNameParams, querystring: ProjectSourcesQuery,
      response: { 200: Type.Union([Type.Array(SourceDto), Type.Array(MinimalSourceDto)]), ...errors },
    },
    preHandler: requireScope('SOURCE.READ'),
  }, async (req, reply) => {
    const { assigned, minimized = false } = req.query;
    const page = pageOf(req.query, SORTABLE, PROJECT_PAGE_SIZE);
    const { items, total } = await sources.listOfProject(req.params.projectName, { assigned, minimized, page }, actorOf(req));
    if (total !== undefined) setPageHeaders(reply, req, page, total);
    return items;
  });
};
