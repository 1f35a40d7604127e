/**
 * A subject's sources (the reference's `SubjectResource.assignSources`, `getSubjectSources`,
 * `updateSubjectSource` and `SubjectService.assignOrUpdateSource`, managementportal.md §2.5):
 * what the questionnaire app and pRMT call when they enrol (clients.md §1).
 *
 * Registration of a dynamic source type creates one source per type and subject: the first call
 * answers 201, a repeat 409 `error.sourceTypeExists` (the app treats that as success). A call that
 * names a source (`id`, `sourceName` or `sourceId`) answers 200. Concurrent registrations for one
 * subject are serialized on the subject's row.
 *
 * Reference bug fixed (§15.4): a subject without sources lists `[]`, not 404.
 *
 * `assign` and `unassign` are the admin UI's "Pair sources" (the reference's source assigner
 * dialog, which sent the subject with its new list of sources in `PUT /api/subjects`): one source
 * at a time, with the subject's revision recording it.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../platform/database.js';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../errors.js';
import { recordRevision } from '../revisions/queries.js';
import { findSource, loadSubjectSources } from '../sources/queries.js';
import { minimalSourceDto, type MinimalSourceDtoT } from '../sources/dto.js';
import {
  findProjectSourceType, findSourceTypeById, findSourceTypeByKey, findSubjectById, findSubjectByLogin, insertSource, participantProjects,
  sourceNameTaken, subjectEntities, subjectSourceBy, subjectSourcesOfType, updateSource,
} from './queries.js';
import type { SourceRegistrationInputT } from './schemas.js';
import {
  fullSubjectDto, recordSubjectRevision, SUBJECT, sourceChanges, subjectEntity, subjectNotFound, type Actor, type SubjectServiceDeps,
} from './shared.js';
import type { SourceRow, SourceTypeRow } from '../../schema.js';

export interface SubjectSourcesService {
  /** GET …/sources; `withInactiveSources` adds every source the subject's revisions ever listed. @throws NotFound */
  list(login: string, withInactiveSources: boolean, actor: Actor): Promise<MinimalSourceDtoT[]>;
  /**
   * POST …/sources: a new source of a dynamic type (`created`), or name and attributes of one of
   * the subject's sources given by `sourceId`. @throws BadRequest `error.validation`,
   * `error.sourceTypeNotProvided`, `error.InvalidDynamicSourceRegistration`; NotFound
   * `error.sourceTypeNotFound`, `error.subjectNotFound`, `error.sourceNotFound`; Forbidden
   * `error.activeParticipantProjectNotFound`; Conflict `error.sourceTypeExists`, `error.sourceNameExists`
   */
  register(login: string, input: SourceRegistrationInputT, actor: Actor): Promise<{ created: boolean; source: MinimalSourceDtoT }>;
  /** POST …/sources/{sourceName}: merges attributes. @throws NotFound `error.subjectNotFound` (subject or source) */
  updateAttributes(login: string, sourceName: string, attributes: Record<string, string>, actor: Actor): Promise<MinimalSourceDtoT>;
  /**
   * Assigns the source `sourceName` of the subject's project (or of none: it joins the project) to
   * the subject; idempotent for a source the subject has already. Needs SUBJECT.UPDATE on the subject.
   * @throws NotFound `error.subjectNotFound`, `error.sourceNotFound` (also for a source of another
   * project); Forbidden `error.activeParticipantProjectNotFound`; Conflict `error.sourceIsAssigned`
   * (assigned to someone else)
   */
  assign(login: string, sourceName: string, actor: Actor): Promise<MinimalSourceDtoT>;
  /**
   * Unassigns the subject's source `sourceName`: it stays in the project, free for another subject.
   * Needs SUBJECT.UPDATE on the subject. @throws NotFound `error.subjectNotFound`, `error.sourceNotFound`
   */
  unassign(login: string, sourceName: string, actor: Actor): Promise<MinimalSourceDtoT>;
}

const typeParams = (type: SourceTypeRow, login: string) =>
  ({ producer: type.producer, model: type.model, catalogVersion: type.catalogVersion, userId: login });

/** A source's own revision (its subject's list of sources is unchanged). */
async function recordSourceChange(tx: Executor, row: SourceRow, login: string, actor: Actor, at: Date) {
  await recordRevision(tx, actor, await sourceChanges(tx, [{ row, revisionType: 'MOD', subjectLogin: login }]), at);
}

