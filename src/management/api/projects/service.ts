/**
 * Use cases of `/api/projects` (the reference's `ProjectResource` and `ProjectService`,
 * managementportal.md §2.3). Every create, update and delete writes its revision in the same
 * transaction. Entity-scoped permissions are checked here, once the project (and so its
 * organization) is known, through the caller's `Actor`.
 *
 * Reference behaviour changed on purpose:
 * - `idexists` / `nameexists` come with error body A (the reference sent only the failure headers);
 * - an unknown source type id is 404 `error.sourceTypeNotFound` (the reference failed on the
 *   foreign key); `organizationName` alone names the organization on update too;
 * - deleting a project that subjects or sources still refer to is refused before anything is
 *   deleted (the reference relied on a foreign-key violation; here roles cascade).
 */
import type { Database, Executor } from '../../../platform/database.js';
import { isUniqueViolation } from '../../../platform/database.js';
import type { EntityDetails, Referents } from '../../authz/oracle.js';
import type { Actor } from '../../security/authorization.js';
import { BadRequest, ErrorVmException, NotFound } from '../../errors.js';
import { parseInstant } from '../../http/instants.js';
import { pageOf, type Page } from '../../http/paging.js';
import { enumValue, requireField, ValidationFailed, type FieldError } from '../../http/validation.js';
import { recordRevision } from '../revisions/queries.js';
import { roleDto, type RoleDtoT } from '../roles/dto.js';
import { PROJECT_STATUSES, type OrganizationRow, type NewProject } from '../../schema.js';
import type { SourceTypeDtoT } from '../source-types/dto.js';
import { HUMAN_READABLE_NAME, type ProjectDtoT } from './dto.js';
import {
  deleteProject, existingSourceTypeIds, findOrganizationByName, findProjectById, findProjectByName, insertProject, loadProjectDtos, projectDtoOf,
  loadProjectSourceTypes, pageProjects, PROJECT_SORT, projectUsage, rolesOfProject, setProjectSourceTypes, updateProject, type ProjectSort,
  type ProjectWithOrganization, type Visibility,
} from './queries.js';
import { ENTITY_ID, ENTITY_ID_PATTERN, type ProjectInputT, type ProjectListQueryT } from './schemas.js';

const ENTITY = 'project';
const OBJECT = 'projectDTO';


/** What a list shows for these referents (the reference's `referentsByScope`, personal projects included). */
export const visibilityOf = (referents: Referents): Visibility => referents.global
  ? { all: true }
  : { all: false, organizations: [...referents.organizations], projects: [...referents.projects, ...referents.personalProjects] };

/** The EntityDetails of a project: its name and its organization's. */
export const projectEntity = (p: ProjectWithOrganization): EntityDetails =>
  ({ organization: p.organizationName, project: p.project.projectName });

export const projectNotFound = (name: string) =>
  new NotFound(`Project not found with projectName ${name}`, ENTITY, 'error.projectNameNotFound', { projectName: name });

/** 400 ErrorVM `error.projectNotEmpty`: subjects or sources still refer to the project. */
const projectNotEmpty = (description: string) => new ErrorVmException(400, 'error.projectNotEmpty', description);

export interface ProjectList {
  items: ProjectDtoT[] | { id: number; projectName: string }[];
  total: number;
  page: Page<ProjectSort>;
}

export interface ProjectService {
  /** Visible projects (PROJECT.READ referents), one page; `minimized` gives only id and name. */
  list(query: ProjectListQueryT, actor: Actor): Promise<ProjectList>;
  /** @throws NotFound `error.projectNameNotFound`; 403 without PROJECT.READ on it */
  get(name: string, actor: Actor): Promise<ProjectDtoT>;
  /**
   * The project's own fields and organization name, without its groups, source types and
   * organization object (one query, where `get` takes four): a page's header.
   * @throws as `get`
   */
  summary(name: string, actor: Actor): Promise<ProjectDtoT>;
  /** The project's source types (reduced form). */
  sourceTypes(name: string, actor: Actor): Promise<SourceTypeDtoT[]>;
  /** The roles on the project (ROLE.READ). */
  roles(name: string, actor: Actor): Promise<RoleDtoT[]>;
  /**
   * POST: a new project in an existing organization (PROJECT.CREATE on it).
   * @throws 400 field errors, `error.validation` (no organization), `error.idexists`, `error.nameexists`;
   *   404 `error.organizationNameNotFound` / `error.sourceTypeNotFound`
   */
  create(input: ProjectInputT, actor: Actor): Promise<ProjectDtoT>;
  /**
   * PUT: updates the project with `input.id` (creates one when there is no id). The name cannot
   * change; moving to another organization needs PROJECT.UPDATE on both organizations.
   * @throws as `create`, plus 404 `error.projectIdNotFound` and 400 for a changed name
   */
  save(input: ProjectInputT, actor: Actor): Promise<{ project: ProjectDtoT; created: boolean }>;
  /** @throws NotFound; ProjectNotEmpty when subjects or sources still refer to it */
  remove(name: string, actor: Actor): Promise<void>;
}

