/**
 * The key that signs the session cookie: `MANAGEMENTPORTAL_SESSION_SECRET`, or, when unset, one
 * generated at the first start and kept in the database, so every instance signs and checks
 * cookies with the same key. Concurrent first starts agree: the insert keeps the first value.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { serverSecrets } from '../schema.js';

const SESSION_SECRET = 'session-secret';

export async function resolveSessionSecret(db: Executor, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.insert(serverSecrets).values({ name: SESSION_SECRET, value: randomBytes(32).toString('base64url') }).onConflictDoNothing();
  const [row] = await db.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, SESSION_SECRET)).limit(1);
  return row!.value;
}
