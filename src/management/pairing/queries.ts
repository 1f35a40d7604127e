/** SQL for meta-tokens (managementportal.md §5). Plain functions over an executor; no rules here. */
import { and, asc, eq, gt, inArray, lt, or } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { metaTokens, projects, roles, roleUsers, subjects, users, type MetaTokenRow } from '../schema.js';


/** A subject as pairing needs it: its id and its user's. */
export interface PairingSubject {
  subjectId: number;
  userId: number;
  login: string;
}

const subjectColumns = { subjectId: subjects.id, userId: users.id, login: users.login };

export async function findSubjectByLogin(db: Executor, login: string): Promise<PairingSubject | undefined> {
  const [row] = await db.select(subjectColumns).from(subjects).innerJoin(users, eq(users.id, subjects.userId))
    .where(eq(users.login, login)).limit(1);
  return row;
}

export async function findSubjectById(db: Executor, subjectId: number): Promise<PairingSubject | undefined> {
  const [row] = await db.select(subjectColumns).from(subjects).innerJoin(users, eq(users.id, subjects.userId))
    .where(eq(subjects.id, subjectId)).limit(1);
  return row;
}

/** Inserts a token; false when its name is taken (the caller draws another). */
export async function insertMetaToken(db: Executor, row: typeof metaTokens.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(metaTokens).values(row).onConflictDoNothing({ target: metaTokens.tokenName })
    .returning({ id: metaTokens.id });
  return inserted.length > 0;
}

/**
 * Marks a readable token read and returns it; undefined when there is no readable token of that
 * name. One statement, so of concurrent readers of a one-time token exactly one gets the row: the
 * others wait for its row lock and then no longer match `not fetched` (PostgreSQL re-checks the
 * condition on the updated row; PGlite runs one statement at a time).
 */
export async function claimMetaToken(db: Executor, tokenName: string, now: Date): Promise<Pick<MetaTokenRow, 'subjectId' | 'clientId'> | undefined> {
  const [row] = await db.update(metaTokens).set({ fetched: true })
    .where(and(
      eq(metaTokens.tokenName, tokenName),
      or(eq(metaTokens.persistent, true), eq(metaTokens.fetched, false)),
      gt(metaTokens.expiryDate, now),
    ))
    .returning({ subjectId: metaTokens.subjectId, clientId: metaTokens.clientId });
  return row;
}

export async function findMetaToken(db: Executor, tokenName: string): Promise<MetaTokenRow | undefined> {
  const [row] = await db.select().from(metaTokens).where(eq(metaTokens.tokenName, tokenName)).limit(1);
  return row;
}

export async function deleteMetaToken(db: Executor, id: number): Promise<void> {
  await db.delete(metaTokens).where(eq(metaTokens.id, id));
}

/**
 * The login of a subject's user and the attributes of its active project (the project of its
 * `ROLE_PARTICIPANT` role; null without one).
 */
export async function subjectLoginAndProjectAttributes(db: Executor, subjectId: number): Promise<{ login: string; attributes: Record<string, string> | null } | undefined> {
  const rolesOfUser = db.select({ roleId: roleUsers.roleId }).from(roleUsers).where(eq(roleUsers.userId, users.id));
  const [row] = await db.select({ login: users.login, attributes: projects.attributes })
    .from(subjects).innerJoin(users, eq(users.id, subjects.userId))
    .leftJoin(roles, and(eq(roles.authorityName, 'ROLE_PARTICIPANT'), inArray(roles.id, rolesOfUser)))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .where(eq(subjects.id, subjectId))
    .orderBy(roles.id)
    .limit(1);
  return row;
}

/** Deletes tokens that can never be read again: read one-time tokens and expired ones. Returns how many went. */
export async function purgeMetaTokens(db: Executor, now: Date): Promise<number> {
  const removed = await db.delete(metaTokens)
    .where(or(and(eq(metaTokens.fetched, true), eq(metaTokens.persistent, false)), lt(metaTokens.expiryDate, now)))
    .returning({ id: metaTokens.id });
  return removed.length;
}

/** A subject's meta-tokens an app can still read (persistent or unread, not expired), by expiry; no token names. */
export async function readableMetaTokensOfSubject(db: Executor, subjectId: number, now: Date) {
  return db.select({ clientId: metaTokens.clientId, persistent: metaTokens.persistent, createdAt: metaTokens.createdAt, expiryDate: metaTokens.expiryDate })
    .from(metaTokens)
    .where(and(eq(metaTokens.subjectId, subjectId), or(eq(metaTokens.persistent, true), eq(metaTokens.fetched, false)), gt(metaTokens.expiryDate, now)))
    .orderBy(asc(metaTokens.expiryDate))
    .limit(100);
}
