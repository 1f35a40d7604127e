/**
 * `POST /oauth/token` as a list of named steps (after node-oidc-provider `lib/actions/token.js`):
 * authenticate the client, select the grant, check the client may use it, dispatch. Each grant
 * checks its own scope. Nothing here sees the HTTP request: the route passes the Authorization
 * header and the merged parameters.
 */
import type { OAuthClient } from './clients/client-store.js';
import { authenticateClient, clientCredentialsOf, type ClientAuthDeps } from './client-authentication.js';
import { InvalidClient, InvalidGrant, InvalidRequest, UnsupportedGrantType } from './errors.js';
import { GRANTS, type Grant, type GrantDeps, type TokenParams } from './grants/index.js';
import type { TokenResponseT } from './schemas.js';
import { TooManyFailedAttempts } from './limiter.js';
import { attemptPrincipal } from './sign-in.js';

function selectGrant(grantType: string | undefined): Grant {
  if (!grantType) throw new InvalidRequest('Missing grant type');
  // Kept from the reference `[lib]`: implicit is refused as invalid_grant.
  if (grantType === 'implicit') throw new InvalidGrant('Implicit grant type not supported from token endpoint');
  const grant = GRANTS.get(grantType);
  if (!grant) throw new UnsupportedGrantType('Unsupported grant type');
  return grant;
}

/** Issue deviation: a client without any grant type may use none (the reference allowed all). */
function checkGrantAllowed(client: OAuthClient, grant: Grant): void {
  if (!client.authorizedGrantTypes.includes(grant.grantType)) throw new InvalidClient('Unauthorized grant type');
}

export interface TokenEndpointDeps extends GrantDeps, ClientAuthDeps {}


/**
 * The password grant's user authentication is limited like client authentication: per
 * (username, client IP); a wrong password (the grant's only `invalid_grant`) counts as a failure.
 * It is a sign-in, so it is audited as the sign-in pages' are (`AUTHENTICATION_SUCCESS`,
 * `_FAILURE`, `_LOCKED`; batched, no database work here). Other grants keep their events only.
 */
async function dispatch(deps: TokenEndpointDeps, grant: Grant, client: OAuthClient, params: TokenParams, ip: string): Promise<TokenResponseT> {
  if (grant.grantType !== 'password') return grant.handle({ client, params }, deps);
  const username = (params.username ?? '').toLowerCase();
  const audit = (type: 'AUTHENTICATION_SUCCESS' | 'AUTHENTICATION_FAILURE' | 'AUTHENTICATION_LOCKED', message?: string) => deps.audit.record({
    principal: attemptPrincipal(username), type, address: ip, target: { type: 'user', id: attemptPrincipal(username) },
    data: { remoteAddress: ip, via: 'password grant', clientId: client.clientId, ...(message ? { message } : {}) },
  });
  try {
    deps.limiter?.check(username, ip);
  } catch (err) {
    if (err instanceof TooManyFailedAttempts) audit('AUTHENTICATION_LOCKED', 'Too many failed attempts');
    throw err;
  }
  try {
    const issued = await grant.handle({ client, params }, deps);
    audit('AUTHENTICATION_SUCCESS');
    return issued;
  } catch (err) {
    if (err instanceof InvalidGrant) {
      deps.limiter?.recordFailure(username, ip);
      audit('AUTHENTICATION_FAILURE', err.message);
    }
    throw err;
  }
}

/** `ip`: the client's address (the socket's, or X-Forwarded-For's behind a trusted proxy). */
export async function tokenEndpoint(
  deps: TokenEndpointDeps, authorization: string | undefined, params: TokenParams, ip = '',
): Promise<TokenResponseT> {
  const client = await authenticateClient(deps, clientCredentialsOf(authorization, params), ip);
  const grant = selectGrant(params.grant_type);
  checkGrantAllowed(client, grant);
  return dispatch(deps, grant, client, params, ip);
}
