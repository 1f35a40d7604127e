/**
 * SQL of the account endpoints (the signed-in user's own row, reset and activation keys) and of
 * the not-activated-users purge.
 */
import { and, desc, eq, exists, gt, inArray, lt, ne, not, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { roles, roleUsers, subjects, users, type UserRow } from '../schema.js';


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

/**
 * Locks and returns, oldest first, up to `limit` users not activated and created before
 * `createdBefore`, other than `exceptLogin`, that have no role with one of `participantAuthorities`
 * and no subject record. Rows another transaction has locked are skipped (SKIP LOCKED), so
 * concurrent callers get disjoint sets.
 */
export async function lockNotActivatedUsers(db: Executor, opts: {
  createdBefore: Date; exceptLogin: string; participantAuthorities: readonly string[]; limit: number;
}): Promise<UserRow[]> {
  const participantRole = db.select({ one: roleUsers.userId }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .where(and(eq(roleUsers.userId, users.id), inArray(roles.authorityName, [...opts.participantAuthorities])));
  const subject = db.select({ one: subjects.id }).from(subjects).where(eq(subjects.userId, users.id));
  return db.select().from(users)
    .where(and(
      eq(users.activated, false),
      ne(users.login, opts.exceptLogin),
      lt(users.createdDate, opts.createdBefore),
      not(exists(participantRole)),
      not(exists(subject)),
    ))
    .orderBy(users.id)
    .limit(opts.limit)
    .for('update', { skipLocked: true });
}

export async function deleteUsers(db: Executor, ids: readonly number[]): Promise<void> {
  await db.delete(users).where(inArray(users.id, [...ids]));
}
