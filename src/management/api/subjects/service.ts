/**
 * Subject use cases (the reference's `SubjectResource` + `SubjectService`, managementportal.md
 * §2.5): create, update, discontinue, delete, read one, and the criteria lists with keyset
 * paging. Every change runs in one transaction with its revision (the subject's DTO as GET
 * returns it, plus the sources it touched).
 *
 * Deliberate differences from the reference:
 * - permission checks use the subject's stored project and login, and a move to another project
 *   also needs `SUBJECT.UPDATE` there (the reference trusted the project and login of the body);
 * - an update without `status` keeps the status (the reference's DTO default deactivated it);
 * - a new participant gets a random password but no reset key (nobody could receive one);
 * - an empty `externalId` is stored as null, so the lists' cursor can tell "none" apart;
 * - moving back to a former project drops its `ROLE_INACTIVE_PARTICIPANT`;
 * - sources given with a subject must be in no project or in the subject's project.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../platform/database.js';
import { BadRequest, Conflict, NotFound } from '../../errors.js';
import { enumValue, fieldError } from '../../http/validation.js';
import { findClient } from '../../oauth/clients/queries.js';
import { findUserByLogin } from '../../security/queries.js';
import { createCountCache } from './count-cache.js';
import { listedSubjectDto, statusFlags } from './dto.js';
import { parseLocalDate, parseZonedDateTime, subjectCriteria, type CursorRow, type SubjectCriteria } from './criteria.js';
import {
  addUserRole, assignSources, countSubjects, deleteSubjectUser, externalIdTaken, findByExternalId, findGroupId, findProjectByName,
  findSourcesBySourceIds, findSubjectById, findSubjectByLogin, insertSubject, insertSubjectUser, listSubjects, participantProjects,
  participantRolesElsewhere, projectRoleId, releaseSources, removeUserRole, setUserActivated, sourcesByIds, updateSubject, type ProjectRef,
} from './queries.js';
import { SUBJECT_STATUSES, type SubjectDtoT, type SubjectInputT, type SubjectListQueryT, type SubjectStatus } from './schemas.js';
import {
  fullSubjectDto, projectNotFound, recordSubjectRevision, reduced, SUBJECT, subjectEntity, subjectNotFound,
  type Actor, type SubjectServiceDeps,
} from './shared.js';
import type { SourceRow } from '../../schema.js';

export type { Actor, SubjectServiceDeps };

export interface SubjectPage {
  items: SubjectDtoT[];
  /** Absent for the look-up by project and external id (a list of one, no paging headers). */
  paging?: { total: number; criteria: SubjectCriteria; lastRow: CursorRow | undefined };
}

export interface SubjectService {
  /**
   * POST /api/subjects. @throws BadRequest `projectrequired`, `idexists`, `subjectExists`,
   * `error.groupNotFound`, `error.validation`; NotFound `error.projectNameNotFound`, `error.sourceNotFound`;
   * Conflict `error.userexists`; BadRequest `error.loginisclientid` (the login is an OAuth client's id).
   */
  create(input: SubjectInputT, actor: Actor): Promise<SubjectDtoT>;
  /** PUT /api/subjects: `created` when the body had no id (then it is a create). @throws as create, NotFound `error.subjectNotFound` */
  update(input: SubjectInputT, actor: Actor): Promise<{ created: boolean; subject: SubjectDtoT }>;
  /** PUT /api/subjects/discontinue. @throws BadRequest `subjectNotAvailable`, `projectrequired`; NotFound */
  discontinue(input: SubjectInputT, actor: Actor): Promise<SubjectDtoT>;
  /** DELETE /api/subjects/{login}: sources released, the subject and its account deleted. @throws NotFound */
  remove(login: string, actor: Actor): Promise<void>;
  /** GET /api/subjects/{login}, with the full project. @throws NotFound */
  get(login: string, actor: Actor): Promise<SubjectDtoT>;
  /** GET /api/subjects (and, with `projectName` set, /api/projects/{projectName}/subjects). */
  list(query: SubjectListQueryT, actor: Actor, projectName?: string): Promise<SubjectPage>;
}

/** How long a big list's count is reused, and from which size on (count-cache.ts). */
const COUNT_TTL_MS = 2000;
const COUNT_CACHED_FROM = 5000;

/** What a body sets on the subject row, validated. */
interface SubjectFields {
  externalLink: string | null;
  externalId: string | null;
  personName: string | null;
  dateOfBirth: string | null;
  enrollmentDate: Date | null;
  attributes: Record<string, string>;
}

