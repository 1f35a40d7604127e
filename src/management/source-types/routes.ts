/** Placeholder: filled in by the study-management work (issue 10). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ManagementApiDeps } from '../api-deps.js';

export const sourceTypesRoutes: FastifyPluginAsyncTypebox<ManagementApiDeps> = async () => {};
