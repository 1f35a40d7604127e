/**
 * The static permission model of radar-auth (managementportal.md §4): the 40 `ENTITY.OPERATION`
 * scopes, the eight roles with their scope (global, organization, project) and what each role may
 * be granted (`MPAuthorizationOracle.createPermissions`). Pure data and pure functions; the
 * entity-scoped checks (`hasPermission` on a project, subject, source) build on this.
 */

const CRUD = ['CREATE', 'READ', 'UPDATE', 'DELETE'] as const;
const CRUD_ENTITIES = ['SOURCETYPE', 'SOURCEDATA', 'SOURCE', 'SUBJECT', 'USER', 'ROLE', 'PROJECT', 'ORGANIZATION', 'OAUTHCLIENTS'] as const;

/** Every permission scope, in the reference's `Permission.scopes()` order. */
export const PERMISSION_SCOPES: readonly string[] = Object.freeze([
  ...CRUD_ENTITIES.flatMap((entity) => CRUD.map((op) => `${entity}.${op}`)),
  'AUDIT.READ',
  'AUTHORITY.READ',
  'MEASUREMENT.READ',
  'MEASUREMENT.CREATE',
]);

const SCOPE_SET: ReadonlySet<string> = new Set(PERMISSION_SCOPES);
export const isPermissionScope = (scope: string): boolean => SCOPE_SET.has(scope);

export type RoleScope = 'GLOBAL' | 'ORGANIZATION' | 'PROJECT';

export const ROLE_NAMES = [
  'SYS_ADMIN', 'ORGANIZATION_ADMIN', 'PROJECT_ADMIN', 'PROJECT_OWNER', 'PROJECT_AFFILIATE',
  'PROJECT_ANALYST', 'PARTICIPANT', 'INACTIVE_PARTICIPANT',
] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
/** `ROLE_` + name: the authority stored in the database and put in tokens. */
export type Authority = `ROLE_${RoleName}`;

export interface RoleDefinition {
  authority: Authority;
  scope: RoleScope;
  /** Personal roles only act on their own subject (participants). */
  personal: boolean;
  permissions: ReadonlySet<string>;
}

const entityOf = (scope: string) => scope.slice(0, scope.indexOf('.'));
const opOf = (scope: string) => scope.slice(scope.indexOf('.') + 1);
const all = (keep: (entity: string, op: string, scope: string) => boolean) =>
  new Set(PERMISSION_SCOPES.filter((s) => keep(entityOf(s), opOf(s), s)));

const NOT_AUDIT_AUTHORITY = (entity: string) => entity !== 'AUDIT' && entity !== 'AUTHORITY';

const projectAdmin = all((entity, op, scope) =>
  NOT_AUDIT_AUTHORITY(entity) && scope !== 'PROJECT.CREATE' && (entity !== 'ORGANIZATION' || op === 'READ'));

const definitions: Record<RoleName, Omit<RoleDefinition, 'authority'>> = {
  SYS_ADMIN: { scope: 'GLOBAL', personal: false, permissions: all(() => true) },
  ORGANIZATION_ADMIN: {
    scope: 'ORGANIZATION', personal: false,
    permissions: all((entity, _op, scope) =>
      NOT_AUDIT_AUTHORITY(entity) && entity !== 'MEASUREMENT'
      && scope !== 'ORGANIZATION.CREATE' && scope !== 'SOURCEDATA.CREATE' && scope !== 'SOURCETYPE.CREATE'),
  },
  PROJECT_ADMIN: { scope: 'PROJECT', personal: false, permissions: projectAdmin },
  PROJECT_OWNER: { scope: 'PROJECT', personal: false, permissions: new Set([...projectAdmin].filter((s) => entityOf(s) !== 'USER')) },
  PROJECT_AFFILIATE: {
    scope: 'PROJECT', personal: false,
    permissions: all((entity, op, scope) =>
      NOT_AUDIT_AUTHORITY(entity) && entity !== 'USER' && scope !== 'SUBJECT.DELETE'
      && ((entity !== 'ORGANIZATION' && entity !== 'PROJECT') || op === 'READ')),
  },
  PROJECT_ANALYST: {
    scope: 'PROJECT', personal: false,
    permissions: all((entity, op, scope) => (NOT_AUDIT_AUTHORITY(entity) && entity !== 'USER' && op === 'READ') || scope === 'SUBJECT.UPDATE'),
  },
  PARTICIPANT: { scope: 'PROJECT', personal: true, permissions: new Set(['SUBJECT.READ', 'SUBJECT.UPDATE', 'MEASUREMENT.CREATE', 'MEASUREMENT.READ']) },
  INACTIVE_PARTICIPANT: { scope: 'PROJECT', personal: true, permissions: new Set() },
};

export const ROLES: ReadonlyMap<Authority, RoleDefinition> = new Map(
  ROLE_NAMES.map((name) => [`ROLE_${name}` as Authority, { authority: `ROLE_${name}` as Authority, ...definitions[name] }]),
);

export const AUTHORITIES: readonly Authority[] = ROLE_NAMES.map((name) => `ROLE_${name}` as Authority);

/** Whether any of `authorities` may be granted `scope` (radar-auth `mayBeGranted`). Unknown names grant nothing. */
export function mayBeGranted(authorities: Iterable<string>, scope: string): boolean {
  for (const authority of authorities) {
    if (ROLES.get(authority as Authority)?.permissions.has(scope)) return true;
  }
  return false;
}

/**
 * The scopes of a user token: `requested` narrowed to what the user's roles may be granted
 * (`ClaimsTokenEnhancer`). As in the reference, the result is sorted when anything was removed.
 * Reference bug fixed: a scope that is no permission (the reference threw) is dropped.
 */
export function narrowScopes(requested: readonly string[], authorities: readonly string[]): string[] {
  const kept = requested.filter((scope) => mayBeGranted(authorities, scope));
  return kept.length === requested.length ? [...requested] : kept.sort();
}
