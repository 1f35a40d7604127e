/**
 * Permission checks on the authenticated principal that need no entity (radar-auth
 * `MPAuthorizationOracle`, managementportal.md §4). Entity-scoped checks (project, subject, source)
 * come with the study-management resources.
 */
import type { preHandlerAsyncHookHandler } from 'fastify';
import { ROLES, mayBeGranted, type Authority } from '../authz/permissions.js';
import { AccessDenied } from '../errors.js';
import type { MpAuth } from './bearer-auth.js';

/** radar-auth `hasScope`: the scope is in the token and a client-credentials token or any role may hold it. */
export function hasScope(auth: MpAuth, scope: string): boolean {
  if (!auth.scopes.has(scope)) return false;
  return auth.clientCredentials || mayBeGranted(auth.roles.map((r) => r.authority), scope);
}

/**
 * radar-auth `hasPermission` without an entity: the scope is in the token, and the token is a
 * client-credentials token or one of the user's roles is global and may hold the scope. Kept from
 * the reference: project and organization roles pass no global check (managementportal.md §15.6).
 */
export function hasGlobalPermission(auth: MpAuth, scope: string): boolean {
  if (!auth.scopes.has(scope)) return false;
  if (auth.clientCredentials) return true;
  return auth.roles.some((r) => ROLES.get(r.authority as Authority)?.scope === 'GLOBAL' && mayBeGranted([r.authority], scope));
}

function denied(auth: MpAuth, scope: string): AccessDenied {
  const who = auth.userName !== undefined ? `User ${auth.userName}` : `Client ${auth.clientId ?? '?'}`;
  return new AccessDenied(`${who} with client ${auth.clientId ?? '?'} does not have permission ${scope}`);
}

const principal = (auth: MpAuth | null): MpAuth => {
  // The API scope's onRequest hook sets it; a route outside that scope using a guard is a bug.
  if (!auth) throw new Error('management API route without bearer authentication');
  return auth;
};

/** preHandler: 403 `error.accessDenied` unless `hasScope`. */
export const requireScope = (scope: string): preHandlerAsyncHookHandler => async (request) => {
  const auth = principal(request.mpAuth);
  if (!hasScope(auth, scope)) throw denied(auth, scope);
};

/** preHandler: 403 `error.accessDenied` unless `hasGlobalPermission`. */
export const requireGlobalPermission = (scope: string): preHandlerAsyncHookHandler => async (request) => {
  const auth = principal(request.mpAuth);
  if (!hasGlobalPermission(auth, scope)) throw denied(auth, scope);
};
