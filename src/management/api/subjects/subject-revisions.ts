/**
 * A subject's history (the reference's `getSubjectRevisions`, `getSubjectRevision` and
 * `RevisionService`, managementportal.md §2.5): the changes recorded with each create, update,
 * discontinue, source registration and delete, as `RevisionDTO`s, and the subject as it was at a
 * revision. A deleted subject's history stays readable by login through its last recorded change.
 */
import type { Page } from '../../http/paging.js';
import { latestChangeByKey } from '../revisions/queries.js';
import { countSubjectChanges, findProjectByName, findSubjectByLogin, participantProjects, subjectChangeAt, subjectChanges } from './queries.js';
import type { RevisionDtoT } from './schemas.js';
import { subjectEntity, subjectNotFound, type Actor, type SubjectServiceDeps } from './shared.js';

export interface SubjectRevisionsService {
  /** GET …/revisions, paged by revision id (`sort=id,desc` newest first). @throws NotFound for an unknown (or deleted) subject */
  list(login: string, page: Page<'id'>, actor: Actor): Promise<{ revisions: RevisionDtoT[]; total: number }>;
  /** GET …/revisions/{n}: the subject's DTO as of revision n. @throws NotFound when it did not exist then */
  at(login: string, revision: number, actor: Actor): Promise<Record<string, unknown>>;
}

export function createSubjectRevisionsService(deps: SubjectServiceDeps): SubjectRevisionsService {
  const { db } = deps;

  async function list(login: string, page: Page<'id'>, actor: Actor) {
    const row = await findSubjectByLogin(db, login);
    if (!row) throw subjectNotFound();
    const { associated } = await participantProjects(db, row.userId);
    actor.check('SUBJECT.READ', subjectEntity(login, associated));
    const [rows, total] = await Promise.all([
      subjectChanges(db, row.id, { offset: page.offset, size: page.size, descending: page.sort[0]?.direction === 'desc' }),
      countSubjectChanges(db, row.id),
    ]);
    return {
      total,
      revisions: rows.map((r) => ({
        id: r.change.revisionId, timestamp: r.timestamp.toISOString(), author: r.author, entity: r.change.entity, revisionType: r.change.revisionType,
      })),
    };
  }

  async function at(login: string, revision: number, actor: Actor) {
    const latest = await latestChangeByKey(db, 'subject', login);
    if (!latest) throw subjectNotFound('Subject latest revision not found for login', { subjectLogin: login });
    const projectName = (latest.entity.project as { projectName?: string } | undefined)?.projectName;
    const project = projectName !== undefined ? await findProjectByName(db, projectName) : undefined;
    actor.check('SUBJECT.READ', subjectEntity(login, project ?? (projectName !== undefined ? { id: 0, projectName, organizationName: null } : undefined)));
    const change = await subjectChangeAt(db, latest.entityId, revision);
    if (!change || change.revisionType === 'DEL') {
      throw subjectNotFound('subject not found for given login and revision.', { subjectLogin: login });
    }
    return change.entity;
  }

  return { list, at };
}
