/**
 * The key that signs the session cookie: `MANAGEMENTPORTAL_SESSION_SECRET`, or, when unset, one
 * generated at the first start and kept in the database, so every instance signs and checks
 * cookies with the same key. Concurrent first starts agree: the insert keeps the first value.
 */
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../platform/database.js';
import { findServerSecret, insertServerSecretIfAbsent } from './queries.js';

const SESSION_SECRET = 'session-secret';

export async function resolveSessionSecret(db: Executor, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await insertServerSecretIfAbsent(db, SESSION_SECRET, randomBytes(32).toString('base64url'));
  return (await findServerSecret(db, SESSION_SECRET))!;
}
