import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EmptyBody, errors, nullable, SubjectParams } from '../schemas.js';
import type { Assessment } from './protocol.js';
import type { ScheduleService } from './service.js';

const tags = ['appserver: questionnaire schedule'];
const U = '/projects/:projectId/users/:subjectId/questionnaire/schedule';

/**
 * An assessment of the subject's protocol, in the protocol's own format (§2.7). Its other fields
 * (questionnaire, texts, …) are kept, not stripped: the protocol format is aRMT's, not ours.
 */
const AssessmentBody = Type.Object({
  name: Type.String({ minLength: 1 }),
  type: Type.Optional(nullable(Type.String())),
  protocol: Type.Optional(nullable(Type.Object({}, { additionalProperties: true }))),
}, { additionalProperties: true, description: 'A protocol assessment (name, type, protocol, …)' });

export const scheduleRoutes: FastifyPluginAsyncTypebox<{ schedules: ScheduleService }> = async (app, { schedules }) => {
  app.post(U, {
    schema: {
      tags, summary: "Generate the subject's schedule from their protocol now", params: SubjectParams,
      response: { 201: EmptyBody, ...errors(404) },
    },
  }, async (req, reply) => {
    await schedules.generate(req.params.projectId, req.params.subjectId);
    return reply.code(201).header('location', '/questionnaire/schedule/').send(undefined);
  });

  app.put(U, {
    schema: {
      tags, summary: "Add the tasks of one assessment of the subject's protocol", params: SubjectParams,
      body: AssessmentBody, response: { 201: EmptyBody, ...errors(400, 404) },
    },
  }, async (req, reply) => {
    await schedules.generateAssessment(req.params.projectId, req.params.subjectId, req.body as Assessment);
    return reply.code(201).header('location', '/questionnaire/schedule/').send(undefined);
  });
};
