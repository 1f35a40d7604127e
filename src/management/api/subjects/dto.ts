/**
 * `SubjectDTO` (managementportal.md §2.5, §16) built from subject rows: a list's rows carry their
 * roles and sources (queries.ts `listSubjects`), a single subject's are loaded with it. Three
 * forms, as the reference's mapper has them: without project (lists), with the reduced project
 * (create, update, discontinue, look-up by external id) and with the full project (GET one).
 * Audit fields (`createdBy`, `createdDate`, …) come with the single-subject forms only.
 */
import { isoInstant } from '../../http/instants.js';
import type { ProjectDtoT } from '../projects/dto.js';
import { roleDto, type RoleDtoT } from '../roles/dto.js';
import type { MinimalSourceDtoT } from '../sources/dto.js';
import type { ListedSubjectRow, SubjectRow } from './queries.js';
import type { SubjectDtoT, SubjectStatus } from './schemas.js';

/** `SubjectMapperDecorator.getSubjectStatus`: from the user's `activated` and the subject's `removed`. */
export function subjectStatus(activated: boolean, removed: boolean): SubjectStatus {
  if (!removed) return activated ? 'ACTIVATED' : 'DEACTIVATED';
  return activated ? 'INVALID' : 'DISCONTINUED';
}

/** The reverse mapping: what a status writes to `user.activated` and `subject.removed`. */
export function statusFlags(status: SubjectStatus): { activated: boolean; removed: boolean } {
  return { activated: status === 'ACTIVATED' || status === 'INVALID', removed: status === 'DISCONTINUED' || status === 'INVALID' };
}

export type ProjectForm = 'none' | 'reduced' | 'full';

export interface SubjectDtoOptions {
  project: ProjectForm;
  /** `persistentTokenTimeout` of a full project, in ms. */
  persistentTokenTimeoutMs?: number;
}

/** The project of a user's `ROLE_PARTICIPANT` role, from its role DTOs. */
export const activeProjectId = (roles: readonly RoleDtoT[]): number | undefined =>
  roles.find((r) => r.authorityName === 'ROLE_PARTICIPANT' && r.projectId !== undefined)?.projectId;

export function subjectDto(row: SubjectRow, roles: RoleDtoT[], sources: MinimalSourceDtoT[], project: ProjectDtoT | undefined, audit: boolean): SubjectDtoT {
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
