/**
 * The management resource API (managementportal.md §2) under `/api`, plus `/management/audits`.
 * Every route here is authenticated first (bearer token or the signed-in session), except the
 * public ones (`/api/public/projects`, `/api/profile-info`, `/api/sitesettings`, the account activation and
 * password-reset pair, `GET /api/meta-token/{name}`, `POST /api/logout`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ManagementApiDeps } from './api-deps.js';
import type { BearerAuth } from './security/bearer-auth.js';
import { organizationsRoutes } from './organizations/routes.js';
import { projectsRoutes } from './projects/routes.js';
import { groupsRoutes } from './groups/routes.js';
import { subjectsRoutes } from './subjects/routes.js';
import { sourcesRoutes } from './sources/routes.js';
import { sourceTypesRoutes } from './source-types/routes.js';
import { sourceDataRoutes } from './source-types/source-data-routes.js';
import { usersRoutes } from './users/routes.js';
import { rolesRoutes } from './roles/routes.js';
import { authoritiesRoutes } from './roles/authority-routes.js';
import { revisionsRoutes } from './revisions/routes.js';
import { auditsRoutes } from './audit/routes.js';
import { publicRoutes } from './public/routes.js';
import { accountRoutes, publicAccountRoutes } from './account/routes.js';
import { pairingRoutes, publicMetaTokenRoutes } from './pairing/routes.js';
import type { TokenIssuer } from './oauth/token-issuer.js';
import { logoutRoutes, type LogoutRoutesOptions } from './security/logout-routes.js';

export interface ManagementApiOptions {
  deps: ManagementApiDeps;
  bearer: BearerAuth;
  /** Mints the refresh tokens of pairing meta-tokens. */
  issuer: TokenIssuer;
  /** Routes of other modules that live in the authenticated `/api` scope (e.g. OAuth clients). */
  extra?: FastifyPluginAsync;
  /** The signed-in session's sign-out (`POST /api/logout`). */
  logout: LogoutRoutesOptions;
}

export const managementApi: FastifyPluginAsync<ManagementApiOptions> = async (app, { deps, bearer, issuer, extra, logout }) => {
  await app.register(publicRoutes, { ...deps, prefix: '/api' });
  await app.register(logoutRoutes, { ...logout, prefix: '/api' });
  await app.register(publicAccountRoutes, { ...deps, prefix: '/api' });
  await app.register(publicMetaTokenRoutes, { ...deps, issuer, prefix: '/api' });
  await app.register(async (secured) => {
    secured.addHook('onRequest', bearer.authenticate);
    // Every route here documents the bearer scheme (the signed-in session works too).
    secured.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, security: [{ bearer: [] }] };
    });
    await secured.register(async (api) => {
      if (extra) await api.register(extra);
      for (const routes of [organizationsRoutes, projectsRoutes, groupsRoutes, subjectsRoutes, sourcesRoutes, sourceTypesRoutes,
        sourceDataRoutes, usersRoutes, rolesRoutes, authoritiesRoutes, revisionsRoutes, accountRoutes]) {
        await api.register(routes, deps);
      }
      await api.register(pairingRoutes, { ...deps, issuer });
    }, { prefix: '/api' });
    await secured.register(auditsRoutes, { ...deps, prefix: '/management' });
  });
};
