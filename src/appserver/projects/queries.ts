import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../platform/database.js';
import { scopeCondition, type ReadScope } from '../read-scope-queries.js';
import { projects } from '../schema.js';

export const findProjectByProjectId = async (db: Executor, projectId: string) =>
  (await db.select().from(projects).where(eq(projects.projectId, projectId)).limit(1))[0];

export const findProjectById = async (db: Executor, id: number) =>
  (await db.select().from(projects).where(eq(projects.id, id)).limit(1))[0];

/** The projects inside `scope`. */
export const listProjects = (db: Executor, scope: ReadScope) =>
  db.select().from(projects).where(scopeCondition(scope, projects.projectId)).orderBy(asc(projects.id));

/** Inserts unless the projectId exists; returns the new row or undefined. */
export const insertProject = async (db: Executor, projectId: string) =>
  (await db.insert(projects).values({ projectId }).onConflictDoNothing().returning())[0];

export const updateProjectId = async (db: Executor, id: number, projectId: string) =>
  (await db.update(projects).set({ projectId, updatedAt: new Date() }).where(eq(projects.id, id)).returning())[0];
