/** The public project list (the reference's `PublicResource`, managementportal.md §2.3): no authentication. */
import type { Database } from '../../../platform/database.js';
import { pageOf, type Page, type PageQueryT } from '../../http/paging.js';
import { pageProjects, type ProjectSort } from '../projects/queries.js';
import { publicProjects } from './queries.js';
import type { PublicProjectDtoT } from './schemas.js';

const SORTABLE = ['id', 'projectName'] as const satisfies readonly ProjectSort[];

export interface PublicService {
  /** One page of every project, ordered as asked (then by id). */
  projects(query: PageQueryT): Promise<{ items: PublicProjectDtoT[]; total: number; page: Page }>;
}

export function createPublicService(deps: { db: Database }): PublicService {
  const { db } = deps;
  return {
    async projects(query) {
      const page = pageOf(query, SORTABLE);
      const { rows, total } = await pageProjects(db, { all: true }, page);
      const found = await publicProjects(db, rows.map((r) => r.id));
      const byId = new Map(found.projects.map((p) => [p.id, p]));
      const typesOf = new Map<number, PublicProjectDtoT['sourceTypes']>();
      for (const { projectId, ...type } of found.sourceTypes) {
        const list = typesOf.get(projectId);
        if (list) list.push(type);
        else typesOf.set(projectId, [type]);
      }
      const items = rows.flatMap((r) => {
        const p = byId.get(r.id);
        return p ? [{ projectName: p.projectName, description: p.description, sourceTypes: typesOf.get(r.id) ?? [] }] : [];
      });
      return { items, total, page };
    },
  };
}
