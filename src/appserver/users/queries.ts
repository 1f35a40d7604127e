import { and, asc, eq, ne } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { scopeCondition, type ReadScope } from '../read-scope-queries.js';
import { projects, users, type UserRow, type NewUser } from '../schema.js';

/** A user with the projectId string of its project, as the DTO shows it. */
export interface UserWithProject { user: UserRow; projectId: string }

const selectUsers = (db: Executor) =>
  db.select({ user: users, projectId: projects.projectId }).from(users).innerJoin(projects, eq(users.projectId, projects.id));

/** The users inside `scope`. */
export const listUsers = (db: Executor, scope: ReadScope): Promise<UserWithProject[]> =>
  selectUsers(db).where(scopeCondition(scope, projects.projectId, users.subjectId)).orderBy(asc(users.id));

export const listUsersOfProject = (db: Executor, projectRowId: number, scope: ReadScope): Promise<UserWithProject[]> =>
  selectUsers(db).where(and(eq(users.projectId, projectRowId), scopeCondition(scope, projects.projectId, users.subjectId))).orderBy(asc(users.id));

export const findUserById = async (db: Executor, id: number): Promise<UserWithProject | undefined> =>
  (await selectUsers(db).where(eq(users.id, id)).limit(1))[0];

/** Users with this subjectId in any project (normally one; the reference failed with 500 on two). */
export const findUsersBySubjectId = (db: Executor, subjectId: string): Promise<UserWithProject[]> =>
  selectUsers(db).where(eq(users.subjectId, subjectId)).limit(2);

/** A project by projectId and, when it exists, its user with `subjectId` (one query). */
export const findProjectAndUser = async (db: Executor, projectId: string, subjectId: string) =>
  (await db.select({ project: projects, user: users }).from(projects)
    .leftJoin(users, and(eq(users.projectId, projects.id), eq(users.subjectId, subjectId)))
    .where(eq(projects.projectId, projectId)).limit(1))[0];

export const findUser = async (db: Executor, projectRowId: number, subjectId: string) =>
  (await db.select().from(users).where(and(eq(users.projectId, projectRowId), eq(users.subjectId, subjectId))).limit(1))[0];

/** Inserts unless (project, subjectId) exists; a duplicate fcmToken still raises a unique violation. */
export const insertUser = async (db: Executor, values: NewUser) =>
  (await db.insert(users).values(values).onConflictDoNothing({ target: [users.projectId, users.subjectId] }).returning())[0];

export const updateUser = async (db: Executor, id: number, values: Partial<NewUser>) =>
  (await db.update(users).set({ ...values, updatedAt: new Date() }).where(eq(users.id, id)).returning())[0];

/** Gives every other user holding `fcmToken` the replacement token (the reference's forceFcmToken). */
export const replaceFcmTokenOfOthers = (db: Executor, fcmToken: string, exceptUserId: number | null, replacement: string) =>
  db.update(users).set({ fcmToken: replacement, updatedAt: new Date() })
    .where(exceptUserId === null ? eq(users.fcmToken, fcmToken) : and(eq(users.fcmToken, fcmToken), ne(users.id, exceptUserId)));

export const deleteUser = (db: Executor, id: number) => db.delete(users).where(eq(users.id, id));

export const setUserMetrics = (db: Executor, id: number, values: { lastOpened?: Date; lastDelivered?: Date }) =>
  db.update(users).set(values).where(eq(users.id, id));

