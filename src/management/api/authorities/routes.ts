/** `GET /api/authorities` (managementportal.md §2.9): the authorities a role can carry, with their scope. */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorVm } from '../../http/error-schemas.js';
import { requireScope } from '../../security/authorization.js';
import { AuthorityDto } from '../roles/schemas.js';
import { AUTHORITY_DTOS } from '../roles/service.js';

export const authoritiesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/authorities', {
    schema: {
      tags: ['management: roles'], summary: 'The six non-participant authorities and their scopes',
      response: { 200: Type.Array(AuthorityDto), 401: ErrorVm, 403: ErrorVm },
    },
    preHandler: requireScope('AUTHORITY.READ'),
  }, async () => [...AUTHORITY_DTOS]);
};