export interface ProjectServiceDeps {
  db: Database;
  /** Epoch milliseconds. */
  now: () => number;
  persistentTokenTimeoutMs: number;
}

interface ValidProject {
  projectName: string;
  description: string;
  location: string;
  organizationName: string;
  sourceTypeIds: number[];
  columns: Pick<NewProject, 'startDate' | 'endDate' | 'projectStatus' | 'attributes'>;
}

/** Bean validation of a `ProjectDTO` (all field errors at once), then the organization it names. */
function validate(input: ProjectInputT): ValidProject {
  const errors: FieldError[] = [];
  for (const field of ['projectName', 'description', 'location'] as const) {
    if (input[field] == null) errors.push({ objectName: OBJECT, field, message: 'NotNull: must not be null' });
  }
  if (input.projectName != null && (input.projectName === '' || !ENTITY_ID.test(input.projectName))) {
    errors.push({ objectName: OBJECT, field: 'projectName', message: `Pattern: must match "${ENTITY_ID_PATTERN}" and not be empty` });
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  const projectStatus = enumValue(PROJECT_STATUSES, input.projectStatus, OBJECT, 'projectStatus') ?? null;
  const sourceTypeIds = (input.sourceTypes ?? []).map((t, i) => requireField(t.id, OBJECT, `sourceTypes[${i}].id`));
  const organizationName = input.organization?.name ?? input.organizationName;
  if (organizationName == null) throw new BadRequest('Organization must be provided', ENTITY, 'error.validation');
  const attributes = { ...input.attributes };
  if (input.humanReadableProjectName) attributes[HUMAN_READABLE_NAME] = input.humanReadableProjectName;
  return {
    projectName: input.projectName!, description: input.description!, location: input.location!, organizationName, sourceTypeIds,
    columns: { startDate: parseInstant(input.startDate), endDate: parseInstant(input.endDate), projectStatus, attributes },
  };
}

export function createProjectService(deps: ProjectServiceDeps): ProjectService {
  const { db } = deps;
  const full = { full: true, persistentTokenTimeoutMs: deps.persistentTokenTimeoutMs };
  const dtoOf = async (ex: Executor, id: number) => (await loadProjectDtos(ex, [id], full))[0]!;
  const nameExists = () => new BadRequest('A project with this name already exists', ENTITY, 'error.nameexists');

  async function existing(name: string): Promise<ProjectWithOrganization> {
    const found = await findProjectByName(db, name);
    if (!found) throw projectNotFound(name);
    return found;
  }

  /** The project, once the caller is known to hold `permission` on it. */
  async function permitted(name: string, permission: string, actor: Actor): Promise<ProjectWithOrganization> {
    const found = await existing(name);
    actor.check(permission, projectEntity(found));
    return found;
  }

  /** The organization and source types a valid input names, all existing. */
  async function references(valid: ValidProject): Promise<OrganizationRow> {
    const organization = await findOrganizationByName(db, valid.organizationName);
    if (!organization) {
      throw new NotFound('Organization not found with name', 'organization', 'error.organizationNameNotFound', { name: valid.organizationName });
    }
    const known = await existingSourceTypeIds(db, valid.sourceTypeIds);
    const unknown = valid.sourceTypeIds.find((id) => !known.has(id));
    if (unknown !== undefined) throw new NotFound('Source type not found with id', 'sourceType', 'error.sourceTypeNotFound', { id: String(unknown) });
    return organization;
  }

  const rowOf = (valid: ValidProject, organization: OrganizationRow) => ({
    projectName: valid.projectName, description: valid.description, location: valid.location,
    organizationId: organization.id, organizationName: organization.name, ...valid.columns,
  });

  async function create(input: ProjectInputT, actor: Actor): Promise<ProjectDtoT> {
    const valid = validate(input);
    actor.check('PROJECT.CREATE', { organization: valid.organizationName });
    if (input.id != null) throw new BadRequest('A new project cannot already have an ID', ENTITY, 'error.idexists');
    if (await findProjectByName(db, valid.projectName)) throw nameExists();
    const organization = await references(valid);
    const at = new Date(deps.now());
    try {
      return await db.transaction(async (tx) => {
        const row = await insertProject(tx, {
          ...rowOf(valid, organization), createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
        });
        await setProjectSourceTypes(tx, row.id, valid.sourceTypeIds);
        const dto = await dtoOf(tx, row.id);
        await recordRevision(tx, actor, [{ entityType: 'project', entityId: row.id, entityKey: row.projectName, revisionType: 'ADD', entity: dto }], at);
        return dto;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameExists(); // a concurrent create of the same name
      throw err;
    }
  }

  return {
    async list(query, actor) {
      const page = pageOf(query, PROJECT_SORT);
      const visibility = visibilityOf(actor.referents('PROJECT.READ'));
      const { rows, total } = await pageProjects(db, visibility, page);
      const items = query.minimized ? rows : await loadProjectDtos(db, rows.map((r) => r.id), full);
      return { items, total, page };
    },

    async get(name, actor) {
      return dtoOf(db, (await permitted(name, 'PROJECT.READ', actor)).project.id);
    },

    async summary(name, actor) {
      const { project, organizationName } = await permitted(name, 'PROJECT.READ', actor);
      return projectDtoOf(project, null, organizationName, [], [], { full: false });
    },

    async sourceTypes(name, actor) {
      const { project } = await permitted(name, 'PROJECT.READ', actor);
      return (await loadProjectSourceTypes(db, [project.id])).get(project.id) ?? [];
    },

    async roles(name, actor) {
      const { project } = await permitted(name, 'ROLE.READ', actor);
      return (await rolesOfProject(db, project.id)).map(roleDto);
    },

    create,

    async save(input, actor) {
      if (input.id == null) return { project: await create(input, actor), created: true };
      const valid = validate(input);
      const found = await findProjectById(db, input.id);
      if (!found) {
        actor.check('PROJECT.UPDATE', { organization: valid.organizationName, project: valid.projectName });
        throw new NotFound('Project not found with id', ENTITY, 'error.projectIdNotFound', { id: String(input.id) });
      }
      if (found.project.projectName !== valid.projectName) throw new BadRequest('The project name cannot be modified.', ENTITY, 'error.validation');
      actor.check('PROJECT.UPDATE', { organization: valid.organizationName, project: valid.projectName });
      if (valid.organizationName !== found.organizationName) {
        // Moving a project takes the right to change projects in both organizations.
        actor.check('PROJECT.UPDATE', { organization: found.organizationName });
        actor.check('PROJECT.UPDATE', { organization: valid.organizationName });
      }
      const organization = await references(valid);
      const at = new Date(deps.now());
      const id = found.project.id;
      const project = await db.transaction(async (tx) => {
        await updateProject(tx, id, { ...rowOf(valid, organization), lastModifiedBy: actor.name, lastModifiedDate: at });
        await setProjectSourceTypes(tx, id, valid.sourceTypeIds);
        const dto = await dtoOf(tx, id);
        await recordRevision(tx, actor, [{ entityType: 'project', entityId: id, entityKey: valid.projectName, revisionType: 'MOD', entity: dto }], at);
        return dto;
      });
      return { project, created: false };
    },

    async remove(name, actor) {
      const { project } = await permitted(name, 'PROJECT.DELETE', actor);
      const at = new Date(deps.now());
      await db.transaction(async (tx) => {
        const usage = await projectUsage(tx, project.id);
        if (usage.subjects > 0 || usage.sources > 0) {
          throw projectNotEmpty(`Project ${name} still has ${usage.subjects} subject(s) and ${usage.sources} source(s)`);
        }
        const dto = await dtoOf(tx, project.id);
        await deleteProject(tx, project.id);
        await recordRevision(tx, actor, [{ entityType: 'project', entityId: project.id, entityKey: name, revisionType: 'DEL', entity: dto }], at);
      });
    },
  };
}
