/**
 * What every project page shares: the project (PROJECT.READ, so 403/404 pages), its paths, its
 * tabs and its header (description, organization, location, status, dates, attributes, and "Edit"
 * for who holds PROJECT.UPDATE on it).
 */
import type { FastifyRequest } from 'fastify';
import { hasPermission } from '../../authz/oracle.js';
import type { ProjectDtoT } from '../../api/projects/dto.js';
import type { ProjectService } from '../../api/projects/service.js';
import { actorOf, principal } from '../../security/authorization.js';
import { context } from '../context.js';
import type { MessageKey } from '../../i18n/translator.js';

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
  /** The organization's page. */
  organizationPath: string;
  location: string;
  /** The status as the page shows it (translated), empty when not set. */
  status: string;
  /** `YYYY-MM-DD` (UTC), empty when not set. */
  startDate: string;
  endDate: string;
  attributes: { key: string; value: string }[];
  path: string;
  /** The edit form, for who may change the project (PROJECT.UPDATE); undefined otherwise. */
  editPath: string | undefined;
  tabs: { label: string; href: string; current: boolean }[];
}

/** The day (UTC) of an ISO instant, or empty. */
export const dayOf = (instant: string | null | undefined): string => (instant ? instant.slice(0, 10) : '');

/**
 * Like `Promise.all` for a page's reads that start with the project's own (`projects.get`,
 * `projectHeader`), but the project's refusal wins: an unknown project is the 404 page (as
 * `GET /api/projects/{name}` answers, to a system admin and to an admin of another project alike)
 * whichever of the reads fails first. With `Promise.all` the first rejection to arrive won, and a
 * list's 403 could beat the project's 404 on one database and not on the other.
 */
export async function projectFirst<T extends readonly unknown[] | []>(reads: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(reads as readonly unknown[]);
  const refused = settled[0]?.status === 'rejected' ? settled[0] : settled.find((result) => result.status === 'rejected');
  if (refused?.status === 'rejected') throw refused.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** The project (403 page without PROJECT.READ, 404 page when unknown), with the tabs of its page. */
export async function projectHeader(request: FastifyRequest, projects: ProjectService, name: string, current: Tab | undefined): Promise<ProjectHeader> {
  const project: ProjectDtoT = await projects.summary(name, actorOf(request));
  return headerOf(request, name, current, project);
}

/** The header of project `details` (read by the caller, who checked the user may read it). */
export function headerOf(request: FastifyRequest, name: string, current: Tab | undefined, details: ProjectDtoT): ProjectHeader {
  const { t, base } = context(request);
  const path = projectPath(base, name);
  const organization = details.organizationName ?? details.organization?.name ?? '';
  const mayEdit = hasPermission(principal(request), 'PROJECT.UPDATE', { organization, project: name });
  return {
    name,
    id: details.id ?? 0,
    description: details.description ?? '',
    organization,
    organizationPath: `${base}/organizations/${encodeURIComponent(organization)}`,
    location: details.location ?? '',
    status: details.projectStatus ? t(`projectInfo.status.${details.projectStatus}` as MessageKey) : '',
    startDate: dayOf(details.startDate),
    endDate: dayOf(details.endDate),
    attributes: Object.entries(details.attributes ?? {}).map(([key, value]) => ({ key, value })),
    path,
    editPath: mayEdit ? `${path}/edit` : undefined,
    tabs: TABS.map((tab) => ({
      label: t(`project.tab.${tab}` as MessageKey),
      href: tab === 'subjects' ? path : `${path}/${tab}`,
      current: tab === current,
    })),
  };
}
