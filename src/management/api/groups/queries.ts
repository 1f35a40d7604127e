/** SQL of `/api/projects/{projectName}/groups`. */
import { and, asc, count, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { groups, roles, roleUsers, subjects, users, type GroupRow } from '../../schema.js';


export async function groupsOfProject(db: Executor, projectId: number): Promise<GroupRow[]> {
  return db.select().from(groups).where(eq(groups.projectId, projectId)).orderBy(asc(groups.id));
}

export async function findGroup(db: Executor, projectId: number, name: string): Promise<GroupRow | undefined> {
  const [row] = await db.select().from(groups).where(and(eq(groups.projectId, projectId), eq(groups.name, name))).limit(1);
  return row;
}

export async function insertGroup(db: Executor, projectId: number, name: string): Promise<GroupRow> {
  const [row] = await db.insert(groups).values({ projectId, name }).returning();
  return row!;
}

export async function countSubjectsInGroup(db: Executor, groupId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(subjects).where(eq(subjects.groupId, groupId));
  return row?.n ?? 0;
}

export async function renameGroup(db: Executor, id: number, name: string): Promise<GroupRow> {
  const [row] = await db.update(groups).set({ name }).where(eq(groups.id, id)).returning();
  return row!;
}

/** Deletes a group; its subjects leave it (foreign key ON DELETE SET NULL). */
export async function deleteGroup(db: Executor, id: number): Promise<void> {
  await db.delete(groups).where(eq(groups.id, id));
}

export interface SubjectIdentity {
  id: number;
  login: string;
  /** Projects of the subject's ROLE_PARTICIPANT roles (its active project). */
  projectIds: number[];
}

/** Subjects by id or login, with the projects they take part in. */
export async function findSubjects(db: Executor, ids: readonly number[], logins: readonly string[]): Promise<SubjectIdentity[]> {
  if (ids.length === 0 && logins.length === 0) return [];
  const rows = await db.select({ id: subjects.id, userId: subjects.userId, login: users.login }).from(subjects)
    .innerJoin(users, eq(users.id, subjects.userId))
    .where(or(inArray(subjects.id, [...ids]), inArray(users.login, [...logins])));
  if (rows.length === 0) return [];
  const participations = await db.select({ userId: roleUsers.userId, projectId: roles.projectId }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .where(and(inArray(roleUsers.userId, rows.map((r) => r.userId)), eq(roles.authorityName, 'ROLE_PARTICIPANT')));
  const projectsOf = new Map<number, number[]>();
  for (const p of participations) {
    if (p.projectId === null) continue;
    const list = projectsOf.get(p.userId);
    if (list) list.push(p.projectId);
    else projectsOf.set(p.userId, [p.projectId]);
  }
  return rows.map((r) => ({ id: r.id, login: r.login, projectIds: projectsOf.get(r.userId) ?? [] }));
}

export interface Modification { by: string; at: Date }

export async function setSubjectsGroup(db: Executor, groupId: number, subjectIds: readonly number[], m: Modification): Promise<void> {
  if (subjectIds.length === 0) return;
  await db.update(subjects).set({ groupId, lastModifiedBy: m.by, lastModifiedDate: m.at }).where(inArray(subjects.id, [...subjectIds]));
}

/** Takes the subjects out of the group (subjects in another group stay there). */
export async function unsetSubjectsGroup(db: Executor, groupId: number, subjectIds: readonly number[], m: Modification): Promise<void> {
  if (subjectIds.length === 0) return;
  await db.update(subjects).set({ groupId: null, lastModifiedBy: m.by, lastModifiedDate: m.at })
    .where(and(eq(subjects.groupId, groupId), inArray(subjects.id, [...subjectIds])));
}
