/**
 * Use cases of `/api/sources` and `/api/projects/{projectName}/sources` (the reference's
 * `SourceResource`, `SourceService` and `ProjectResource.getAllSourcesForProject`, managementportal.md
 * §2.3, §2.6). A source is checked on its project (and organization), its subject when it has one,
 * and itself; routes hand in that check as the caller's `Actor`. Every change records a `source` revision in
 * its transaction.
 *
 * Deviations from the reference:
 * - the project of a body is looked up by `id`, else by `projectName`, and checked by the name
 *   found (the reference checked the body's name but saved the body's id);
 * - an unknown source, project, subject or source type is 404, where the reference gave 500s;
 * - the failures the reference sent as empty bodies with `X-managementPortalApp-error` headers carry
 *   the error body A as well (same headers);
 * - `error.invalidTransfer` names the entity `source` (the reference sent Hibernate's `entity_name`).
 */
import type { Database, Executor } from '../../../platform/database.js';
import type { EntityDetails } from '../../authz/oracle.js';
import type { Actor } from '../../security/authorization.js';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import { recordRevision, type ChangeAuthor } from '../revisions/queries.js';
import { findSourceTypeById, findSourceTypeByKey } from '../source-types/queries.js';
import { requireFields } from '../source-types/service.js';
import { minimalSourceDto, type MinimalSourceDtoT, type SourceDtoT } from './dto.js';
import {
  deleteSource, everAssigned, findProject, findSource, findSubjectByLogin, insertSource, loadSourceDtos, pageProjectSources, pageSources,
  projectSourcesByAssigned, sourceNameTaken, sourceTypeInProject, updateSource, type ProjectFilter, type ProjectRef,
  type SourceRef, type SourceSort,
} from './queries.js';
import type { SourceInputT } from './schemas.js';
import type { SourceTypeRow } from '../../schema.js';

const ENTITY = 'source';
const OBJECT = 'sourceDTO';

/** Throws 403 unless the caller holds `permission` on `entity` (the route binds it to the request). */

/** The entity a source is checked as: its project (and organization), its subject, itself. */
export const sourceEntity = (ref: SourceRef): EntityDetails => ({
  organization: ref.organizationName, project: ref.project?.projectName ?? null, subject: ref.subjectLogin, source: ref.source.sourceName,
});

const projectEntity = (project: ProjectRef): EntityDetails => ({ organization: project.organizationName, project: project.projectName });

export const sourceNotFound = (sourceName: string) =>
  new NotFound('Source not found with sourceName', ENTITY, 'error.sourceNotFound', { sourceName });

export const projectNotFound = (projectName: string) =>
  new NotFound('Project not found with projectName', 'project', 'error.projectNameNotFound', { projectName });

export interface ProjectSourcesQuery {
  assigned?: boolean;
  minimized: boolean;
  page: Page<SourceSort>;
}

export interface SourceService {
  /** The sources of the projects `filter` lets through, one page. */
  list(filter: ProjectFilter, page: Page<SourceSort>): Promise<{ items: SourceDtoT[]; total: number }>;
  /** @throws NotFound `error.sourceNotFound`; 403 from `actor.check` (`SOURCE.READ`) */
  get(sourceName: string, actor: Actor): Promise<SourceDtoT>;
  /**
   * A project's sources without `project`: with `assigned` all (un)assigned ones, otherwise one page
   * (`total` set). @throws NotFound `error.projectNameNotFound`; 403 from `actor.check` (`SOURCE.READ`)
   */
  listOfProject(projectName: string, query: ProjectSourcesQuery, actor: Actor): Promise<{ items: SourceDtoT[] | MinimalSourceDtoT[]; total?: number }>;
  /**
   * Creates a source with a generated `sourceId`; `subjectLogin` is ignored, as in the reference.
   * @throws BadRequest `error.idexists`, `error.sourceIdExists`, `error.sourceNameExists`, `error.sourceAssignedRequired`;
   * NotFound for an unknown project or source type; 403 from `actor.check` (`SOURCE.CREATE` on the project, or global)
   */
  create(input: SourceInputT, actor: Actor): Promise<SourceDtoT>;
  /**
   * Updates source `input.id`. Moving it to another project needs it unassigned (403
   * `error.sourceIsAssigned`) and its type in that project (403 `error.invalidTransfer`); the type
   * is then kept. @throws NotFound; BadRequest `error.sourceNameExists`; 403 from `actor.check` (`SOURCE.UPDATE`
   * on the source, the target project and a new subject)
   */
  update(input: SourceInputT & { id: number }, actor: Actor): Promise<SourceDtoT>;
  /**
   * Deletes a source that is not, and never was, assigned.
   * @throws NotFound; BadRequest `error.sourceIsAssigned`; Conflict `error.sourceRevisionIsAssigned`; 403 from `actor.check`
   */
  remove(sourceName: string, actor: Actor): Promise<void>;
}

