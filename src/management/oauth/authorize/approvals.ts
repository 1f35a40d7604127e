/**
 * Remembered consent (the reference's approval store): a user who approved every scope a client
 * asks for is not shown the consent page again until the approvals expire.
 */
import type { Executor } from '../../../platform/database.js';
import { findUserByLogin } from '../../security/queries.js';
import { findApprovedScopes, upsertApprovals } from './queries.js';

/** How long an answer is remembered: a month, as spring-security-oauth2's approval handler. */
export const APPROVAL_VALIDITY_MS = 30 * 24 * 3600 * 1000;

/** Whether `login` has approved every one of `scopes` for `clientId` and the approvals still hold. */
export async function allApproved(db: Executor, login: string, clientId: string, scopes: readonly string[], now: Date): Promise<boolean> {
  if (scopes.length === 0) return false;
  const approved = await findApprovedScopes(db, login, clientId, scopes, now);
  return new Set(approved).size === new Set(scopes).size;
}

/** Records the user's answer for each scope (replacing earlier ones). */
export async function rememberDecision(
  db: Executor, login: string, clientId: string, scopes: readonly string[], approved: boolean, now: Date,
): Promise<void> {
  if (scopes.length === 0) return;
  const userId = (await findUserByLogin(db, login))?.id;
  if (userId === undefined) return;
  const status = approved ? 'APPROVED' as const : 'DENIED' as const;
  const expiresAt = new Date(now.getTime() + APPROVAL_VALIDITY_MS);
  await upsertApprovals(db, [...new Set(scopes)].map((scope) => ({ userId, clientId, scope, status, expiresAt, lastModifiedAt: now })));
}
