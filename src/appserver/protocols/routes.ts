import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, ProjectIdParams, SubjectParams } from '../schemas.js';
import type { Access } from '../security/guard.js';
import type { ProtocolService } from './service.js';

const tags = ['appserver: protocols'];

/** The protocol file as the repository holds it (sent as stored, not re-serialised). */
const ProtocolText = Type.Unsafe<string>({ type: 'object', description: 'An aRMT protocol (`protocol.json`), exactly as stored in the protocol repository' });
const ProtocolsBySubject = Type.Unsafe<string>({ type: 'object', description: '`{subjectId: protocol}` for every user with a protocol' });

const JSON_TYPE = 'application/json; charset=utf-8';

export const protocolRoutes: FastifyPluginAsyncTypebox<{ protocols: ProtocolService; access: Access }> = async (app, { protocols, access }) => {
  app.get('/protocols', {
    schema: { tags, summary: 'The protocol of every user, by subjectId', response: { 200: ProtocolsBySubject, ...errors(502) } },
  }, async (req, reply) => reply.type(JSON_TYPE).send(await protocols.allBySubject(access.scope(req))));

  app.get('/projects/:projectId/protocols', {
    schema: { tags, summary: 'The protocol of a project ({projectId}/protocol.json)', params: ProjectIdParams, response: { 200: ProtocolText, ...errors(404, 502) } },
  }, async (req, reply) => reply.type(JSON_TYPE).send(await protocols.projectProtocol(req.params.projectId)));

  app.get('/projects/:projectId/users/:subjectId/protocols', {
    schema: {
      tags, summary: 'The protocol of a user: the project\'s path whose attribute pairs match most of the user\'s attributes',
      params: SubjectParams, response: { 200: ProtocolText, ...errors(404, 502) },
    },
  }, async (req, reply) => reply.type(JSON_TYPE).send(await protocols.subjectProtocol(req.params.projectId, req.params.subjectId)));
};