export function createSourceService(deps: { db: Database; now: () => number }): SourceService {
  const { db, now } = deps;

  async function dtoOf(tx: Executor, id: number): Promise<SourceDtoT> {
    const ref = await findSource(tx, { id });
    return (await loadSourceDtos(tx, [ref!], { withProject: true }))[0]!;
  }

  const revision = (tx: Executor, author: ChangeAuthor, dto: SourceDtoT, revisionType: 'ADD' | 'MOD' | 'DEL') =>
    recordRevision(tx, author, [{ entityType: 'source', entityId: dto.id, entityKey: dto.sourceName, revisionType, entity: dto }], new Date(now()));

  /**
   * The project a body names (by id, else by name), checked with `permission`. An unknown project
   * is checked by the name given first, so only those who could act on it learn it is missing.
   */
  async function projectOf(tx: Executor, ref: SourceInputT['project'], permission: string, check: Actor['check']): Promise<ProjectRef | null> {
    if (!ref || (ref.id == null && ref.projectName == null)) return null;
    const project = await findProject(tx, ref.id != null ? { id: ref.id } : { projectName: ref.projectName! });
    if (!project) {
      const name = ref.projectName ?? String(ref.id);
      check(permission, { project: name });
      throw projectNotFound(name);
    }
    check(permission, projectEntity(project));
    return project;
  }

  async function sourceTypeOf(tx: Executor, ref: NonNullable<SourceInputT['sourceType']>): Promise<SourceTypeRow> {
    const type = ref.id != null ? await findSourceTypeById(tx, ref.id)
      : ref.producer != null && ref.model != null && ref.catalogVersion != null ? await findSourceTypeByKey(tx, ref.producer, ref.model, ref.catalogVersion)
        : undefined;
    if (!type) {
      throw new NotFound('SourceType not found', 'sourceType', 'error.sourceTypeNotFound',
        ref.id != null ? { id: String(ref.id) } : { 'producer-model-version': `${ref.producer}-${ref.model}-${ref.catalogVersion}` });
    }
    return type;
  }

  async function create(input: SourceInputT, actor: Actor): Promise<SourceDtoT> {
    requireFields(OBJECT, { sourceName: input.sourceName, sourceType: input.sourceType });
    const sourceName = input.sourceName!;
    const at = new Date(now());
    return db.transaction(async (tx) => {
      const project = await projectOf(tx, input.project, 'SOURCE.CREATE', actor.check);
      if (!project) actor.check('SOURCE.CREATE', {});
      if (input.id != null) throw new BadRequest('A new source cannot already have an ID', ENTITY, 'error.idexists');
      if (input.sourceId != null) throw new BadRequest('A new source cannot already have a Source ID', ENTITY, 'error.sourceIdExists');
      if (await sourceNameTaken(tx, sourceName)) throw new BadRequest('Source name already in use', ENTITY, 'error.sourceNameExists', { sourceName });
      if (input.assigned == null) throw new BadRequest("A new source must have the 'assigned' field specified", ENTITY, 'error.sourceAssignedRequired');
      const type = await sourceTypeOf(tx, input.sourceType!);
      const row = await insertSource(tx, {
        sourceName, expectedSourceName: input.expectedSourceName ?? null, assigned: input.assigned,
        sourceTypeId: type.id, projectId: project?.id ?? null, attributes: input.attributes ?? {},
        createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
      });
      const dto = await dtoOf(tx, row.id);
      await revision(tx, actor, dto, 'ADD');
      return dto;
    });
  }

  return {
    async list(filter, page) {
      const { rows, total } = await pageSources(db, filter, page);
      return { items: await loadSourceDtos(db, rows, { withProject: true }), total };
    },

    async get(sourceName, actor) {
      const ref = await findSource(db, { name: sourceName });
      if (!ref) throw sourceNotFound(sourceName);
      actor.check('SOURCE.READ', sourceEntity(ref));
      return (await loadSourceDtos(db, [ref], { withProject: true }))[0]!;
    },

    async listOfProject(projectName, query, actor) {
      const project = await findProject(db, { projectName });
      if (!project) {
        actor.check('SOURCE.READ', { project: projectName });
        throw projectNotFound(projectName);
      }
      actor.check('SOURCE.READ', projectEntity(project));
      const { rows, total } = query.assigned !== undefined
        ? { rows: await projectSourcesByAssigned(db, project.id, query.assigned), total: undefined }
        : await pageProjectSources(db, project.id, query.page);
      const items = query.minimized
        ? rows.map((r) => minimalSourceDto(r.source, r.type))
        : await loadSourceDtos(db, rows, { withProject: false });
      return { items, total };
    },

    create,

    async update(input, actor) {
      requireFields(OBJECT, { sourceName: input.sourceName, assigned: input.assigned, sourceType: input.sourceType });
      const sourceName = input.sourceName!;
      const at = new Date(now());
      return db.transaction(async (tx) => {
        const existing = await findSource(tx, { id: input.id }, true);
        if (!existing) throw new NotFound('Source not found with id', ENTITY, 'error.sourceNotFound', { id: String(input.id) });
        actor.check('SOURCE.UPDATE', sourceEntity(existing));
        const project = await projectOf(tx, input.project, 'SOURCE.UPDATE', actor.check);
        let sourceTypeId: number | null;
        if ((existing.project?.id ?? null) !== (project?.id ?? null)) {
          if (existing.source.assigned) throw new Forbidden('Cannot transfer an assigned source', ENTITY, 'error.sourceIsAssigned');
          const typeId = existing.source.sourceTypeId;
          if (!project || typeId === null || !await sourceTypeInProject(tx, project.id, typeId)) {
            throw new Forbidden("Cannot transfer a source to a project which doesn't have compatible source-type", ENTITY, 'error.invalidTransfer');
          }
          sourceTypeId = typeId; // a transferred source keeps its type
        } else {
          sourceTypeId = (await sourceTypeOf(tx, input.sourceType!)).id;
        }
        let subjectId = existing.source.subjectId;
        if (input.subjectLogin != null && input.subjectLogin !== existing.subjectLogin) {
          const subject = await findSubjectByLogin(tx, input.subjectLogin);
          if (!subject) throw new NotFound('Subject not found with login', 'subject', 'error.subjectNotFound', { login: input.subjectLogin });
          // Assigning to a subject is an update of that subject's sources too.
          actor.check('SOURCE.UPDATE', {
            organization: subject.project?.organizationName ?? null, project: subject.project?.projectName ?? null,
            subject: subject.login, source: sourceName,
          });
          subjectId = subject.id;
        }
        if (await sourceNameTaken(tx, sourceName, existing.source.id)) {
          throw new BadRequest('Source name already in use', ENTITY, 'error.sourceNameExists', { sourceName });
        }
        await updateSource(tx, existing.source.id, {
          sourceName, sourceId: input.sourceId ?? existing.source.sourceId, expectedSourceName: input.expectedSourceName ?? null,
          assigned: input.assigned!, sourceTypeId, projectId: project?.id ?? null, subjectId,
          attributes: input.attributes ?? {}, lastModifiedBy: actor.name, lastModifiedDate: at,
        });
        const dto = await dtoOf(tx, existing.source.id);
        await revision(tx, actor, dto, 'MOD');
        return dto;
      });
    },

    async remove(sourceName, actor) {
      await db.transaction(async (tx) => {
        const ref = await findSource(tx, { name: sourceName }, true);
        if (!ref) throw sourceNotFound(sourceName);
        actor.check('SOURCE.DELETE', sourceEntity(ref));
        if (ref.source.assigned) throw new BadRequest('Cannot delete an assigned source', ENTITY, 'error.sourceIsAssigned', { sourceName });
        if (await everAssigned(tx, ref.source.id)) {
          throw new Conflict('Cannot delete a previously assigned source', ENTITY, 'error.sourceRevisionIsAssigned', { sourceName });
        }
        const [dto] = await loadSourceDtos(tx, [ref], { withProject: true });
        await deleteSource(tx, ref.source.id);
        await revision(tx, actor, dto!, 'DEL');
      });
    },
  };
}
