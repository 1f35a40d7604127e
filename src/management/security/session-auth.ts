/**
 * Session authentication of the management API (issue 10 item 1): the admin UI, signed in
 * through the OAuth pages (oauth/authorize/routes.ts), calls `/api` with that session's cookie
 * instead of a bearer token. The principal is the session's user as a token of the admin UI's
 * client `ManagementPortalapp` would carry it: every permission scope narrowed to what the user's
 * current roles may be granted, and those roles from the database. The user must still exist and
 * be activated.
 *
 * A cookie is sent by the browser with any request to the site, so an unsafe method (POST, PUT,
 * PATCH, DELETE) must also carry the session's CSRF token in `X-CSRF-Token` or `X-XSRF-TOKEN`
 * (the header Angular's HttpClient sends); otherwise 403. So must a GET whose route is marked
 * `config: { changesState: true }` (the reference's `GET /api/oauth-clients/pair`, which creates a
 * meta-token): a link or `<img>` on another site would otherwise make one with the victim's cookie.
 *
 * Only an admin UI user's session authenticates the API (issue 28 item 5): the admin or a user
 * with a role other than a participant's. A participant signed in on the OAuth pages (to answer an
 * authorization request), or a user who lost every other role since signing in, gets 401 as if not
 * signed in; apps use bearer tokens.
 */
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../platform/database.js';
import { narrowScopes, PERMISSION_SCOPES } from '../authz/permissions.js';
import { AccessDenied } from '../errors.js';
import { FRONTEND_CLIENT_ID, SESSION_COOKIE, type Session, type SessionStore } from '../session/sessions.js';
import { findUserWithRoles } from './queries.js';
import { noCredentials, type MpAuth } from './principal.js';

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET that changes state: under a session cookie it needs the CSRF token like a POST. */
    changesState?: boolean;
  }
}

/** The roles of a study participant, who signs in through an app, never to the admin pages. */
const PARTICIPANT_AUTHORITIES: ReadonlySet<string> = new Set(['ROLE_PARTICIPANT', 'ROLE_INACTIVE_PARTICIPANT']);
/** Who may use the admin pages and their session on the API: a user holding any role but a participant's (the built-in admin holds ROLE_SYS_ADMIN). */
export const mayUseAdminUi = (auth: MpAuth): boolean => auth.roles.some((role) => !PARTICIPANT_AUTHORITIES.has(role.authority));

export interface SessionAuthDeps {
  db: Database;
  sessions: SessionStore;
  /** The key that signs the session cookie (the one the sign-in pages use). */
  secret: string;
}

export interface SessionAuth {
  /**
   * The principal of the request's signed-in session, or undefined when the request carries no
   * session cookie. Throws `BearerUnauthorized` (401) for a cookie that is tampered with or whose
   * session is unknown, expired, not signed in, or of a user who is gone, deactivated or holds no
   * role but a participant's; and `AccessDenied` (403) for an unsafe method, or a GET marked
   * `changesState`, without the session's CSRF token.
   */
  principalOf(request: FastifyRequest): Promise<MpAuth | undefined>;
  /**
   * Ends the request's session (sign-out); false when it carries none that is live. Throws
   * `AccessDenied` (403) when the session is live but the request lacks its CSRF token.
   */
  signOut(request: FastifyRequest): Promise<boolean>;
  /**
   * The principal of a signed-in session's user (the admin UI's pages, which check CSRF on their
   * forms themselves); undefined when the user is gone or deactivated.
   */
  principalOfUser(login: string): Promise<MpAuth | undefined>;
  /**
   * The request's signed-in session and its user's principal, as the admin UI's guard loads them,
   * for a page answered outside the pages' scope (which parses no cookies): the error page of an
   * unknown path shows the navbar. Undefined without a cookie, for a tampered one, or without a
   * live session of a user who may use the admin UI; never throws for what the request carries.
   */
  signedInOf(request: FastifyRequest): Promise<{ session: Session; auth: MpAuth } | undefined>;
}

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function createSessionAuth(deps: SessionAuthDeps): SessionAuth {
  const signer = fastifyCookie.signerFactory(deps.secret);
  const notSignedIn = () => noCredentials('Not signed in');

  /** Undefined without a session cookie; null for a tampered cookie or a session that is unknown or expired. */
  async function sessionOf(request: FastifyRequest): Promise<Session | undefined | null> {
    const header = request.headers.cookie;
    const raw = header ? fastifyCookie.parse(header)[SESSION_COOKIE] : undefined;
    if (raw === undefined) return undefined;
    const unsigned = signer.unsign(raw);
    if (!unsigned.valid || !unsigned.value) return null;
    return (await deps.sessions.load(unsigned.value, request.ip)) ?? null;
  }

  function requireCsrf(request: FastifyRequest, session: Session): void {
    const csrf = firstHeader(request.headers['x-csrf-token']) ?? firstHeader(request.headers['x-xsrf-token']);
    if (!deps.sessions.csrfMatches(session, csrf)) throw new AccessDenied('Invalid or missing CSRF token');
  }

  async function principalOfUser(login: string): Promise<MpAuth | undefined> {
    const user = await findUserWithRoles(deps.db, login);
    if (!user?.activated) return undefined;
    const roles = user.roles;
    return {
      subject: user.login,
      userName: user.login,
      clientId: FRONTEND_CLIENT_ID,
      grantType: undefined,
      scopes: new Set(narrowScopes(PERMISSION_SCOPES, roles.map((r) => r.authority))),
      clientCredentials: false,
      roles,
      jti: undefined,
      langKey: user.langKey,
    };
  }

  return {
    async principalOf(request) {
      const session = await sessionOf(request);
      if (session === undefined) return undefined;
      if (!session?.userLogin) throw notSignedIn();
      if (UNSAFE_METHODS.has(request.method) || request.routeOptions.config.changesState === true) requireCsrf(request, session);
      const auth = await principalOfUser(session.userLogin);
      if (!auth || !mayUseAdminUi(auth)) throw notSignedIn();
      return { ...auth, sessionId: session.id };
    },
    principalOfUser,
    async signedInOf(request) {
      const session = await sessionOf(request);
      if (!session?.userLogin) return undefined;
      const auth = await principalOfUser(session.userLogin);
      if (!auth || !mayUseAdminUi(auth)) return undefined;
      return { session, auth: { ...auth, sessionId: session.id, address: request.ip } };
    },
    async signOut(request) {
      const session = await sessionOf(request);
      if (!session) return false;
      requireCsrf(request, session);
      await deps.sessions.destroy(session, request.ip);
      return true;
    },
  };
}
