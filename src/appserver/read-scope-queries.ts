/**
 * The SQL form of a `ReadScope` (security/oracle.ts): list queries take the scope, so a list
 * shows only what the token may read (issue 21 item 7) and a forgotten scope is a type error.
 */
import { and, eq, inArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { ReadScope } from './security/oracle.js';

export { inScope, type ReadScope } from './security/oracle.js';

/** Condition on the project-name column (and the subject column, for participants' own rows); undefined for everything. */
export function scopeCondition(scope: ReadScope, projectId: AnyColumn, subjectId?: AnyColumn): SQL | undefined {
  if (scope.all) return undefined;
  const parts: (SQL | undefined)[] = [];
  if (scope.projects.length > 0) parts.push(inArray(projectId, [...scope.projects]));
  if (subjectId) for (const s of scope.subjects) parts.push(and(eq(projectId, s.projectId), eq(subjectId, s.subjectId)));
  return parts.length > 0 ? or(...parts) : sql`false`;
}
