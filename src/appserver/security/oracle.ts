/**
 * Who may do what in the app server: the radar-auth 2.1 token model (`JwtTokenVerifier.toRadarToken`)
 * and permission oracle (`MPAuthorizationOracle`) for the permissions the app server uses
 * (clients.md §3.2, appserver.md §7).
 *
 * - The scope must be in the token; then a client-credentials token passes on scope alone.
 * - Otherwise a role must hold the permission: `ROLE_SYS_ADMIN` everywhere; an organization role
 *   on the projects of its organization (every project's organization is `main`, as radar-spring-auth
 *   has it); a project role on its project; a participant only on its own subject.
 *
 * Deviation from radar-auth, as in the management API: only `grant_type` `client_credentials`
 * makes a client token. radar-auth also counted `sub == client_id`; real client tokens always
 * carry the grant, and the issuer never mints a user token that looks like that.
 */
export type AppPermission = 'PROJECT.READ' | 'PROJECT.UPDATE' | 'SUBJECT.READ' | 'SUBJECT.UPDATE' | 'MEASUREMENT.CREATE' | 'MEASUREMENT.READ';

type RoleScope = 'GLOBAL' | 'ORGANIZATION' | 'PROJECT';

interface RoleDefinition { scope: RoleScope; personal: boolean; permissions: ReadonlySet<AppPermission> }

const ALL: AppPermission[] = ['PROJECT.READ', 'PROJECT.UPDATE', 'SUBJECT.READ', 'SUBJECT.UPDATE', 'MEASUREMENT.CREATE', 'MEASUREMENT.READ'];
const role = (scope: RoleScope, permissions: AppPermission[], personal = false): RoleDefinition => ({ scope, personal, permissions: new Set(permissions) });

/**
 * radar-auth's roles, narrowed to the app server's permissions (managementportal.md §4).
 * `PROJECT.UPDATE` (renaming a project) is the admins' alone: system, organization, project admin
 * and owner; an affiliate or analyst only reads the project, a participant never holds it.
 */
const ROLES: ReadonlyMap<string, RoleDefinition> = new Map([
  ['ROLE_SYS_ADMIN', role('GLOBAL', ALL)],
  ['ROLE_ORGANIZATION_ADMIN', role('ORGANIZATION', ['PROJECT.READ', 'PROJECT.UPDATE', 'SUBJECT.READ', 'SUBJECT.UPDATE'])],
  ['ROLE_PROJECT_ADMIN', role('PROJECT', ALL)],
  ['ROLE_PROJECT_OWNER', role('PROJECT', ALL)],
  ['ROLE_PROJECT_AFFILIATE', role('PROJECT', ALL.filter((p) => p !== 'PROJECT.UPDATE'))],
  ['ROLE_PROJECT_ANALYST', role('PROJECT', ['PROJECT.READ', 'SUBJECT.READ', 'SUBJECT.UPDATE', 'MEASUREMENT.READ'])],
  ['ROLE_PARTICIPANT', role('PROJECT', ['SUBJECT.READ', 'SUBJECT.UPDATE', 'MEASUREMENT.CREATE', 'MEASUREMENT.READ'], true)],
  ['ROLE_INACTIVE_PARTICIPANT', role('PROJECT', [], true)],
]);

/** The one organization every project belongs to here (radar-spring-auth's `"main"`). */
export const ORGANIZATION = 'main';

export interface TokenRole {
  authority: string;
  /** Project or organization name; null for a global role. */
  referent: string | null;
}

/** What the app server reads from a verified token. */
export interface RadarToken {
  subject: string | undefined;
  userName: string | undefined;
  clientId: string | undefined;
  scopes: ReadonlySet<string>;
  roles: readonly TokenRole[];
  clientCredentials: boolean;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** radar-auth's claims → token: `roles` `"project:ROLE_X"` (or `"ROLE_X"`), global `authorities` as roles. */
export function toRadarToken(claims: Readonly<Record<string, unknown>>): RadarToken {
  const roles: TokenRole[] = strings(claims.roles).map((entry) => {
    const colon = entry.lastIndexOf(':');
    return colon < 0 ? { authority: entry, referent: null } : { authority: entry.slice(colon + 1), referent: entry.slice(0, colon) };
  });
  for (const authority of strings(claims.authorities)) {
    if (ROLES.get(authority)?.scope === 'GLOBAL' && !roles.some((r) => r.authority === authority && r.referent === null)) {
      roles.push({ authority, referent: null });
    }
  }
  return {
    subject: str(claims.sub),
    userName: str(claims.user_name),
    clientId: str(claims.client_id),
    scopes: new Set(strings(claims.scope)),
    roles,
    clientCredentials: claims.grant_type === 'client_credentials',
  };
}

export interface Entity { project: string | null | undefined; subject: string | null | undefined }

function roleReaches(token: RadarToken, role: TokenRole, def: RoleDefinition, entity: Entity): boolean {
  if (def.scope === 'GLOBAL') return true;
  if (!entity.project) return false;
  if (def.scope === 'ORGANIZATION') return role.referent === ORGANIZATION;
  if (role.referent !== entity.project) return false;
  return !def.personal || (entity.subject != null && entity.subject === token.subject);
}

/** radar-auth `hasPermission(token, permission, EntityDetails(project, subject))`. */
export function hasPermission(token: RadarToken, permission: AppPermission, entity: Entity): boolean {
  if (!token.scopes.has(permission)) return false;
  if (token.clientCredentials) return true;
  return token.roles.some((r) => {
    const def = ROLES.get(r.authority);
    return def !== undefined && def.permissions.has(permission) && roleReaches(token, r, def, entity);
  });
}

/**
 * Which items of a list the token may see under `permission`: everything, or the listed projects
 * and (a participant's) own subjects. `allows` in read-scope.ts agrees with `hasPermission`.
 */
export type ReadScope =
  | { all: true }
  | { all: false; projects: readonly string[]; subjects: readonly { projectId: string; subjectId: string }[] };

export const EVERYTHING: ReadScope = { all: true };

export function readScope(token: RadarToken, permission: AppPermission): ReadScope {
  const none: ReadScope = { all: false, projects: [], subjects: [] };
  if (!token.scopes.has(permission)) return none;
  if (token.clientCredentials) return EVERYTHING;
  const projects: string[] = [];
  const subjects: { projectId: string; subjectId: string }[] = [];
  for (const r of token.roles) {
    const def = ROLES.get(r.authority);
    if (!def?.permissions.has(permission)) continue;
    if (def.scope === 'GLOBAL' || (def.scope === 'ORGANIZATION' && r.referent === ORGANIZATION)) return EVERYTHING;
    if (def.scope !== 'PROJECT' || !r.referent) continue;
    if (!def.personal) projects.push(r.referent);
    else if (token.subject !== undefined) subjects.push({ projectId: r.referent, subjectId: token.subject });
  }
  return { all: false, projects, subjects };
}

/** Whether an item of `project` (and `subject`) is inside `scope`. */
export function inScope(scope: ReadScope, project: string, subject?: string): boolean {
  if (scope.all) return true;
  return scope.projects.includes(project)
    || (subject !== undefined && scope.subjects.some((s) => s.projectId === project && s.subjectId === subject));
}
