/**
 * `/`: the organizations the signed-in user may see, each with its projects as links to the
 * project pages. The list is the API's `GET /api/projects` for this user, grouped by organization.
 * "Create project" is offered to who may create one somewhere (PROJECT.CREATE: a system or
 * organization admin).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ProjectService } from '../api/projects/service.js';
import { referentsOf } from '../authz/oracle.js';
import { actorOf, principal } from '../security/authorization.js';
import { context, render } from './context.js';

export const homeRoutes: FastifyPluginAsync<{ projects: ProjectService }> = async (app, { projects }) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const ui = context(request);
    // The cookie's path ends in "/": `/managementportal` alone would arrive without it.
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect(`${ui.base}/`, 301);
    const { items } = await projects.list({ page: 0, size: 2_147_483_647 }, actorOf(request));
    const list = items as Awaited<ReturnType<ProjectService['get']>>[];
    const organizations = new Map<string, { name: string; projects: { name: string; description: string | null }[] }>();
    for (const project of list) {
      const name = project.organizationName ?? project.organization?.name ?? '';
      const entry = organizations.get(name) ?? { name, projects: [] };
      entry.projects.push({ name: project.projectName ?? '', description: project.description ?? null });
      organizations.set(name, entry);
    }
    return render(request, reply, 'home', {
      title: ui.t('home.title'),
      login: ui.auth?.userName ?? '',
      organizations: [...organizations.values()].sort((a, b) => a.name.localeCompare(b.name)),
      mayCreateProject: ((referents) => referents.global || referents.organizations.size > 0)(referentsOf(principal(request), 'PROJECT.CREATE')),
    });
  });
};