function fieldsOf(input: SubjectInputT): SubjectFields {
  let dateOfBirth: string | null = null;
  if (input.dateOfBirth != null) {
    dateOfBirth = parseLocalDate(input.dateOfBirth) ?? null;
    if (dateOfBirth === null) throw fieldError('subjectDTO', 'dateOfBirth', 'InvalidFormat', 'must be a date YYYY-MM-DD');
  }
  let enrollmentDate: Date | null = null;
  if (input.enrollmentDate != null) {
    enrollmentDate = parseZonedDateTime(input.enrollmentDate) ?? null;
    if (enrollmentDate === null) throw fieldError('subjectDTO', 'enrollmentDate', 'InvalidFormat', 'must be an ISO-8601 date-time');
  }
  return {
    externalLink: input.externalLink ?? null,
    externalId: input.externalId ? input.externalId : null,
    personName: input.personName ?? null,
    dateOfBirth,
    enrollmentDate,
    attributes: input.attributes ?? {},
  };
}

const statusOf = (input: SubjectInputT): SubjectStatus | undefined => enumValue(SUBJECT_STATUSES, input.status, 'subjectDTO', 'status');

/** The reference's `getProjectName`: `project.id` and `project.projectName` are both required. */
function projectNameOf(input: SubjectInputT): string {
  if (input.project?.id == null || input.project.projectName == null) {
    throw new BadRequest('A subject should be assigned to a project', SUBJECT, 'projectrequired');
  }
  return input.project.projectName;
}

/** The filter part of the criteria (not sort, page or cursor): what a count depends on. */
function countKey(c: SubjectCriteria): string {
  return JSON.stringify([c.projectName, c.authorities, c.externalId, c.login, c.personName, c.humanReadableIdentifier, c.groupId, c.dateOfBirth, c.enrollmentDate]);
}

