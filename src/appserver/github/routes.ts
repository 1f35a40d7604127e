import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../schemas.js';
import type { GithubProxy } from './proxy.js';

const tags = ['appserver: github'];

const GithubBody = Type.Unsafe<Buffer>({ description: 'GitHub\'s answer, as GitHub sent it (with its content type)' });

export const githubRoutes: FastifyPluginAsyncTypebox<{ proxy: GithubProxy }> = async (app, { proxy }) => {
  app.get('/github/content', {
    schema: {
      tags, summary: 'GitHub API content (protocols, questionnaires) through the app server\'s cache',
      // Optional here so that a missing url gets the same 400 as a refused one.
      querystring: Type.Object({ url: Type.Optional(Type.String({ description: 'An https://api.github.com/repos/{owner}/{repo}/… URL of an allowed owner' })) }),
      response: { 200: GithubBody, ...errors(400, 502) },
    },
  }, async (req, reply) => {
    const content = await proxy.content(req.query.url);
    return reply.type(content.contentType).send(content.body);
  });
};
