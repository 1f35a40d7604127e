/** SQL of the public project list. */
import { asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../platform/database.js';
import { projects, projectSourceTypes, sourceTypes } from '../../schema.js';

/** Names, descriptions and source types (minimal) of projects by id. */
export async function publicProjects(db: Executor, ids: readonly number[]) {
  if (ids.length === 0) return { projects: [], sourceTypes: [] };
  const [projectRows, typeRows] = await Promise.all([
    db.select({ id: projects.id, projectName: projects.projectName, description: projects.description }).from(projects)
      .where(inArray(projects.id, [...ids])),
    db.select({
      projectId: projectSourceTypes.projectId, id: sourceTypes.id, model: sourceTypes.model, producer: sourceTypes.producer,
      catalogVersion: sourceTypes.catalogVersion,
    }).from(projectSourceTypes).innerJoin(sourceTypes, eq(sourceTypes.id, projectSourceTypes.sourceTypeId))
      .where(inArray(projectSourceTypes.projectId, [...ids])).orderBy(asc(sourceTypes.id)),
  ]);
  return { projects: projectRows, sourceTypes: typeRows };
}
