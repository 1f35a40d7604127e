/**
 * Server-side sessions of the sign-in and consent pages (issue 9 item 12). The cookie carries a
 * random session id (signed by the route layer); the row, keyed by the id's SHA-256, holds the
 * CSRF token, the signed-in user and the authorization request being answered. Signing in
 * replaces the id and the CSRF token (no session fixation). A session expires when idle for
 * `ttlSeconds` (`MANAGEMENTPORTAL_UI_SESSION_TIMEOUT`): every load extends it, writing at most once
 * a minute per session; expired rows are swept when a session is created. A signed-in session also
 * ends `maxAgeSeconds` (`MANAGEMENTPORTAL_UI_SESSION_MAX_AGE`) after sign-in however busy it is, so
 * a stolen or forgotten cookie cannot be kept alive by use: no extension reaches past that instant,
 * and `load` refuses a session beyond it.
 *
 * A signed-in session ends as soon as its user is deactivated or deleted: the user service deletes
 * its rows then, and `load` refuses (and deletes) any left whose user is gone or not activated
 * (e.g. a participant deactivated through its subject), so neither the API nor the authorization
 * page acts for such a user.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constantEquals } from '../../platform/constant-equals.js';
import type { Database } from '../../platform/database.js';
import type { PendingAuthorization } from '../schema.js';
import type { AuditLog } from '../audit/audit-log.js';
import { deleteExpiredSession, deleteExpiredSessions, deleteSession, findLiveSession, insertSession, updateSession } from './queries.js';

/** The default idle timeout (`PT30M`). */
export const SESSION_TTL_SECONDS = 1800;
/** The default longest life of a signed-in session (`PT12H`). */
export const SESSION_MAX_AGE_SECONDS = 12 * 3600;
/** A load extends the session once this much of its idle time has passed: one write a minute (at most), not one a request. */
const EXTEND_AFTER_MS = 60_000;
/** The cookie the sign-in pages set and session authentication reads. */
export const SESSION_COOKIE = 'mp_oauth_session';
/** The admin UI's OAuth client: a signed-in session acts as a token of this client would. */
export const FRONTEND_CLIENT_ID = 'ManagementPortalapp';

export interface Session {
  /** The id the cookie carries (never stored). */
  id: string;
  csrfToken: string;
  userLogin: string | null;
  authenticatedAt: Date | null;
  pending: PendingAuthorization | null;
}

const hashId = (id: string) => createHash('sha256').update(id).digest('base64url');
/** The key a session is stored under (queries.ts), from the id its cookie carries. */
export const storedSessionId = hashId;
const randomToken = () => randomBytes(32).toString('base64url');

export interface SessionStore {
  /**
   * The live session of the id, or undefined. A signed-in session presented after it expired (idle
   * or past its longest life) is audited `SESSION_EXPIRED` once: its row is deleted then. `ip`: the
   * presenter's address, for that event.
   */
  load(id: string | undefined, ip?: string): Promise<Session | undefined>;
  create(pending: PendingAuthorization | null): Promise<Session>;
  /** Saves the session's user and pending request and extends its life. */
  save(session: Session): Promise<void>;
  /** The same session under a new id and CSRF token (after sign-in); the old id stops working. */
  renew(session: Session): Promise<Session>;
  /** Whether `presented` is the session's CSRF token (constant time). */
  csrfMatches(session: Session, presented: string | undefined): boolean;
  /** Ends the session (sign-out, audited `LOGOUT` for a signed-in one): its id stops working. */
  destroy(session: Session, ip?: string): Promise<void>;
}

export function createSessionStore(deps: { db: Database; now: () => number; ttlSeconds?: number; maxAgeSeconds?: number; audit?: AuditLog }): SessionStore {
  const audit = (type: 'SESSION_EXPIRED' | 'LOGOUT', login: string, ip: string | undefined) => deps.audit?.record({
    principal: login, type, address: ip, target: { type: 'user', id: login }, data: ip ? { remoteAddress: ip } : {},
  });
  const ttlMs = (deps.ttlSeconds ?? SESSION_TTL_SECONDS) * 1000;
  const maxAgeMs = (deps.maxAgeSeconds ?? SESSION_MAX_AGE_SECONDS) * 1000;
  const extendAfterMs = Math.min(EXTEND_AFTER_MS, ttlMs / 2);
  /** The idle expiry from now, never past the end of a signed-in session's life. */
  const expiry = (authenticatedAt: Date | null) =>
    new Date(Math.min(deps.now() + ttlMs, authenticatedAt ? authenticatedAt.getTime() + maxAgeMs : Infinity));
  const outlived = (authenticatedAt: Date | null) => authenticatedAt !== null && deps.now() >= authenticatedAt.getTime() + maxAgeMs;

  async function create(pending: PendingAuthorization | null): Promise<Session> {
    await deleteExpiredSessions(deps.db, new Date(deps.now()));
    const session: Session = { id: randomToken(), csrfToken: randomToken(), userLogin: null, authenticatedAt: null, pending };
    await insertSession(deps.db, { id: hashId(session.id), csrfToken: session.csrfToken, pending, expiresAt: expiry(null) });
    return session;
  }

  return {
    async load(id, ip) {
      if (!id) return undefined;
      const row = await findLiveSession(deps.db, hashId(id), new Date(deps.now()));
      if (!row) {
        // Only for a cookie that is no longer live: an expired signed-in session, audited once.
        if (deps.audit) {
          const expired = await deleteExpiredSession(deps.db, hashId(id), new Date(deps.now()));
          if (expired?.userLogin) audit('SESSION_EXPIRED', expired.userLogin, ip);
        }
        return undefined;
      }
      // `outlived` too: rows written before the max age existed (or under a longer one) carry a later expiry.
      if (row.userActive === false || outlived(row.authenticatedAt)) {
        await deleteSession(deps.db, row.id);
        if (row.userActive !== false && row.userLogin) audit('SESSION_EXPIRED', row.userLogin, ip);
        return undefined;
      }
      const extended = expiry(row.authenticatedAt);
      if (extended.getTime() - row.expiresAt.getTime() > extendAfterMs) await updateSession(deps.db, row.id, { expiresAt: extended });
      return { id, csrfToken: row.csrfToken, userLogin: row.userLogin, authenticatedAt: row.authenticatedAt, pending: row.pending };
    },
    create,
    async save(session) {
      await updateSession(deps.db, hashId(session.id), {
        userLogin: session.userLogin, authenticatedAt: session.authenticatedAt, pending: session.pending, expiresAt: expiry(session.authenticatedAt),
      });
    },
    async renew(session) {
      await deleteSession(deps.db, hashId(session.id));
      const renewed: Session = { ...session, id: randomToken(), csrfToken: randomToken() };
      await insertSession(deps.db, {
        id: hashId(renewed.id), csrfToken: renewed.csrfToken, userLogin: renewed.userLogin,
        authenticatedAt: renewed.authenticatedAt, pending: renewed.pending, expiresAt: expiry(renewed.authenticatedAt),
      });
      return renewed;
    },
    async destroy(session, ip) {
      await deleteSession(deps.db, hashId(session.id));
      if (session.userLogin) audit('LOGOUT', session.userLogin, ip);
    },
    csrfMatches(session, presented) {
      return typeof presented === 'string' && constantEquals(session.csrfToken, presented);
    },
  };
}
