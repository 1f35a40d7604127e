/** SQL of the account endpoints: the signed-in user's own row, reset and activation keys. */
import { and, desc, eq, gt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { users } from '../schema.js';
import type { UserRow } from '../security/queries.js';

export type { UserRow };

/** Another user than `userId` with this e-mail address, if any. */
export async function otherUserWithEmail(db: Executor, email: string, userId: number): Promise<{ login: string } | undefined> {
  const [row] = await db.select({ login: users.login }).from(users).where(and(eq(users.email, email), ne(users.id, userId))).limit(1);
  return row;
}

/**
 * The activated user with this e-mail address. Addresses are compared case-insensitively (people
 * type them either way); an exact match wins when two stored addresses differ only in case.
 */
export async function findActivatedUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, eq(users.activated, true)))
    .orderBy(desc(sql`${users.email} = ${email}`), users.id)
    .limit(1);
  return row;
}

export async function updateUser(db: Executor, userId: number, set: Partial<typeof users.$inferInsert>): Promise<UserRow | undefined> {
  const [row] = await db.update(users).set(set).where(eq(users.id, userId)).returning();
  return row;
}

/** Whether a reset key is stored and was issued after `issuedAfter` (checked before hashing a password for it). */
export async function resetKeyIsValid(db: Executor, key: string, issuedAfter: Date): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(and(eq(users.resetKey, key), gt(users.resetDate, issuedAfter))).limit(1);
  return row !== undefined;
}

/**
 * Sets a new password with a reset key in one statement: only while the key is stored and was
 * issued after `issuedAfter`, so of two uses of one key exactly one succeeds. Clears the key and
 * activates the account. Undefined when the key is unknown, used or expired.
 */
export async function completePasswordReset(
  db: Executor, key: string, issuedAfter: Date, set: { passwordHash: string; lastModifiedBy: string; lastModifiedDate: Date },
): Promise<UserRow | undefined> {
  const [row] = await db.update(users)
    .set({ ...set, resetKey: null, resetDate: null, activated: true })
    .where(and(eq(users.resetKey, key), gt(users.resetDate, issuedAfter)))
    .returning();
  return row;
}

/** `activateRegistration`: activates the user holding the activation key and clears it (single use). */
export async function activateByKey(db: Executor, key: string, set: { lastModifiedBy: string; lastModifiedDate: Date }): Promise<UserRow | undefined> {
  const [row] = await db.update(users)
    .set({ ...set, activated: true, activationKey: null })
    .where(eq(users.activationKey, key))
    .returning();
  return row;
}
