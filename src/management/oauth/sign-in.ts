/**
 * Signing in with a user name and password on a page (the OAuth sign-in page and the admin UI's
 * `/login`). Failures count in the token endpoint's limiter under the same (username, IP) key as
 * the password grant, and per IP; while either is blocked, `TooManyFailedAttempts` is thrown.
 * Every attempt is an audit event (batched writer): `AUTHENTICATION_SUCCESS`, `_FAILURE`, or
 * `_LOCKED` when the limiter refuses it, with the address and the page (`via`).
 */
import type { Executor } from '../../platform/database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { TooManyFailedAttempts, type FailedAttemptLimiter } from './limiter.js';
import { verifyPassword } from '../security/passwords.js';
import { findUserByLogin } from '../security/queries.js';

/**
 * The user's login when the password is right, the account activated and `admit` (when given)
 * accepts the user, else undefined.
 */
export type PasswordSignIn = (username: string, password: string, ip: string, admit?: (login: string) => Promise<boolean>) => Promise<string | undefined>;

/** The principal of a failed attempt: the name typed (the reference's), or `anonymousUser` for none. */
export const attemptPrincipal = (login: string) => login || 'anonymousUser';

export function createPasswordSignIn(deps: { db: Executor; limiter?: FailedAttemptLimiter | undefined; audit?: AuditLog | undefined; via?: string }): PasswordSignIn {
  const via = deps.via ?? 'sign-in page';
  const audit = (type: 'AUTHENTICATION_SUCCESS' | 'AUTHENTICATION_FAILURE' | 'AUTHENTICATION_LOCKED', login: string, ip: string, message?: string) =>
    deps.audit?.record({
      principal: attemptPrincipal(login), type, address: ip, target: { type: 'user', id: attemptPrincipal(login) },
      data: { remoteAddress: ip, via, ...(message ? { message } : {}) },
    });
  return async (username, password, ip, admit) => {
    const login = username.toLowerCase();
    try {
      deps.limiter?.check(login, ip);
    } catch (err) {
      if (err instanceof TooManyFailedAttempts) audit('AUTHENTICATION_LOCKED', login, ip, 'Too many failed attempts');
      throw err;
    }
    const user = login ? await findUserByLogin(deps.db, login) : undefined;
    // An unknown user costs one comparison too (alike timing).
    const ok = await verifyPassword(password, user?.passwordHash);
    if (!user || !ok) {
      deps.limiter?.recordFailure(login, ip);
      audit('AUTHENTICATION_FAILURE', login, ip, 'Bad credentials');
      return undefined;
    }
    // Not a failed authentication towards the limits (the password was right), but not a sign-in either.
    if (!user.activated) {
      audit('AUTHENTICATION_FAILURE', user.login, ip, 'User is not activated');
      return undefined;
    }
    if (admit && !(await admit(user.login))) {
      audit('AUTHENTICATION_FAILURE', user.login, ip, 'Not allowed to sign in here');
      return undefined;
    }
    audit('AUTHENTICATION_SUCCESS', user.login, ip);
    return user.login;
  };
}
