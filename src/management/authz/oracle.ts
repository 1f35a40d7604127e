/**
 * The permission oracle (radar-auth `MPAuthorizationOracle`, managementportal.md §4): whether a
 * principal may use a permission on an entity, and which referents a list may show it. Pure: the
 * caller puts in `EntityDetails` what it knows of the entity (the project's organization included),
 * and the principal's roles carry their own project's organization.
 *
 * Reference quirks fixed (§15):
 * - 7: a non-personal role's `USER.*` permissions reach only users with a role inside that role's
 *   project (or organization); the reference let them act on any user. Without a particular user
 *   (e.g. creating one in a project) they are scoped like the project: the role's own project, or
 *   a project of the organization for an organization role.
 * - 9: a participant's source checks compare the source's subject with the participant, not the
 *   source name with the token's source UUIDs (which never matched).
 */
import { ROLES, type Authority, type RoleDefinition } from './permissions.js';

/** A role of the principal with its referent (project or organization name; none for global roles). */
export interface PrincipalRole {
  authority: string;
  projectName: string | null;
  organizationName: string | null;
  /** The organization of `projectName`. */
  projectOrganization: string | null;
}

/** What the oracle needs of a principal (`MpAuth` satisfies it). */
export interface Principal {
  scopes: ReadonlySet<string>;
  clientCredentials: boolean;
  /** `sub`: the subject login of a participant. */
  subject: string | undefined;
  /** `user_name`. */
  userName: string | undefined;
  roles: readonly PrincipalRole[];
}

/** The entity a permission is checked on; no field set means a global check. */
export interface EntityDetails {
  organization?: string | null;
  project?: string | null;
  subject?: string | null;
  user?: string | null;
  source?: string | null;
  /**
   * For USER checks on another user: the projects and organizations of that user's roles (an
   * organization of a project role included). A non-personal role reaches the user only through them.
   */
  userReferents?: { projects: readonly string[]; organizations: readonly string[] };
}

type EntityScope = 'ORGANIZATION' | 'PROJECT' | 'SUBJECT' | 'SOURCE' | 'MEASUREMENT' | 'USER' | string;

const entityOf = (permission: string): EntityScope => permission.slice(0, permission.indexOf('.'));

function minimumEntity(entity: EntityDetails): EntityScope | null {
  if (entity.user != null) return 'USER';
  if (entity.source != null) return 'SOURCE';
  if (entity.subject != null) return 'SUBJECT';
  if (entity.project != null) return 'PROJECT';
  if (entity.organization != null) return 'ORGANIZATION';
  return null;
}

function hasAuthority(principal: Principal, role: PrincipalRole, def: RoleDefinition, entity: EntityDetails, scope: EntityScope): boolean {
  switch (scope) {
    case 'MEASUREMENT':
      return hasAuthority(principal, role, def, entity, 'SOURCE');
    case 'SOURCE':
      // A participant's source is one of its subject's: the SUBJECT check below proves that.
      return hasAuthority(principal, role, def, entity, 'SUBJECT');
    case 'SUBJECT':
      return (!def.personal || (entity.subject != null && entity.subject === principal.subject))
        && hasAuthority(principal, role, def, entity, 'PROJECT');
    case 'PROJECT':
      if (def.scope === 'PROJECT') return entity.project != null && role.projectName === entity.project;
      if (def.scope === 'ORGANIZATION') return entity.organization != null && role.organizationName === entity.organization;
      return false;
    case 'ORGANIZATION':
      if (def.scope === 'PROJECT') {
        return (entity.project != null && role.projectName === entity.project)
          || (entity.organization != null && role.projectOrganization === entity.organization);
      }
      if (def.scope === 'ORGANIZATION') return entity.organization != null && role.organizationName === entity.organization;
      return false;
    case 'USER': {
      if (entity.user != null && entity.user === principal.userName) return true;
      if (def.personal) return false;
      if (entity.user == null) return hasAuthority(principal, role, def, entity, 'PROJECT');
      const referents = entity.userReferents;
      if (!referents) return false;
      if (def.scope === 'PROJECT') return role.projectName != null && referents.projects.includes(role.projectName);
      if (def.scope === 'ORGANIZATION') return role.organizationName != null && referents.organizations.includes(role.organizationName);
      return false;
    }
    default:
      // SOURCETYPE, SOURCEDATA, ROLE, OAUTHCLIENTS, AUDIT, AUTHORITY: no entity to match.
      return true;
  }
}

/**
 * radar-auth `hasPermission`: the permission's scope is in the token; a client-credentials token
 * passes on scope alone; otherwise some role may hold the permission and, unless it is global,
 * reaches the entity both in `entityScope` (default: the permission's entity) and in the entity's
 * most specific level.
 */
export function hasPermission(principal: Principal, permission: string, entity: EntityDetails = {}, entityScope: EntityScope = entityOf(permission)): boolean {
  if (!principal.scopes.has(permission)) return false;
  if (principal.clientCredentials) return true;
  const min = minimumEntity(entity);
  return principal.roles.some((role) => {
    const def = ROLES.get(role.authority as Authority);
    if (!def?.permissions.has(permission)) return false;
    if (def.scope === 'GLOBAL') return true;
    if (min === null) return false;
    return hasAuthority(principal, role, def, entity, entityScope)
      && (entityScope === min || hasAuthority(principal, role, def, entity, min));
  });
}

/** radar-auth `hasScope`: the scope is in the token and a client-credentials token or any role may hold it. */
export function hasScope(principal: Principal, permission: string): boolean {
  if (!principal.scopes.has(permission)) return false;
  if (principal.clientCredentials) return true;
  return principal.roles.some((role) => ROLES.get(role.authority as Authority)?.permissions.has(permission) ?? false);
}

/** Where a principal holds a permission: lists are filtered to these (radar-auth `referentsByScope`). */
export interface Referents {
  global: boolean;
  organizations: ReadonlySet<string>;
  /** Projects of non-personal project roles. */
  projects: ReadonlySet<string>;
  /** Projects of personal (participant) roles. */
  personalProjects: ReadonlySet<string>;
}

export function referentsOf(principal: Principal, permission: string): Referents {
  const none: Referents = { global: false, organizations: new Set(), projects: new Set(), personalProjects: new Set() };
  if (!principal.scopes.has(permission)) return none;
  if (principal.clientCredentials) return { ...none, global: true };
  const organizations = new Set<string>();
  const projects = new Set<string>();
  const personalProjects = new Set<string>();
  let global = false;
  for (const role of principal.roles) {
    const def = ROLES.get(role.authority as Authority);
    if (!def?.permissions.has(permission)) continue;
    if (def.scope === 'GLOBAL') global = true;
    else if (def.scope === 'ORGANIZATION' && role.organizationName) organizations.add(role.organizationName);
    else if (role.projectName) (def.personal ? personalProjects : projects).add(role.projectName);
  }
  return { global, organizations, projects, personalProjects };
}

/**
 * Whether a project is visible through `referents`: global, one of its projects, or in one of its
 * organizations. Personal projects count only when `includePersonal`.
 */
export function referentsInclude(referents: Referents, project: { projectName: string; organizationName: string | null }, includePersonal = false): boolean {
  return referents.global
    || referents.projects.has(project.projectName)
    || (includePersonal && referents.personalProjects.has(project.projectName))
    || (project.organizationName != null && referents.organizations.has(project.organizationName));
}