export function createSubjectService(deps: SubjectServiceDeps): SubjectService {
  const { db } = deps;
  const now = () => new Date(deps.now());
  const counts = createCountCache({ ttlMs: COUNT_TTL_MS, minCached: COUNT_CACHED_FROM, now: deps.now });

  async function groupIdOf(tx: Executor, project: ProjectRef, group: string | null | undefined): Promise<number | null> {
    if (group == null) return null;
    const id = await findGroupId(tx, project.id, group);
    if (id === undefined) {
      throw new BadRequest(`Group ${group} not found in project ${project.projectName}`, SUBJECT, 'error.groupNotFound', { group, projectName: project.projectName });
    }
    return id;
  }

  /** The sources a body gives, by `sourceId`: each must exist and be free or in the subject's project. */
  async function givenSources(tx: Executor, input: SubjectInputT, project: ProjectRef): Promise<SourceRow[]> {
    const wanted = input.sources ?? [];
    if (wanted.length === 0) return [];
    const rows = await findSourcesBySourceIds(tx, wanted.flatMap((s) => (s.sourceId ? [s.sourceId] : [])));
    const byId = new Map(rows.map((r) => [r.sourceId, r]));
    for (const s of wanted) {
      const row = s.sourceId ? byId.get(s.sourceId) : undefined;
      if (!row || (row.projectId !== null && row.projectId !== project.id)) {
        throw new NotFound(`Source ID ${s.sourceId ?? null} not found`, 'source', 'error.sourceNotFound', { sourceId: String(s.sourceId ?? null) });
      }
    }
    return [...new Map(rows.map((r) => [r.id, r])).values()];
  }

  async function checkExternalId(tx: Executor, project: ProjectRef, externalId: string | null, exceptId?: number) {
    if (externalId && await externalIdTaken(tx, project.id, externalId, exceptId)) {
      throw new BadRequest('A subject with given project-id and external-id already exists', SUBJECT, 'subjectExists', { externalId, projectName: project.projectName });
    }
  }

  async function create(input: SubjectInputT, actor: Actor): Promise<SubjectDtoT> {
    const projectName = projectNameOf(input);
    const project = await findProjectByName(db, projectName);
    actor.check('SUBJECT.CREATE', { project: projectName, organization: project?.organizationName ?? null });
    if (!project) throw projectNotFound(projectName);
    if (input.id != null) throw new BadRequest('A new subject cannot already have an ID', SUBJECT, 'idexists');
    const fields = fieldsOf(input);
    const status = statusOf(input);
    const login = (input.login ?? randomUUID()).toLowerCase();
    const at = now();

    const subject = await db.transaction(async (tx) => {
      await checkExternalId(tx, project, fields.externalId);
      const groupId = await groupIdOf(tx, project, input.group);
      const sources = await givenSources(tx, input, project);
      if (await findUserByLogin(tx, login)) {
        throw new Conflict('A user with this login already exists', SUBJECT, 'error.userexists', { login });
      }
      // A participant's login is a user login: tokens with `sub == client_id` read as the client's own (radar-auth).
      if (await findClient(tx, login)) throw new BadRequest('Login is the id of an OAuth client', SUBJECT, 'error.loginisclientid', { login });
      const user = await insertSubjectUser(tx, {
        // No password: participants sign in by pairing (the reference bcrypt-hashed a random one, ~100 ms for nothing).
        login, passwordHash: null, activated: true, langKey: 'en',
        createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      const { id } = await insertSubject(tx, {
        userId: user.id, ...fields, enrollmentDate: fields.enrollmentDate ?? at, groupId,
        // The reference maps the status first and then activates every new participant.
        removed: status ? statusFlags(status).removed : false,
        createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      await addUserRole(tx, user.id, await projectRoleId(tx, 'ROLE_PARTICIPANT', project.id));
      await assignSources(tx, sources.map((s) => s.id), id, actor.name, at);
      const dto = await fullSubjectDto(tx, (await findSubjectById(tx, id))!, deps);
      await recordSubjectRevision(tx, {
        actor, revisionType: 'ADD', subject: dto, at,
        sources: await changedSources(tx, sources.map((s) => s.id), login),
      });
      return dto;
    });
    counts.clear();
    return reduced(subject);
  }

  /** The assigned sources as they are now, for their revision changes. */
  async function changedSources(tx: Executor, ids: readonly number[], subjectLogin: string | null) {
    return (await sourcesByIds(tx, ids)).map((row) => ({ row, revisionType: 'MOD' as const, subjectLogin }));
  }

  async function update(input: SubjectInputT, actor: Actor) {
    if (input.id == null) return { created: true, subject: await create(input, actor) };
    const projectName = projectNameOf(input);
    const id = input.id;
    const fields = fieldsOf(input);
    const status = statusOf(input);
    const at = now();
    const subject = await db.transaction(async (tx) => {
      const row = await findSubjectById(tx, id, true);
      if (!row) throw subjectNotFound(`Subject with ID ${id} not found.`);
      const { active } = await participantProjects(tx, row.userId);
      const target = await findProjectByName(tx, projectName);
      actor.check('SUBJECT.UPDATE', subjectEntity(row.login, active));
      if (active?.projectName !== projectName) {
        actor.check('SUBJECT.UPDATE', { project: projectName, organization: target?.organizationName ?? null, subject: row.login });
      }
      if (!target) throw projectNotFound(projectName);
      await checkExternalId(tx, target, fields.externalId, row.id);
      const groupId = await groupIdOf(tx, target, input.group);
      const sources = await givenSources(tx, input, target);

      const flags = status ? statusFlags(status) : { activated: row.activated, removed: row.removed };
      await updateSubject(tx, row.id, { ...fields, groupId, removed: flags.removed, lastModifiedBy: actor.name, lastModifiedDate: at });
      if (flags.activated !== row.activated) await setUserActivated(tx, row.userId, flags.activated, actor.name, at);
      if (active?.id !== target.id) await moveToProject(tx, row.userId, target.id);
      await assignSources(tx, sources.map((s) => s.id), row.id, actor.name, at);
      const dto = await fullSubjectDto(tx, (await findSubjectById(tx, row.id))!, deps);
      await recordSubjectRevision(tx, {
        actor, revisionType: 'MOD', subject: dto, at, sources: await changedSources(tx, sources.map((s) => s.id), row.login),
      });
      return dto;
    });
    counts.clear();
    return { created: false, subject: reduced(subject) };
  }

  /** The reference's `updateParticipantRoles`: participant roles elsewhere become inactive ones; participant of `projectId`. */
  async function moveToProject(tx: Executor, userId: number, projectId: number) {
    for (const old of await participantRolesElsewhere(tx, userId, projectId)) {
      await removeUserRole(tx, userId, old.roleId);
      await addUserRole(tx, userId, await projectRoleId(tx, 'ROLE_INACTIVE_PARTICIPANT', old.projectId));
    }
    await removeUserRole(tx, userId, await projectRoleId(tx, 'ROLE_INACTIVE_PARTICIPANT', projectId));
    await addUserRole(tx, userId, await projectRoleId(tx, 'ROLE_PARTICIPANT', projectId));
  }

  async function discontinue(input: SubjectInputT, actor: Actor): Promise<SubjectDtoT> {
    if (input.id == null) throw new BadRequest('No subject found', SUBJECT, 'subjectNotAvailable');
    projectNameOf(input);
    const id = input.id;
    const at = now();
    const subject = await db.transaction(async (tx) => {
      const row = await findSubjectById(tx, id, true);
      if (!row) throw subjectNotFound(`Subject with ID ${id} not found.`);
      const { active } = await participantProjects(tx, row.userId);
      actor.check('SUBJECT.UPDATE', subjectEntity(row.login, active));
      const released = await releaseSources(tx, row.id, actor.name, at);
      await updateSubject(tx, row.id, { removed: true, lastModifiedBy: actor.name, lastModifiedDate: at });
      // A deactivated account can no longer refresh its tokens.
      await setUserActivated(tx, row.userId, false, actor.name, at);
      const dto = await fullSubjectDto(tx, (await findSubjectById(tx, row.id))!, deps);
      await recordSubjectRevision(tx, {
        actor, revisionType: 'MOD', subject: dto, at, sources: released.map((row) => ({ row, revisionType: 'MOD' as const, subjectLogin: null })),
      });
      return dto;
    });
    counts.clear();
    deps.audit.record({ principal: actor.name, type: 'SUBJECT_DISCONTINUE', data: { subject_login: subject.login }, date: at });
    return reduced(subject);
  }

  async function remove(login: string, actor: Actor): Promise<void> {
    const at = now();
    await db.transaction(async (tx) => {
      const row = await findSubjectByLogin(tx, login, true);
      if (!row) throw subjectNotFound();
      const { associated } = await participantProjects(tx, row.userId);
      actor.check('SUBJECT.DELETE', subjectEntity(row.login, associated));
      const before = await fullSubjectDto(tx, row, deps);
      const released = await releaseSources(tx, row.id, actor.name, at);
      await deleteSubjectUser(tx, row.userId);
      await recordSubjectRevision(tx, { actor, revisionType: 'DEL', subject: before, at, sources: released.map((row) => ({ row, revisionType: 'MOD' as const, subjectLogin: null })) });
    });
    counts.clear();
  }

  async function get(login: string, actor: Actor): Promise<SubjectDtoT> {
    const row = await findSubjectByLogin(db, login);
    if (!row) throw subjectNotFound();
    const { active } = await participantProjects(db, row.userId);
    actor.check('SUBJECT.READ', subjectEntity(row.login, active));
    return fullSubjectDto(db, row, deps);
  }

  async function list(query: SubjectListQueryT, actor: Actor, pathProject?: string): Promise<SubjectPage> {
    const criteria = subjectCriteria(query, pathProject !== undefined ? { projectName: pathProject } : {});
    const { projectName } = criteria;
    // Without a project this is a global check: system admins and client credentials.
    if (projectName === undefined) actor.check('SUBJECT.READ', {});

    if (pathProject === undefined && projectName !== undefined && criteria.externalId !== undefined) {
      const project = await findProjectByName(db, projectName);
      actor.check('SUBJECT.READ', { project: projectName, organization: project?.organizationName ?? null });
      const row = await findByExternalId(db, criteria, criteria.externalId);
      if (!row) throw subjectNotFound('Subject not found with external id', { projectName, externalId: criteria.externalId });
      return { items: [reduced(await fullSubjectDto(db, row, deps))] };
    }

    // The page and its count are read while the project is looked up; nothing is answered before the check.
    const [project, rows, total] = await Promise.all([
      projectName !== undefined ? findProjectByName(db, projectName) : undefined,
      listSubjects(db, criteria),
      counts.count(countKey(criteria), () => countSubjects(db, criteria)),
    ]);
    if (pathProject !== undefined && !project) throw projectNotFound(pathProject);
    if (projectName !== undefined) actor.check('SUBJECT.READ', { project: projectName, organization: project?.organizationName ?? null });
    const last = rows.at(-1);
    return {
      items: rows.map(listedSubjectDto),
      paging: { total, criteria, lastRow: last ? { id: last.id, login: last.login, externalId: last.externalId } : undefined },
    };
  }

  return { create, update, discontinue, remove, get, list };
}
