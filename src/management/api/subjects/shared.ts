/** What the subject use cases share: the actor, the reference's errors, entity details and revisions. */
import type { Database, Executor } from '../../../platform/database.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { EntityDetails } from '../../authz/oracle.js';
import { NotFound } from '../../errors.js';
import type { ProjectDtoT } from '../projects/dto.js';
import { loadProjectDtos } from '../projects/queries.js';
import { recordRevision, type EntityChange } from '../revisions/queries.js';
import { loadRoleDtos } from '../roles/queries.js';
import { loadSourceDtos, loadSubjectSources } from '../sources/queries.js';
import { activeProjectId, subjectDto, type SubjectDtoOptions } from './dto.js';
import { projectNames, type ProjectRef, type SubjectRow } from './queries.js';
import type { SubjectDtoT } from './schemas.js';

export const SUBJECT = 'subject';

export interface SubjectServiceDeps {
  db: Database;
  audit: AuditLog;
  /** Epoch milliseconds. */
  now: () => number;
  /** `persistentTokenTimeout` of full project DTOs, in ms. */
  persistentTokenTimeoutMs?: number;
}

/** Who calls a use case (security/authorization.ts): the author name and the permission check it runs once it knows the entity. */
import type { Actor } from '../../security/authorization.js';
import type { SourceRow } from '../../schema.js';
export type { Actor };

/** The permission target of a subject in a project (the project's organization included, for organization admins). */
export const subjectEntity = (login: string, project: ProjectRef | undefined): EntityDetails => ({
  ...(project ? { project: project.projectName, organization: project.organizationName } : {}),
  subject: login,
});

export const subjectNotFound = (message = 'Subject not found with login', params?: Record<string, string>) =>
  new NotFound(message, SUBJECT, 'error.subjectNotFound', params);

export const projectNotFound = (projectName: string) =>
  new NotFound(`Project not found with projectName ${projectName}`, 'project', 'error.projectNameNotFound', { projectName });

/** The reduced project of create and update answers: the full one without organization, source types and token timeout. */
export function reduced(dto: SubjectDtoT): SubjectDtoT {
  if (!dto.project) return dto;
  const { organization: _o, sourceTypes: _s, persistentTokenTimeout: _p, ...project } = dto.project as ProjectDtoT;
  return { ...dto, project };
}

/** A changed source: its row after the change and its subject's login (null once released). */
export interface SourceChange {
  row: SourceRow;
  revisionType: EntityChange['revisionType'];
  subjectLogin: string | null;
}

/** Revision entries of changed sources, each with its `SourceDTO` as `/api/sources` shows it. */
export async function sourceChanges(tx: Executor, changed: readonly SourceChange[]): Promise<EntityChange[]> {
  if (changed.length === 0) return [];
  const names = await projectNames(tx, changed.flatMap((c) => (c.row.projectId === null ? [] : [c.row.projectId])));
  const dtos = await loadSourceDtos(tx, changed.map((c) => {
    const projectName = c.row.projectId === null ? undefined : names.get(c.row.projectId);
    return { source: c.row, subjectLogin: c.subjectLogin, project: projectName !== undefined ? { id: c.row.projectId!, projectName } : null };
  }), { withProject: true });
  return dtos.map((dto, i) => ({ entityType: 'source', entityId: dto.id, entityKey: dto.sourceName, revisionType: changed[i]!.revisionType, entity: dto }));
}

export interface RecordOptions {
  actor: Actor;
  revisionType: EntityChange['revisionType'];
  /** The subject's DTO as GET returns it (after the change; before it, for a delete). */
  subject: SubjectDtoT;
  sources?: readonly SourceChange[];
  at: Date;
}

/** One revision with the subject's change and its sources' changes (inside the change's transaction). */
export async function recordSubjectRevision(tx: Executor, options: RecordOptions): Promise<void> {
  const changes: EntityChange[] = [{
    entityType: 'subject', entityId: options.subject.id, entityKey: options.subject.login,
    revisionType: options.revisionType, entity: options.subject,
  }];
  changes.push(...await sourceChanges(tx, options.sources ?? []));
  await recordRevision(tx, options.actor, changes, options.at);
}

/** The subject's DTO as GET returns it (full project), read inside `tx`. */
export const fullSubjectDto = (tx: Executor, row: SubjectRow, deps: SubjectServiceDeps): Promise<SubjectDtoT> =>
  loadSubjectDto(tx, row, { project: 'full', ...(deps.persistentTokenTimeoutMs !== undefined ? { persistentTokenTimeoutMs: deps.persistentTokenTimeoutMs } : {}) });

/** DTOs of `rows`, in their order. */
export async function loadSubjectDtos(db: Executor, rows: readonly SubjectRow[], options: SubjectDtoOptions): Promise<SubjectDtoT[]> {
  if (rows.length === 0) return [];
  const [roles, sources] = await Promise.all([
    loadRoleDtos(db, rows.map((r) => r.userId)),
    loadSubjectSources(db, rows.map((r) => r.id)),
  ]);
  const projects = new Map<number, ProjectDtoT>();
  if (options.project !== 'none') {
    const ids = rows.flatMap((r) => activeProjectId(roles.get(r.userId) ?? []) ?? []);
    const dtos = await loadProjectDtos(db, ids, {
      full: options.project === 'full',
      ...(options.persistentTokenTimeoutMs !== undefined ? { persistentTokenTimeoutMs: options.persistentTokenTimeoutMs } : {}),
    });
    for (const dto of dtos) projects.set(dto.id!, dto);
  }
  const audit = options.project !== 'none';
  return rows.map((row) => {
    const userRoles = roles.get(row.userId) ?? [];
    const projectId = activeProjectId(userRoles);
    return subjectDto(row, userRoles, sources.get(row.id) ?? [], projectId !== undefined ? projects.get(projectId) : undefined, audit);
  });
}

export async function loadSubjectDto(db: Executor, row: SubjectRow, options: SubjectDtoOptions): Promise<SubjectDtoT> {
  return (await loadSubjectDtos(db, [row], options))[0]!;
}
