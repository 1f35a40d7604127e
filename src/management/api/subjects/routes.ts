/**
 * `/api/subjects` and `/api/projects/{projectName}/subjects` (managementportal.md §2.3, §2.5):
 * participants, their sources and their history. Guards as the reference's: the read, delete and
 * source routes first need the scope (`requireScope`); every use case then checks the permission
 * on the subject's project and login (participants reach only themselves, project admins only
 * their projects).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { alert } from '../../http/alerts.js';
import { MAX_PAGE_SIZE, PageQuery, pageOf, setPageHeaders } from '../../http/paging.js';
import { actorOf, requireScope } from '../../security/authorization.js';
import { MinimalSourceDto } from '../sources/dto.js';
import { nextLink } from './criteria.js';
import {
  ErrorVm, LoginParams, ProjectNameParams, RadarErrorVm, RevisionDto, RevisionParams, SourceAttributesInput, SourceNameParams,
  SourceRegistrationInput, StoredSubjectDto, SubjectDto, SubjectInput, SubjectListQuery, SubjectSourcesQuery, type SubjectListQueryT,
} from './schemas.js';
import type { SubjectPage, SubjectService } from './service.js';
import type { SubjectRevisionsService } from './subject-revisions.js';
import type { SubjectSourcesService } from './subject-sources.js';

const tags = ['management: subjects'];
const either = Type.Union([ErrorVm, RadarErrorVm]);
const errors = { 400: either, 401: ErrorVm, 403: either, 404: RadarErrorVm };
const writeErrors = { ...errors, 409: either };


const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!;

export interface SubjectRoutesOptions {
  subjects: SubjectService;
  /** A subject's sources (`/api/subjects/{login}/sources`). */
  sources: SubjectSourcesService;
  /** A subject's history (`/api/subjects/{login}/revisions`). */
  revisions: SubjectRevisionsService;
}

