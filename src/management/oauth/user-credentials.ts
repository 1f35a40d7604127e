/**
 * Issue 28 item 3: a password change or reset, a deactivation, a role taken away and a deletion end every
 * other credential of the user: its sign-in sessions, every refresh-token chain, and the refresh
 * tokens the reference ManagementPortal issued before a switch-over (the instant is kept on the
 * user: `credentials_ended_at`). Access tokens
 * already issued are not touched: they are stateless JWTs the resource servers verify on their
 * own, valid until they expire.
 */
import type { Executor } from '../../platform/database.js';
import { endLegacyCredentialsOfUser, revokeRefreshTokensOfUser } from './queries.js';
import { deleteSessionsOfUser } from '../session/queries.js';
import { storedSessionId } from '../session/sessions.js';

/**
 * Deletes the user's sign-in sessions, but the one whose cookie carries `keepSessionId` (the
 * admin UI session that made a change to its own account), revokes every refresh-token chain of
 * the user, whoever asked, and refuses from now on the reference-issued refresh tokens signed before. Call it inside the change's transaction, so both commit
 * together. Idempotent.
 */
export async function endCredentialsOfUser(tx: Executor, login: string, now: Date, keepSessionId?: string): Promise<void> {
  await deleteSessionsOfUser(tx, login, keepSessionId === undefined ? undefined : storedSessionId(keepSessionId));
  await revokeRefreshTokensOfUser(tx, login, now);
  await endLegacyCredentialsOfUser(tx, login, now);
}
