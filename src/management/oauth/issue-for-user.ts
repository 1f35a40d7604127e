/**
 * Mints a token pair for a user and a client outside the token endpoint: the pairing meta-token
 * (managementportal.md §5, `oAuthClientService.createAccessToken(user, clientId)` in the
 * reference). The chain is recorded like any grant's, so its refresh token is valid once and its
 * refreshes carry the user's current roles, sources and narrowed scope.
 *
 * As in the reference: the scope is the client's whole scope (the first refresh narrows it) and
 * the user's activation is not checked here (the refresh grant checks it).
 * Deviation: the pairing refresh token carries `sub`, `roles` and `sources` as well as
 * `user_name` and `authorities` (the reference's had only the latter two); nothing reads them
 * from a refresh token, and the first refresh recomputes them from the database either way.
 */
import type { Executor } from '../../platform/database.js';
import { BadRequest } from '../errors.js';
import type { OAuthClient } from './clients/client-store.js';
import { clientScope, loadTokenUser } from './grants/shared.js';
import { recordRefreshToken } from './queries.js';
import { isClientTwin, type TokenIssuer } from './token-issuer.js';

export interface UserTokenRequest {
  login: string;
  /** Must have the `refresh_token` grant (callers check; a client without it is a bug here). */
  client: OAuthClient;
  /** The grant type the chain is recorded under (the reference records pairing as `authorization_code`). */
  grantType: string;
}

/**
 * Issues and records a new refresh-token chain for `login`; returns the refresh token, or
 * undefined when the user does not exist. Run it inside the caller's transaction so the record
 * commits (or rolls back) with the caller's change.
 * @throws BadRequest `error.invalidClient` when `login` is the client's id (token-issuer.ts `isClientTwin`)
 */
export async function issueRefreshTokenForUser(db: Executor, issuer: TokenIssuer, request: UserTokenRequest): Promise<string | undefined> {
  const { client, login, grantType } = request;
  if (!client.authorizedGrantTypes.includes('refresh_token')) throw new Error(`client ${client.clientId} has no refresh_token grant`);
  // The issuer refuses it as an OAuth error; here it answers the management API's 400 instead of a 500.
  if (isClientTwin(client, login)) {
    throw new BadRequest(`OAuth client ${client.clientId} has the user's own login`, 'oauthClient', 'error.invalidClient', { clientId: client.clientId });
  }
  const found = await loadTokenUser(db, login);
  if (!found) return undefined;
  const issued = await issuer.issue({ client, grantType, scope: clientScope(client, undefined), user: found.user, withRefreshToken: true });
  const refresh = issued.refresh!;
  await recordRefreshToken(db, {
    jti: refresh.jti, familyId: refresh.jti, parentJti: null, clientId: client.clientId, userLogin: login, expiresAt: refresh.expiresAt,
  });
  return issued.body.refresh_token;
}
