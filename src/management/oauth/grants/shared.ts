/** Steps several grants share: scope parsing and checks, loading the user, finishing an issue. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { executedRows } from '../../../platform/bulk-insert.js';
import { narrowScopes } from '../../authz/permissions.js';
import type { OAuthClient } from '../../oauth-clients/client-store.js';
import { findUserByLogin, rolesOfUser, sourceIdsOfUser, type UserRow } from '../../users/queries.js';
import { InvalidScope } from '../errors.js';
import { recordRefreshToken } from '../refresh-tokens.js';
import type { IssuedTokens, TokenUser } from '../token-issuer.js';
import type { GrantDeps } from './types.js';

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

/** The user's claims: roles with their referent, authorities, and source UUIDs. */
export async function tokenUserOf(db: Executor, user: UserRow): Promise<TokenUser> {
  const [roles, sources] = await Promise.all([rolesOfUser(db, user.id), sourceIdsOfUser(db, user.id)]);
  return claimsOf(user.login, roles, sources);
}

/**
 * A user's activation and token claims in one round trip (the refresh grant's hot path: each
 * query costs a socket write and a read); undefined for an unknown login.
 */
export async function loadTokenUser(db: Executor, login: string): Promise<{ activated: boolean; user: TokenUser } | undefined> {
  const [row] = executedRows(await db.execute(sql`
    select u.login, u.activated,
      coalesce((select json_agg(json_build_object('authority', r.authority_name, 'projectName', p.project_name, 'organizationName', o.name) order by r.id)
        from management.role_users ru join management.roles r on r.id = ru.role_id
        left join management.projects p on p.id = r.project_id
        left join management.organizations o on o.id = r.organization_id
        where ru.user_id = u.id), '[]'::json) as roles,
      coalesce((select json_agg(s.source_id order by s.id)
        from management.sources s join management.subjects sj on sj.id = s.subject_id
        where sj.user_id = u.id and not s.deleted), '[]'::json) as sources
    from management.users u where u.login = ${login}`));
  if (!row) return undefined;
  // postgres.js parses json columns; PGlite may hand them over as text.
  const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  const roles = json<{ authority: string; projectName: string | null; organizationName: string | null }[]>(row.roles);
  return { activated: row.activated as boolean, user: claimsOf(row.login as string, roles, json<string[]>(row.sources)) };
}

function claimsOf(login: string, roles: readonly { authority: string; projectName: string | null; organizationName: string | null }[], sources: string[]): TokenUser {
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
