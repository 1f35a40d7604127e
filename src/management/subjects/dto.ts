/**
 * `SubjectDTO` (managementportal.md §2.5, §16) built from subject rows: a list's rows carry their
 * roles and sources (queries.ts `listSubjects`), a single subject's are loaded with it. Three
 * forms, as the reference's mapper has them: without project (lists), with the reduced project
 * (create, update, discontinue, look-up by external id) and with the full project (GET one).
 * Audit fields (`createdBy`, `createdDate`, …) come with the single-subject forms only.
 */
import type { Executor } from '../../platform/database.js';
import { isoInstant } from '../http/instants.js';
import { loadProjectDtos, type ProjectDtoT } from '../projects/dto.js';
import { loadRoleDtos, roleDto, type RoleDtoT } from '../roles/dto.js';
import { loadSubjectSources, type MinimalSourceDtoT } from '../sources/dto.js';
import type { ListedSubjectRow, SubjectRow } from './queries.js';
import { SUBJECT_STATUSES, type SubjectDtoT, type SubjectStatus } from './schemas.js';

/** `SubjectMapperDecorator.getSubjectStatus`: from the user's `activated` and the subject's `removed`. */
export function subjectStatus(activated: boolean, removed: boolean): SubjectStatus {
  if (!removed) return activated ? 'ACTIVATED' : 'DEACTIVATED';
  return activated ? 'INVALID' : 'DISCONTINUED';
}

/** The reverse mapping: what a status writes to `user.activated` and `subject.removed`. */
export function statusFlags(status: SubjectStatus): { activated: boolean; removed: boolean } {
  return { activated: status === 'ACTIVATED' || status === 'INVALID', removed: status === 'DISCONTINUED' || status === 'INVALID' };
}

export { SUBJECT_STATUSES };

export type ProjectForm = 'none' | 'reduced' | 'full';

export interface SubjectDtoOptions {
  project: ProjectForm;
  /** `persistentTokenTimeout` of a full project, in ms. */
  persistentTokenTimeoutMs?: number;
}

/** The project of a user's `ROLE_PARTICIPANT` role, from its role DTOs. */
export const activeProjectId = (roles: readonly RoleDtoT[]): number | undefined =>
  roles.find((r) => r.authorityName === 'ROLE_PARTICIPANT' && r.projectId !== undefined)?.projectId;

function subjectDto(row: SubjectRow, roles: RoleDtoT[], sources: MinimalSourceDtoT[], project: ProjectDtoT | undefined, audit: boolean): SubjectDtoT {
  const dto: SubjectDtoT = {
    id: row.id,
    login: row.login,
    externalLink: row.externalLink,
    externalId: row.externalId,
    status: subjectStatus(row.activated, row.removed),
    group: row.groupName,
    dateOfBirth: row.dateOfBirth,
    enrollmentDate: isoInstant(row.enrollmentDate),
    personName: row.personName,
    roles,
    sources,
    attributes: row.attributes,
  };
  if (audit) {
    dto.createdBy = row.createdBy;
    dto.createdDate = row.createdDate.toISOString();
    if (row.lastModifiedBy !== null) dto.lastModifiedBy = row.lastModifiedBy;
    if (row.lastModifiedDate !== null) dto.lastModifiedDate = row.lastModifiedDate.toISOString();
  }
  if (project) dto.project = project;
  return dto;
}

/** A list's DTO (no project, no audit fields) from a row that carries its roles and sources. */
export function listedSubjectDto(row: ListedSubjectRow): SubjectDtoT {
  return subjectDto(row, row.roles.map(roleDto), row.sources, undefined, false);
}

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
