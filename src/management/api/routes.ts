/**
 * The scopes of the management resource API (managementportal.md §2): `/api` without
 * authentication (the public project list, `/api/profile-info`, `/api/sitesettings`, the account
 * activation and password-reset pair, `GET /api/meta-token/{name}`, `POST /api/logout`), `/api`
 * behind authentication (bearer token or the signed-in session), `/management/health` without
 * it, and the rest of `/management` (audits, the operational endpoints) behind it. The domain's plugin says which route modules go where, and what each gets.
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { documentClientErrors } from '../../platform/errors.js';
import { ErrorVm, RadarErrorVm } from '../http/error-schemas.js';
import type { BearerAuth } from '../security/bearer-auth.js';

export interface ManagementApiOptions {
  /** Authenticates every request to `secured` and `management`. */
  bearer: BearerAuth;
  /** Route modules under `/api` that need no authentication. */
  open: FastifyPluginAsync;
  /** Route modules under `/api` behind authentication. */
  secured: FastifyPluginAsync;
  /** Route modules under `/management` that need no authentication (health, as the reference's `web.ignoring()`). */
  managementOpen: FastifyPluginAsync;
  /** Route modules under `/management` behind authentication. */
  management: FastifyPluginAsync;
}

export const managementApi: FastifyPluginAsync<ManagementApiOptions> = async (app, { bearer, open, secured, managementOpen, management }) => {
  app.addHook('onRoute', documentClientErrors({ badRequest: Type.Union([ErrorVm, RadarErrorVm]), uriTooLong: ErrorVm, unsupportedMediaType: ErrorVm }));
  await app.register(open, { prefix: '/api' });
  await app.register(managementOpen, { prefix: '/management' });
  await app.register(async (authenticated) => {
    authenticated.addHook('onRequest', bearer.authenticate);
    // Every route here documents the bearer scheme (the signed-in session works too).
    authenticated.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, security: [{ bearer: [] }] };
    });
    await authenticated.register(secured, { prefix: '/api' });
    await authenticated.register(management, { prefix: '/management' });
  });
};
