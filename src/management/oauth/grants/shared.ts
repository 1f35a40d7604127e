/** Steps several grants share: scope parsing and checks, loading the user, finishing an issue. */
import type { Executor } from '../../../platform/database.js';
import { narrowScopes } from '../../authz/permissions.js';
import type { OAuthClient } from '../clients/client-store.js';
import { findUserByLogin, findUserWithRoles } from '../../security/queries.js';
import { InvalidScope } from '../errors.js';
import { recordRefreshToken } from '../queries.js';
import type { IssuedTokens, TokenUser } from '../token-issuer.js';
import type { GrantDeps } from './types.js';
import type { UserRow } from '../../schema.js';

/** The `scope` parameter's description in the token request's OpenAPI schema. */
export const SCOPE_PARAMETER = 'space-separated scopes (a subset of the client\'s)';

/** A `scope` parameter as a list: space- or comma-separated, duplicates removed; undefined when absent. */
export function parseScope(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const scopes = [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
  return scopes.length > 0 ? scopes : undefined;
}

/**
 * The requested scopes when they are all the client's, or all the client's scopes when none were
 * requested. A client without scopes restricts nothing `[lib]`.
 */
export function clientScope(client: OAuthClient, requested: string[] | undefined): string[] {
  if (!requested) return [...client.scope];
  if (client.scope.length === 0) return requested;
  const allowed = new Set(client.scope);
  if (requested.some((s) => !allowed.has(s))) throw new InvalidScope('Invalid scope', { scope: client.scope.join(' ') });
  return requested;
}

/** The claims of a user just loaded (roles with their referent, authorities, source UUIDs). */
export async function tokenUserOf(db: Executor, user: UserRow): Promise<TokenUser> {
  const found = await loadTokenUser(db, user.login);
  // The user was just read; deleted in between, it has no roles left.
  return found?.user ?? claimsOf(user.login, [], []);
}

/** A user's activation and token claims in one round trip (the refresh grant's hot path); undefined for an unknown login. */
export async function loadTokenUser(db: Executor, login: string): Promise<{ activated: boolean; user: TokenUser } | undefined> {
  const found = await findUserWithRoles(db, login, { sources: true });
  return found && { activated: found.activated, user: claimsOf(found.login, found.roles, found.sources) };
}

export function claimsOf(login: string, roles: readonly { authority: string; projectName: string | null; organizationName: string | null }[], sources: string[]): TokenUser {
  return {
    login,
    roles: roles.map((r) => {
      const referent = r.projectName ?? r.organizationName;
      return referent ? `${referent}:${r.authority}` : r.authority;
    }),
    authorities: [...new Set(roles.map((r) => r.authority))],
    sources,
  };
}

export { findUserByLogin, narrowScopes };

/** Audits the issue without waiting for the write (items 8 and 11 of the issue). */
export function audit(deps: GrantDeps, issued: IssuedTokens, principal: string): void {
  const body = issued.body;
  deps.audit.record({
    principal,
    type: 'GRANT_ACCESS_TOKEN',
    data: {
      tokenType: body.token_type,
      scope: body.scope.split(' ').filter(Boolean).join(', '),
      expiresIn: String(body.expires_in),
      clientId: String(issued.accessClaims.client_id),
      grantType: body.grant_type,
      jti: body.jti,
      ...(body.sub ? { sub: body.sub } : {}),
    },
  });
}

/** Records a fresh chain's first refresh token (a family of its own). */
export async function recordNewChain(deps: GrantDeps, issued: IssuedTokens, client: OAuthClient, login: string | undefined): Promise<void> {
  if (!issued.refresh) return;
  await recordRefreshToken(deps.db, {
    jti: issued.refresh.jti, familyId: issued.refresh.jti, parentJti: null, clientId: client.clientId,
    userLogin: login ?? null, expiresAt: issued.refresh.expiresAt,
  });
}
