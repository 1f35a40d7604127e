/**
 * Authorization of management API requests on the permission oracle (authz/oracle.ts). Routes
 * declare what they need: a preHandler for checks that need no entity (`requireScope`,
 * `requireGlobalPermission`), or `authorize(request, permission, entity)` in the handler once the
 * entity is loaded. Every refusal is 403 `ErrorVM` `error.accessDenied`.
 *
 * Quirk 6 of the reference fixed for reads (managementportal.md §15): the global lists (source
 * types, source data, OAuth clients) are read with `requireScope`, so organization and project
 * admins see them; creating, changing or deleting them stays a global permission.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { hasPermission, hasScope, referentsOf, type EntityDetails, type Referents } from '../authz/oracle.js';
import { AccessDenied } from '../errors.js';
import type { MpAuth } from './principal.js';


const describe = (entity: EntityDetails) =>
  `EntityDetails(organization=${entity.organization ?? null}, project=${entity.project ?? null}, subject=${entity.subject ?? null}, user=${entity.user ?? null}, source=${entity.source ?? null})`;

function denied(auth: MpAuth, permission: string, entity?: EntityDetails): AccessDenied {
  const who = auth.userName !== undefined ? `User ${auth.userName}` : `Client ${auth.clientId ?? '?'}`;
  const [entityName, op] = permission.split('.');
  const target = entity ? ` to scope ${entityName} of ${describe(entity)}` : '';
  return new AccessDenied(`${who} with client ${auth.clientId ?? '?'} does not have permission Permission{entity=${entityName}, operation=${op}}${target}`);
}

/** The authenticated principal; the API scope's onRequest hook sets it. */
export function principal(request: FastifyRequest): MpAuth {
  const auth = request.mpAuth;
  // A route outside the API scope using a guard is a bug, not a client error.
  if (!auth) throw new Error('management API route without authentication');
  return auth;
}

/** Throws 403 unless the principal has `permission` on `entity` (radar-auth `checkPermission`). */
export function authorize(request: FastifyRequest, permission: string, entity: EntityDetails): MpAuth {
  const auth = principal(request);
  if (!hasPermission(auth, permission, entity)) throw denied(auth, permission, entity);
  return auth;
}

/** Throws 403 unless `hasScope` (radar-auth `checkScope`). */
export function authorizeScope(request: FastifyRequest, permission: string): MpAuth {
  const auth = principal(request);
  if (!hasScope(auth, permission)) throw denied(auth, permission);
  return auth;
}

/** What a list may show the principal for `permission` (403 when it holds the permission nowhere). */
export function listReferents(request: FastifyRequest, permission: string): Referents {
  const auth = authorizeScope(request, permission);
  return referentsOf(auth, permission);
}

/** Revision author and `created_by`: the user login, or the client id of a client-credentials token. */
export const authorName = (auth: MpAuth): string => auth.userName ?? auth.clientId ?? 'system';

/** The authenticated caller as services see it (they never see the request). */
export interface Actor {
  /** Revision author and `created_by` (`authorName`). */
  name: string;
  /** The caller's address (`request.ip`), for the audit trail. */
  address?: string | undefined;
  /** Throws 403 `error.accessDenied` unless the caller holds `permission` on `entity`. */
  check(permission: string, entity: EntityDetails): void;
  /** Where the caller holds `permission`, to filter lists (403 when it holds it nowhere). */
  referents(permission: string): Referents;
}

export function actorOf(request: FastifyRequest): Actor {
  return {
    name: authorName(principal(request)),
    address: request.ip,
    check: (permission, entity) => { authorize(request, permission, entity); },
    referents: (permission) => listReferents(request, permission),
  };
}

/** preHandler: 403 unless `hasScope`. */
export const requireScope = (permission: string): preHandlerAsyncHookHandler => async (request) => {
  authorizeScope(request, permission);
};

/** preHandler: 403 unless a global role or a client-credentials token holds `permission`. */
export const requireGlobalPermission = (permission: string): preHandlerAsyncHookHandler => async (request) => {
  authorize(request, permission, {});
};

const SYS_ADMIN = 'ROLE_SYS_ADMIN';

/** Whether the actor's database roles include ROLE_SYS_ADMIN (the reference's `@Secured`). */
export const isSysAdmin = (actor: MpAuth): boolean => actor.roles.some((r) => r.authority === SYS_ADMIN);

/**
 * preHandler of the reference's `@Secured(ROLE_SYS_ADMIN)`: the caller's database roles must
 * include ROLE_SYS_ADMIN; scopes alone (client credentials) are not enough.
 */
export const requireSysAdmin: preHandlerAsyncHookHandler = async (request) => {
  if (!isSysAdmin(principal(request))) throw new AccessDenied('Access is denied');
};