export const subjectsRoutes: FastifyPluginAsyncTypebox<SubjectRoutesOptions> = async (app, { subjects, sources, revisions }) => {

  /** `X-Total-Count` and, for a non-empty page, the `Link` to the next one (keyset cursor). */
  function sendPage(request: FastifyRequest, reply: FastifyReply, page: SubjectPage) {
    if (page.paging) {
      const { total, criteria, lastRow } = page.paging;
      reply.header('x-total-count', String(total));
      if (lastRow) reply.header('link', nextLink(pathOf(request), request.query as SubjectListQueryT, criteria, lastRow));
    }
    return page.items;
  }

  app.post('/subjects', {
    schema: {
      tags, summary: 'Create a subject (login: a random UUID unless given)', body: SubjectInput,
      response: { 201: SubjectDto, ...writeErrors },
    },
  }, async (req, reply) => {
    const created = await subjects.create(req.body, actorOf(req));
    return alert(reply.code(201).header('location', `/api/subjects/${encodeURIComponent(created.login)}`), 'subject', 'created', created.login)
      .send(created);
  });

  app.put('/subjects', {
    schema: {
      tags, summary: 'Update a subject (without id: create it)', body: SubjectInput,
      response: { 200: SubjectDto, 201: SubjectDto, ...writeErrors },
    },
  }, async (req, reply) => {
    const { created, subject } = await subjects.update(req.body, actorOf(req));
    if (created) reply.code(201).header('location', `/api/subjects/${encodeURIComponent(subject.login)}`);
    return alert(reply, 'subject', created ? 'created' : 'updated', subject.login).send(subject);
  });

  app.put('/subjects/discontinue', {
    schema: {
      tags, summary: 'Discontinue a subject: sources released, account deactivated', body: SubjectInput,
      response: { 200: SubjectDto, ...writeErrors },
    },
  }, async (req, reply) => {
    const subject = await subjects.discontinue(req.body, actorOf(req));
    return alert(reply, 'subject', 'updated', subject.login).send(subject);
  });

  app.get('/subjects', {
    schema: {
      tags, summary: 'Subjects by criteria, keyset-paged (with projectName and externalId: the one subject)', querystring: SubjectListQuery,
      response: { 200: Type.Array(SubjectDto), ...errors },
    },
  }, async (req, reply) => sendPage(req, reply, await subjects.list(req.query, actorOf(req))));

  app.get('/projects/:projectName/subjects', {
    schema: {
      tags, summary: 'Subjects of a project by criteria, keyset-paged', params: ProjectNameParams, querystring: SubjectListQuery,
      response: { 200: Type.Array(SubjectDto), ...errors },
    },
    preHandler: requireScope('SUBJECT.READ'),
  }, async (req, reply) => sendPage(req, reply, await subjects.list(req.query, actorOf(req), req.params.projectName)));

  app.get('/subjects/:login', {
    schema: { tags, summary: 'One subject, with its full project', params: LoginParams, response: { 200: SubjectDto, ...errors } },
    preHandler: requireScope('SUBJECT.READ'),
  }, async (req) => subjects.get(req.params.login, actorOf(req)));

  app.delete('/subjects/:login', {
    schema: { tags, summary: 'Delete a subject and its account (sources released)', params: LoginParams, response: { 200: Type.Null({ description: 'Empty body' }), ...errors } },
    preHandler: requireScope('SUBJECT.DELETE'),
  }, async (req, reply) => {
    await subjects.remove(req.params.login, actorOf(req));
    return alert(reply, 'subject', 'deleted', req.params.login).send(undefined as never);
  });

  app.get('/subjects/:login/revisions', {
    schema: {
      tags, summary: 'The subject\'s revisions, paged (`sort=id,desc`: newest first)', params: LoginParams, querystring: PageQuery,
      response: { 200: Type.Array(RevisionDto), ...errors },
    },
    preHandler: requireScope('SUBJECT.READ'),
  }, async (req, reply) => {
    const page = pageOf(req.query, ['id'] as const, MAX_PAGE_SIZE);
    const { revisions: list, total } = await revisions.list(req.params.login, page, actorOf(req));
    setPageHeaders(reply, req, page, total);
    return list;
  });

  app.get('/subjects/:login/revisions/:revisionNb', {
    schema: {
      tags, summary: 'The subject as it was at a revision (also after its deletion)', params: RevisionParams,
      response: { 200: StoredSubjectDto, ...errors },
    },
    preHandler: requireScope('SUBJECT.READ'),
  }, async (req) => revisions.at(req.params.login, req.params.revisionNb, actorOf(req)));

  app.get('/subjects/:login/sources', {
    schema: {
      tags, summary: 'The subject\'s sources ([] when none)', params: LoginParams, querystring: SubjectSourcesQuery,
      response: { 200: Type.Array(MinimalSourceDto), ...errors },
    },
    preHandler: requireScope('SUBJECT.READ'),
  }, async (req) => sources.list(req.params.login, req.query.withInactiveSources ?? false, actorOf(req)));

  app.post('/subjects/:login/sources', {
    schema: {
      tags, summary: 'Register a source of a dynamic source type (201; again: 409), or update one by sourceId (200)',
      params: LoginParams, body: SourceRegistrationInput,
      response: { 200: MinimalSourceDto, 201: MinimalSourceDto, ...writeErrors },
    },
    preHandler: requireScope('SUBJECT.UPDATE'),
  }, async (req, reply) => {
    const { created, source } = await sources.register(req.params.login, req.body, actorOf(req));
    if (created) reply.code(201).header('location', `/api/sources/${encodeURIComponent(source.sourceName)}`);
    return alert(reply, 'source', created ? 'created' : 'updated', source.sourceName).send(source);
  });

  app.post('/subjects/:login/sources/:sourceName', {
    schema: {
      tags, summary: 'Merge attributes into one of the subject\'s sources', params: SourceNameParams, body: SourceAttributesInput,
      response: { 200: MinimalSourceDto, ...errors },
    },
    preHandler: requireScope('SUBJECT.UPDATE'),
  }, async (req) => sources.updateAttributes(req.params.login, req.params.sourceName, req.body, actorOf(req)));
};
