/**
 * The navbar's pages and who may open them (issue 31 item 11): one rule per page, used both by the
 * page's own guard (`requirePage`, the same refusal as the API's `authorize`/`authorizeScope`) and
 * by the layout, which lists only the pages the signed-in user passes. A page's list needs a
 * permission somewhere (a scope: an organization or project role is enough) or, for the audit
 * trail, a global one.
 */
import type { FastifyRequest } from 'fastify';
import { hasPermission, hasScope } from '../authz/oracle.js';
import { authorize, authorizeScope } from '../security/authorization.js';
import type { MpAuth } from '../security/principal.js';
import type { MessageKey } from '../i18n/translator.js';

export interface NavPage {
  /** The page's path below the site's base. */
  path: string;
  label: MessageKey;
  /** The permission the page's list needs; none: every admin UI user. */
  permission?: string;
  /** Whether the permission must be global (a system admin's), not held in some project or organization. */
  global?: boolean;
}

export const NAV_PAGES = {
  home: { path: '/', label: 'nav.home' },
  organizations: { path: '/organizations', label: 'nav.organizations', permission: 'ORGANIZATION.READ' },
  sourceTypes: { path: '/source-types', label: 'nav.sourceTypes', permission: 'SOURCETYPE.READ' },
  // The projects the notifications are grouped by: the projects list's permission.
  notifications: { path: '/notifications', label: 'nav.notifications', permission: 'PROJECT.READ' },
  users: { path: '/users', label: 'nav.users', permission: 'USER.READ' },
  oauthClients: { path: '/oauth-clients', label: 'nav.clients', permission: 'OAUTHCLIENTS.READ' },
  audits: { path: '/audits', label: 'nav.audits', permission: 'AUDIT.READ', global: true },
  account: { path: '/account/settings', label: 'nav.account' },
} as const satisfies Record<string, NavPage>;

export type NavPageName = keyof typeof NAV_PAGES;

/** Whether `auth` may open the page. */
export function mayOpen(auth: MpAuth | undefined, page: NavPage): boolean {
  if (!auth) return false;
  if (page.permission === undefined) return true;
  return page.global === true ? hasPermission(auth, page.permission, {}) : hasScope(auth, page.permission);
}

/** The page's guard: 403 (the API's refusal) unless `mayOpen`. */
export function requirePage(request: FastifyRequest, name: NavPageName): void {
  const page: NavPage = NAV_PAGES[name];
  if (page.permission === undefined) return;
  if (page.global === true) authorize(request, page.permission, {});
  else authorizeScope(request, page.permission);
}

/** The navbar's links for `auth`, in order: only the pages it may open. */
export function navOf(auth: MpAuth | undefined, base: string): { href: string; label: MessageKey }[] {
  return Object.values(NAV_PAGES as Record<string, NavPage>)
    .filter((page) => mayOpen(auth, page))
    .map((page) => ({ href: `${base}${page.path}`, label: page.label }));
}
