/**
 * Signing in with a user name and password on a page (the OAuth sign-in page and the admin UI's
 * `/login`). Failures count in the token endpoint's limiter under the same (username, IP) key as
 * the password grant, and per IP; while either is blocked, `TooManyFailedAttempts` is thrown.
 */
import type { Executor } from '../../platform/database.js';
import type { FailedAttemptLimiter } from './limiter.js';
import { verifyPassword } from '../security/passwords.js';
import { findUserByLogin } from '../security/queries.js';

/** The user's login when the password is right and the account activated, else undefined. */
export type PasswordSignIn = (username: string, password: string, ip: string) => Promise<string | undefined>;

export function createPasswordSignIn(deps: { db: Executor; limiter?: FailedAttemptLimiter | undefined }): PasswordSignIn {
  return async (username, password, ip) => {
    const login = username.toLowerCase();
    deps.limiter?.check(login, ip);
    const user = login ? await findUserByLogin(deps.db, login) : undefined;
    // An unknown user costs one comparison too (alike timing).
    const ok = await verifyPassword(password, user?.passwordHash);
    if (!user || !ok) {
      deps.limiter?.recordFailure(login, ip);
      return undefined;
    }
    // Not a failed authentication (the password was right), so not counted.
    if (!user.activated) return undefined;
    return user.login;
  };
}
