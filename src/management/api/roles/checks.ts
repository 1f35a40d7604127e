/**
 * Permission checks of the user and role use cases, on the oracle (authz/oracle.ts) with the
 * principal passed in (services never see the request). Every refusal is 403 `ErrorVM`
 * `error.accessDenied`, worded as security/authorization.ts words it.
 */
import { hasPermission, referentsInclude, referentsOf, type EntityDetails } from '../../authz/oracle.js';
import { AccessDenied } from '../../errors.js';
import type { MpAuth } from '../../security/principal.js';
import type { RoleRef } from './queries.js';

function denied(actor: MpAuth, permission: string, entity: EntityDetails): AccessDenied {
  const who = actor.userName !== undefined ? `User ${actor.userName}` : `Client ${actor.clientId ?? '?'}`;
  const [entityName, op] = permission.split('.');
  const details = `EntityDetails(organization=${entity.organization ?? null}, project=${entity.project ?? null}, subject=${entity.subject ?? null}, user=${entity.user ?? null}, source=${entity.source ?? null})`;
  return new AccessDenied(`${who} with client ${actor.clientId ?? '?'} does not have permission Permission{entity=${entityName}, operation=${op}} to scope ${entityName} of ${details}`);
}

/** Throws 403 unless the actor has `permission` on `entity`. */
export function requirePermission(actor: MpAuth, permission: string, entity: EntityDetails): void {
  if (!hasPermission(actor, permission, entity)) throw denied(actor, permission, entity);
}

/** The entity of a role's referent, as the permission checks see it. */
export const roleEntity = (role: RoleRef): EntityDetails =>
  role.projectName !== null ? { project: role.projectName, organization: role.projectOrganization }
    : role.organizationName !== null ? { organization: role.organizationName } : {};

/**
 * Whether the actor may give or take `role` (ROLE.UPDATE on its referent). Reference bug fixed:
 * radar-auth's organization check lets a project role reach its project's organization, so a
 * project admin could hand out ROLE_ORGANIZATION_ADMIN; here an organization role needs
 * ROLE.UPDATE on the organization itself (an organization or global role).
 */
export function mayChangeRole(actor: MpAuth, role: RoleRef): boolean {
  const referents = referentsOf(actor, 'ROLE.UPDATE');
  if (role.projectName !== null) return referentsInclude(referents, { projectName: role.projectName, organizationName: role.projectOrganization });
  if (role.organizationName !== null) return referents.global || referents.organizations.has(role.organizationName);
  return referents.global;
}

/** Throws 403 unless `mayChangeRole`. */
export function requireRoleChange(actor: MpAuth, role: RoleRef): void {
  if (!mayChangeRole(actor, role)) throw denied(actor, 'ROLE.UPDATE', roleEntity(role));
}

/**
 * Whether the actor may change another user with `permission` (update, delete, activation mail,
 * role change): it needs the permission on EVERY project, organization and global scope the user
 * holds a role in, not just one (issue 28 item 1). Reaching a user through any one shared project
 * let a project admin rewrite the e-mail of a system admin who also had a role there, then take
 * the account over with a password reset. The caller's own account needs only the plain check.
 */
export function requireUserChange(actor: MpAuth, permission: string, login: string, userRoles: readonly RoleRef[]): void {
  requirePermission(actor, permission, { user: login, userReferents: userReferentsOf(userRoles) });
  if (login === actor.userName) return;
  for (const role of userRoles) {
    const entity = roleEntity(role);
    if (!hasPermission(actor, permission, entity)) throw denied(actor, permission, { ...entity, user: login });
  }
}

/** Whether `requireUserChange` lets the actor change the user (a page offers Edit or Delete only then). */
export function mayChangeUser(actor: MpAuth, permission: string, login: string, userRoles: readonly RoleRef[]): boolean {
  try {
    requireUserChange(actor, permission, login, userRoles);
    return true;
  } catch (error) {
    if (error instanceof AccessDenied) return false;
    throw error;
  }
}

/** The user's referents for USER checks: projects and organizations of its roles (quirk 7 fix, authz/oracle.ts). */
export function userReferentsOf(userRoles: readonly RoleRef[]): { projects: string[]; organizations: string[] } {
  const projects = new Set<string>();
  const organizations = new Set<string>();
  for (const role of userRoles) {
    if (role.projectName !== null) projects.add(role.projectName);
    if (role.projectOrganization !== null) organizations.add(role.projectOrganization);
    if (role.organizationName !== null) organizations.add(role.organizationName);
  }
  return { projects: [...projects], organizations: [...organizations] };
}
