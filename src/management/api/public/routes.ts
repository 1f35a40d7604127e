/**
 * The management API's public endpoints (managementportal.md §1.1, §2.3, §2.11), registered
 * without authentication: the public project list, the active profile and the site settings the
 * UI reads before sign-in.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PageQuery, setPageHeaders } from '../../http/paging.js';
import { ErrorVm } from '../../http/error-schemas.js';
import { ProfileInfo, PublicProjectDto, SiteSettings } from './schemas.js';
import type { PublicService } from './service.js';

const tags = ['management: public'];

export interface PublicRoutesOptions {
  service: PublicService;
  /** The active profile `/api/profile-info` reports. */
  profile: 'dev' | 'prod';
  /** What `/api/sitesettings` reports. */
  hiddenSubjectFields: readonly string[];
}

export const publicRoutes: FastifyPluginAsyncTypebox<PublicRoutesOptions> = async (app, { service, profile, hiddenSubjectFields }) => {
  const profileInfo = { activeProfiles: [profile] };
  const siteSettings = { hiddenSubjectFields: [...hiddenSubjectFields] };

  app.get('/public/projects', {
    schema: {
      tags, summary: 'Every project: name, description, source types (no authentication)', querystring: PageQuery,
      response: { 200: Type.Array(PublicProjectDto), 400: ErrorVm },
    },
  }, async (req, reply) => {
    const { items, total, page } = await service.projects(req.query);
    setPageHeaders(reply, req, page, total);
    return items;
  });

  app.get('/profile-info', {
    schema: { tags, summary: 'The active profile (no authentication)', response: { 200: ProfileInfo } },
  }, async () => profileInfo);

  app.get('/sitesettings', {
    schema: { tags, summary: 'Site settings for the UI (no authentication)', response: { 200: SiteSettings } },
  }, async () => siteSettings);
};
