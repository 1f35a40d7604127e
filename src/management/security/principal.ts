/**
 * The principal of a management API request (`request.mpAuth`, the domain's one request
 * decorator, STYLE §2.2) and the 401 that says there is none. Both ways in share it: bearer tokens
 * (bearer-auth.ts) and the signed-in session (session-auth.ts).
 */
import { DomainError } from '../../platform/errors.js';
import type { UserRole } from './queries.js';

export const REALM = 'ManagementPortal';

/** The authenticated principal of a management API request. */
export interface MpAuth {
  /** `sub` (user login, or client id for client credentials). */
  subject: string | undefined;
  /** `user_name`; undefined for a client-credentials token. */
  userName: string | undefined;
  clientId: string | undefined;
  grantType: string | undefined;
  scopes: ReadonlySet<string>;
  /** `grant_type == client_credentials` (radar-auth's `isClientCredentials` without its `sub == client_id` rule). */
  clientCredentials: boolean;
  /** The user's current roles from the database (empty for client credentials). */
  roles: readonly UserRole[];
  jti: string | undefined;
  /**
   * The id (as its cookie carries it) of the signed-in session this principal came from; absent
   * for a bearer token. A change to the user's own credentials keeps this session alive.
   */
  sessionId?: string;
  /** The signed-in user's language (`users.lang_key`): the admin UI's pages use it (i18n/translator.ts). */
  langKey?: string | null;
  /** The caller's address (`request.ip`), for the audit trail; set by the authentication hook. */
  address?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The management API principal; null before authentication (management/security). */
    mpAuth: MpAuth | null;
  }
}

/** 401 with the `WWW-Authenticate` challenge of RFC 6750 §3. */
export class BearerUnauthorized extends DomainError {
  constructor(description: string, readonly challenge: string) {
    super(401, description);
    this.name = 'BearerUnauthorized';
  }
}

/** 401 for a request without usable credentials (no `error` code: RFC 6750 §3.1). */
export const noCredentials = (description: string) => new BearerUnauthorized(description, `Bearer realm="${REALM}"`);
