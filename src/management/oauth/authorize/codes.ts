/**
 * Authorization codes: random 32 bytes (base64url) handed to the client, stored as SHA-256 hashes,
 * valid for `CODE_TTL_SECONDS` and once. `consumeCode` marks a code used in the same statement
 * that reads it, so of concurrent token requests with one code exactly one gets it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../../../platform/database.js';
import type { PendingAuthorization, CodeRow } from '../../schema.js';
import { deleteExpiredCodes, findCodeByHash, insertAuthorizationCode, markCodeUsed } from './queries.js';

/** RFC 6749 §4.1.2 recommends at most 10 minutes; the issue asks for at most 5. */
export const CODE_TTL_SECONDS = 120;

const hashCode = (code: string) => createHash('sha256').update(code).digest('base64url');

/** Stores a new code for `login` answering `request`; returns the code. Sweeps expired codes. */
export async function insertCode(db: Executor, request: PendingAuthorization, login: string, now: Date): Promise<string> {
  await deleteExpiredCodes(db, now);
  const code = randomBytes(32).toString('base64url');
  await insertAuthorizationCode(db, {
    codeHash: hashCode(code), clientId: request.clientId, userLogin: login,
    redirectUri: request.redirectUri, redirectUriGiven: request.redirectUriGiven, scope: request.scope,
    codeChallenge: request.codeChallenge, codeChallengeMethod: request.codeChallengeMethod,
    createdAt: now, expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
  });
  return code;
}

export type ConsumeResult = { outcome: 'consumed'; row: CodeRow } | { outcome: 'used'; row: CodeRow } | { outcome: 'unknown' };

/** Marks the code used and returns it; a used code comes back as `used` (for reuse handling). */
export async function consumeCode(db: Executor, code: string, now: Date): Promise<ConsumeResult> {
  const hash = hashCode(code);
  const row = await markCodeUsed(db, hash, now);
  if (row) return { outcome: 'consumed', row };
  const used = await findCodeByHash(db, hash);
  return used ? { outcome: 'used', row: used } : { outcome: 'unknown' };
}