export function createSubjectSourcesService(deps: SubjectServiceDeps): SubjectSourcesService {
  const { db } = deps;
  const now = () => new Date(deps.now());

  async function list(login: string, withInactiveSources: boolean, actor: Actor) {
    const row = await findSubjectByLogin(db, login);
    if (!row) throw subjectNotFound();
    const { associated } = await participantProjects(db, row.userId);
    actor.check('SUBJECT.READ', subjectEntity(login, associated));
    const current = (await loadSubjectSources(db, [row.id])).get(row.id) ?? [];
    if (!withInactiveSources) return current;
    // Distinct by sourceId in order of first appearance; the latest state of each wins.
    const seen = new Map<string, MinimalSourceDtoT>();
    for (const entity of await subjectEntities(db, row.id)) {
      for (const source of (entity.sources ?? []) as MinimalSourceDtoT[]) seen.set(source.sourceId, source);
    }
    for (const source of current) seen.set(source.sourceId, source);
    return [...seen.values()];
  }

  /** The type a registration names: by id, else by producer, model and version (all three). */
  async function sourceTypeIdOf(input: SourceRegistrationInputT): Promise<number> {
    if (input.sourceTypeId != null) return input.sourceTypeId;
    const { sourceTypeProducer: producer, sourceTypeModel: model, sourceTypeCatalogVersion: version } = input;
    if (producer == null || model == null || version == null) {
      throw new BadRequest('Producer or model or version value for the source-type is null', 'sourceType', 'error.validation');
    }
    const type = await findSourceTypeByKey(db, producer, model, version);
    if (!type) {
      throw new NotFound('SourceType not found with producer, model, version ', 'sourceType', 'error.sourceTypeNotFound',
        { 'producer-model-version': `${producer}-${model}-${version}` });
    }
    return type.id;
  }

  async function register(login: string, input: SourceRegistrationInputT, actor: Actor) {
    const sourceTypeId = await sourceTypeIdOf(input);
    const found = await findSubjectByLogin(db, login);
    if (!found) throw subjectNotFound();
    const { active } = await participantProjects(db, found.userId);
    // Kept from the reference: InvalidRequestException answers 403.
    if (!active) throw new Forbidden('Requested subject does not have an active project', SUBJECT, 'error.activeParticipantProjectNotFound');
    actor.check('SUBJECT.UPDATE', subjectEntity(login, active));
    const type = await findProjectSourceType(db, active.id, sourceTypeId);
    if (!type) {
      throw new BadRequest('No valid source-type found for project. You must provide either valid source-type id or producer, model, version of a source-type that is assigned to project',
        SUBJECT, 'error.sourceTypeNotProvided');
    }
    const existing = input.id != null || input.sourceName != null || input.sourceId != null;
    const at = now();

    const source = await db.transaction(async (tx) => {
      const subject = await findSubjectById(tx, found.id, true);
      if (!subject) throw subjectNotFound();
      if (input.sourceId != null) {
        // An existing source of this subject: new name and merged attributes.
        const current = await subjectSourceBy(tx, subject.id, { sourceId: input.sourceId });
        if (!current) {
          throw new NotFound('No source with source-id to assigned to the subject with subject-login', SUBJECT, 'error.sourceNotFound',
            { sourceId: input.sourceId, 'subject-login': login });
        }
        const sourceName = input.sourceName ?? current.sourceName;
        if (sourceName !== current.sourceName && await sourceNameTaken(tx, sourceName, current.id)) {
          throw new Conflict('SourceName already in use. Cannot create a source with existing source-name ', SUBJECT, 'error.sourceNameExists', { 'source-name': sourceName });
        }
        const updated = await updateSource(tx, current.id, {
          sourceName, assigned: true, attributes: { ...current.attributes, ...input.attributes },
          lastModifiedBy: actor.name, lastModifiedDate: at,
        });
        const ownType = updated.sourceTypeId === type.id ? type : updated.sourceTypeId !== null ? await findSourceTypeById(tx, updated.sourceTypeId) : undefined;
        await recordSourceChange(tx, updated, login, actor, at);
        return minimalSourceDto(updated, ownType);
      }
      if (!type.canRegisterDynamically) {
        throw new BadRequest('The source type is not eligible for dynamic registration', 'sourceType', 'error.InvalidDynamicSourceRegistration', typeParams(type, login));
      }
      if ((await subjectSourcesOfType(tx, subject.id, type.id)).length > 0) {
        throw new Conflict('A Source of SourceType with the specified producer, model and version was already registered for subject login',
          SUBJECT, 'error.sourceTypeExists', typeParams(type, login));
      }
      const sourceId = randomUUID();
      const generated = `${type.model}-${sourceId.slice(0, 8)}`;
      // A given name gets the generated one appended, so two devices never clash.
      const sourceName = input.sourceName != null ? `${input.sourceName}_${generated}` : generated;
      if (await sourceNameTaken(tx, sourceName)) {
        throw new Conflict('SourceName already in use. Cannot create a source with existing source-name ', SUBJECT, 'error.sourceNameExists', { 'source-name': sourceName });
      }
      const created = await insertSource(tx, {
        sourceId, sourceName, sourceTypeId: type.id, projectId: active.id, subjectId: subject.id, assigned: true,
        attributes: input.attributes ?? {}, createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      await recordSubjectRevision(tx, {
        actor, revisionType: 'MOD', subject: await fullSubjectDto(tx, subject, deps), at,
        sources: [{ row: created, revisionType: 'ADD', subjectLogin: login }],
      });
      return minimalSourceDto(created, type);
    });
    return { created: !existing, source };
  }

  async function updateAttributes(login: string, sourceName: string, attributes: Record<string, string>, actor: Actor) {
    const at = now();
    return db.transaction(async (tx) => {
      const subject = await findSubjectByLogin(tx, login);
      if (!subject) throw subjectNotFound('Subject ID not found', { subjectLogin: login });
      const { associated } = await participantProjects(tx, subject.userId);
      actor.check('SUBJECT.UPDATE', subjectEntity(login, associated));
      const current = await subjectSourceBy(tx, subject.id, { sourceName });
      if (!current) throw subjectNotFound('Source not found under assigned sources of subject', { subjectLogin: login, sourceName });
      const updated = await updateSource(tx, current.id, {
        attributes: { ...current.attributes, ...attributes }, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      const type = current.sourceTypeId !== null ? await findSourceTypeById(tx, current.sourceTypeId) : undefined;
      await recordSourceChange(tx, updated, login, actor, at);
      return minimalSourceDto(updated, type);
    });
  }

  const sourceNotFound = (sourceName: string) =>
    new NotFound('Source not found with sourceName', 'source', 'error.sourceNotFound', { sourceName });

  async function assign(login: string, sourceName: string, actor: Actor) {
    const at = now();
    return db.transaction(async (tx) => {
      const subject = await findSubjectByLogin(tx, login, true);
      if (!subject) throw subjectNotFound();
      const { active } = await participantProjects(tx, subject.userId);
      if (!active) throw new Forbidden('Requested subject does not have an active project', SUBJECT, 'error.activeParticipantProjectNotFound');
      actor.check('SUBJECT.UPDATE', subjectEntity(login, active));
      const found = await findSource(tx, { name: sourceName }, true);
      if (!found || (found.source.projectId !== null && found.source.projectId !== active.id)) throw sourceNotFound(sourceName);
      const current = found.source;
      const type = current.sourceTypeId !== null ? await findSourceTypeById(tx, current.sourceTypeId) : undefined;
      if (current.subjectId === subject.id && current.assigned) return minimalSourceDto(current, type);
      if (current.assigned && current.subjectId !== subject.id) {
        throw new Conflict('The source is assigned to another subject', 'source', 'error.sourceIsAssigned', { sourceName });
      }
      const updated = await updateSource(tx, current.id, {
        subjectId: subject.id, assigned: true, projectId: active.id, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      await recordSubjectRevision(tx, {
        actor, revisionType: 'MOD', subject: await fullSubjectDto(tx, subject, deps), at,
        sources: [{ row: updated, revisionType: 'MOD', subjectLogin: login }],
      });
      return minimalSourceDto(updated, type);
    });
  }

  async function unassign(login: string, sourceName: string, actor: Actor) {
    const at = now();
    return db.transaction(async (tx) => {
      const subject = await findSubjectByLogin(tx, login, true);
      if (!subject) throw subjectNotFound();
      const { associated } = await participantProjects(tx, subject.userId);
      actor.check('SUBJECT.UPDATE', subjectEntity(login, associated));
      const current = await subjectSourceBy(tx, subject.id, { sourceName });
      if (!current) throw sourceNotFound(sourceName);
      const updated = await updateSource(tx, current.id, { subjectId: null, assigned: false, lastModifiedBy: actor.name, lastModifiedDate: at });
      await recordSubjectRevision(tx, {
        actor, revisionType: 'MOD', subject: await fullSubjectDto(tx, subject, deps), at,
        sources: [{ row: updated, revisionType: 'MOD', subjectLogin: null }],
      });
      const type = current.sourceTypeId !== null ? await findSourceTypeById(tx, current.sourceTypeId) : undefined;
      return minimalSourceDto(updated, type);
    });
  }

  return { list, register, updateAttributes, assign, unassign };
}
