/**
 * Remembered consent (the reference's approval store): one answer per user, client and scope,
 * `APPROVED` or `DENIED`, for a month. A user who approved every scope a client asks for (apart
 * from the client's auto-approved ones) is not shown the consent page again until the approvals
 * expire; a denied scope counts as not approved, so a request for it asks again.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { findUserByLogin } from '../../security/queries.js';
import { revokeRefreshTokensOfUser } from '../queries.js';
import { deleteApprovalsOfClient, findApprovalsOfUser, findApprovedScopes, upsertApprovals } from './queries.js';

/** How long an answer is remembered: a month, as spring-security-oauth2's approval handler. */
export const APPROVAL_VALIDITY_MS = 30 * 24 * 3600 * 1000;

/** Whether `login` has approved every one of `scopes` for `clientId` and the approvals still hold. */
export async function allApproved(db: Executor, login: string, clientId: string, scopes: readonly string[], now: Date): Promise<boolean> {
  if (scopes.length === 0) return false;
  const approved = await findApprovedScopes(db, login, clientId, scopes, now);
  return new Set(approved).size === new Set(scopes).size;
}

/** The user's answer on a consent page: the scopes ticked and those left unticked. */
export interface ScopeAnswers {
  approved: readonly string[];
  denied: readonly string[];
}

/**
 * Records the user's answer for each scope (replacing earlier ones), as the reference's
 * `ApprovalStoreUserApprovalHandler` does: approved scopes `APPROVED`, the others `DENIED`, all
 * until a month from `now`. A scope in both lists counts as approved.
 */
export async function rememberAnswers(db: Executor, login: string, clientId: string, answers: ScopeAnswers, now: Date): Promise<void> {
  const approved = new Set(answers.approved);
  const denied = [...new Set(answers.denied)].filter((s) => !approved.has(s));
  if (approved.size === 0 && denied.length === 0) return;
  const userId = (await findUserByLogin(db, login))?.id;
  if (userId === undefined) return;
  const expiresAt = new Date(now.getTime() + APPROVAL_VALIDITY_MS);
  const row = (scope: string, status: 'APPROVED' | 'DENIED') => ({ userId, clientId, scope, status, expiresAt, lastModifiedAt: now });
  await upsertApprovals(db, [...[...approved].map((s) => row(s, 'APPROVED')), ...denied.map((s) => row(s, 'DENIED'))]);
}

/** Records one answer for all of `scopes` (replacing earlier ones). */
export async function rememberDecision(
  db: Executor, login: string, clientId: string, scopes: readonly string[], approved: boolean, now: Date,
): Promise<void> {
  await rememberAnswers(db, login, clientId, approved ? { approved: scopes, denied: [] } : { approved: [], denied: scopes }, now);
}

/** A client's remembered consent: the scopes a user approved for it, until when. */
export interface RememberedConsent {
  clientId: string;
  scopes: string[];
  /** The earliest expiry of those approvals: after it the consent page shows again. */
  expiresAt: Date;
}

/** The signed-in user's remembered consents (the admin UI's `/account/approvals`). */
export interface ApprovalService {
  /** The user's approvals that still hold, one entry per client. */
  list(login: string): Promise<RememberedConsent[]>;
  /**
   * Forgets every answer the user gave the client, so its next request shows the consent page, and
   * revokes every refresh-token chain of the user and that client (one transaction); idempotent.
   */
  revoke(login: string, clientId: string): Promise<void>;
}

export function createApprovalService(deps: { db: Database; now: () => number }): ApprovalService {
  return {
    async list(login) {
      const byClient = new Map<string, RememberedConsent>();
      for (const row of await findApprovalsOfUser(deps.db, login, new Date(deps.now()))) {
        const entry = byClient.get(row.clientId) ?? { clientId: row.clientId, scopes: [], expiresAt: row.expiresAt };
        entry.scopes.push(row.scope);
        if (row.expiresAt < entry.expiresAt) entry.expiresAt = row.expiresAt;
        byClient.set(row.clientId, entry);
      }
      return [...byClient.values()];
    },
    async revoke(login, clientId) {
      await deps.db.transaction(async (tx) => {
        await deleteApprovalsOfClient(tx, login, clientId);
        // What the consent granted ends with it: the client's chains for this user cannot continue.
        await revokeRefreshTokensOfUser(tx, login, new Date(deps.now()), clientId);
      });
    },
  };
}
