import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DEFAULT_CSP } from '../../platform/http-security.js';
import { errors } from '../schemas.js';
import type { GithubProxy } from './proxy.js';

const tags = ['appserver: github'];

const GithubBody = Type.Unsafe<Buffer>({
  description: 'GitHub\'s answer: as `application/json` when GitHub sent JSON, else (a file\'s raw content) as `text/plain`; never with GitHub\'s own content type',
});

/** A sandbox on top of the default policy: were a body ever opened as a page, it could run nothing as this origin. */
const SANDBOXED_CSP = `${DEFAULT_CSP}; sandbox`;

export const githubRoutes: FastifyPluginAsyncTypebox<{ proxy: GithubProxy }> = async (app, { proxy }) => {
  app.get('/github/content', {
    schema: {
      tags, summary: 'GitHub API content (protocols, questionnaires) through the app server\'s cache',
      // Optional here so that a missing url gets the same 400 as a refused one.
      querystring: Type.Object({ url: Type.Optional(Type.String({ description: 'An https://api.github.com/repos/{owner}/{repo}/… URL of an allowed owner; its query may hold only ref, recursive, per_page and page' })) }),
      response: { 200: GithubBody, ...errors(400, 502) },
    },
  }, async (req, reply) => {
    const content = await proxy.content(req.query.url);
    reply.type(content.contentType).header('content-security-policy', SANDBOXED_CSP);
    if (content.raw) reply.header('content-disposition', 'attachment');
    return reply.send(content.body);
  });
};
