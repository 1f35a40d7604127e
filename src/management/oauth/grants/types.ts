/** The contract every grant module fulfils (after node-oidc-provider's `lib/actions/grants`). */
import type { Database } from '../../../platform/database.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { OAuthClient } from '../clients/client-store.js';
import type { FormParams } from '../form-params.js';
import type { TokenResponseT } from '../schemas.js';
import type { TokenIssuer } from '../token-issuer.js';
import type { TokenVerifier } from '../token-signing.js';

/** Token request parameters (form body and query string merged; the body wins). */
export type TokenParams = FormParams;

export interface GrantDeps {
  db: Database;
  issuer: TokenIssuer;
  /** Checks presented tokens (the refresh grant's refresh token). */
  verifier: TokenVerifier;
  audit: AuditLog;
  /** Milliseconds since the epoch. */
  now: () => number;
  refreshReuseGraceSeconds: number;
  /** Reference-issued refresh tokens issued after this instant (epoch ms) are refused; undefined: none is. */
  legacyRefreshUntil: number | undefined;
}

export interface GrantContext {
  client: OAuthClient;
  params: TokenParams;
}

export interface Grant {
  grantType: string;
  /** The parameters the grant reads, each with its description (the token request's OpenAPI schema). */
  parameters: Readonly<Record<string, string>>;
  handle(ctx: GrantContext, deps: GrantDeps): Promise<TokenResponseT>;
}
