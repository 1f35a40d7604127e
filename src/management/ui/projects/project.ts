/** What every project page shares: the project (PROJECT.READ, so 403/404 pages), its paths and its tabs. */
import type { FastifyRequest } from 'fastify';
import type { ProjectDtoT } from '../../api/projects/dto.js';
import type { ProjectService } from '../../api/projects/service.js';
import { actorOf } from '../../security/authorization.js';
import { context } from '../context.js';
import type { MessageKey } from '../i18n.js';

export const TABS = ['subjects', 'groups', 'sources', 'admins'] as const;
export type Tab = (typeof TABS)[number];

/** Path parameters of every project page. */
export const PROJECT_NAME = { type: 'string', minLength: 1, maxLength: 255 } as const;

/** The project's page path, e.g. `/managementportal/projects/radar`. */
export const projectPath = (base: string, name: string) => `${base}/projects/${encodeURIComponent(name)}`;
/** A subject's pages of the project, e.g. `…/projects/radar/subjects/{login}`. */
export const subjectPath = (base: string, project: string, login: string) => `${projectPath(base, project)}/subjects/${encodeURIComponent(login)}`;

export interface ProjectHeader {
  name: string;
  id: number;
  description: string;
  organization: string;
  path: string;
  tabs: { label: string; href: string; current: boolean }[];
}

/** The project (403 page without PROJECT.READ, 404 page when unknown), with the tabs of its page. */
export async function projectHeader(request: FastifyRequest, projects: ProjectService, name: string, current: Tab): Promise<ProjectHeader> {
  const project: ProjectDtoT = await projects.get(name, actorOf(request));
  return headerOf(request, name, current, project);
}

/**
 * The header of project `name` without reading the project (`details` absent: no description or
 * organization shown); the caller has checked the user may read it. The subjects tab, the busiest
 * page, reads only its groups and subjects.
 */
export function headerOf(request: FastifyRequest, name: string, current: Tab, details?: ProjectDtoT): ProjectHeader {
  const { t, base } = context(request);
  const path = projectPath(base, name);
  return {
    name,
    id: details?.id ?? 0,
    description: details?.description ?? '',
    organization: details?.organizationName ?? details?.organization?.name ?? '',
    path,
    tabs: TABS.map((tab) => ({
      label: t(`project.tab.${tab}` as MessageKey),
      href: tab === 'subjects' ? path : `${path}/${tab}`,
      current: tab === current,
    })),
  };
}
