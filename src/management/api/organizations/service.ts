/**
 * Use cases of `/api/organizations` (the reference's `OrganizationResource` and
 * `OrganizationService`, managementportal.md §2.4). Every create, update and delete writes a
 * revision (`organization`) in the same transaction.
 *
 * Reference behaviour changed on purpose:
 * - the projects inside an organization are those the caller may see (the reference listed all
 *   of them to anyone who could read the organization);
 * - an update is authorized on the organization being changed (the reference checked only the
 *   name in the body, so an organization admin could overwrite another organization by id);
 *   renaming also needs the right on the new name (in practice: a system admin);
 * - an organization without projects can be deleted (ORGANIZATION.DELETE on it; the reference had
 *   no delete, issue 31 item 1); one with projects is refused (400 `error.organizationNotEmpty`);
 * - PUT answers the `updated` alert (the reference sent `created`); an unknown organization in
 *   `/{name}/projects` is 404, not an empty list.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { isUniqueViolation } from '../../../platform/database.js';
import { BadRequest, Conflict, ErrorVmException, NotFound } from '../../errors.js';
import { ValidationFailed, type FieldError } from '../../http/validation.js';
import type { ProjectDtoT } from '../projects/dto.js';
import { findOrganizationByName, loadProjectDtos, projectsOfOrganizations, type Visibility } from '../projects/queries.js';
import { ENTITY_ID, ENTITY_ID_PATTERN, type OrganizationInputT } from '../projects/schemas.js';
import { visibilityOf } from '../projects/service.js';
import type { Actor } from '../../security/authorization.js';
import { recordRevision } from '../revisions/queries.js';
import {
  deleteOrganization, findOrganizationById, insertOrganization, listOrganizations, lockAndCountProjects, updateOrganization,
} from './queries.js';
import type { OrganizationWithProjectsDtoT } from './schemas.js';
import type { OrganizationRow } from '../../schema.js';

const ENTITY = 'organization';
const OBJECT = 'organizationDTO';

export const organizationNotFound = (name: string) =>
  new NotFound(`Organization not found with name ${name}`, ENTITY, 'error.organizationNameNotFound', { name });

export interface OrganizationService {
  /** Visible organizations (ORGANIZATION.READ referents: their own and those of their projects). */
  list(actor: Actor): Promise<OrganizationWithProjectsDtoT[]>;
  /** @throws 403 without ORGANIZATION.READ on it; NotFound `error.organizationNameNotFound` */
  get(name: string, actor: Actor): Promise<OrganizationWithProjectsDtoT>;
  /**
   * Full DTOs of the organization's projects, for those holding PROJECT.READ on the organization
   * (organization and global roles: project roles hold it on their project only), filtered to the
   * caller's PROJECT.READ referents.
   */
  projects(name: string, actor: Actor): Promise<ProjectDtoT[]>;
  /**
   * POST (and PUT without id): ORGANIZATION.CREATE, a global permission.
   * @throws 400 field errors / `error.idexists`; Conflict `error.nameexists`
   */
  create(input: OrganizationInputT, actor: Actor): Promise<OrganizationWithProjectsDtoT>;
  /** PUT: updates the organization with `input.id`, or creates one without id. */
  save(input: OrganizationInputT, actor: Actor): Promise<{ organization: OrganizationWithProjectsDtoT; created: boolean }>;
  /**
   * DELETE: an organization without projects (ORGANIZATION.DELETE on it); its roles go with it.
   * @throws 403; NotFound `error.organizationNameNotFound`; 400 ErrorVM `error.organizationNotEmpty`
   *   while any project (visible to the caller or not) is in it
   */
  remove(name: string, actor: Actor): Promise<void>;
}

interface ValidOrganization { name: string; description: string; location: string }

function validate(input: OrganizationInputT): ValidOrganization {
  const errors: FieldError[] = [];
  for (const field of ['name', 'description', 'location'] as const) {
    if (input[field] == null) errors.push({ objectName: OBJECT, field, message: 'NotNull: must not be null' });
  }
  if (input.name != null && (input.name === '' || !ENTITY_ID.test(input.name))) {
    errors.push({ objectName: OBJECT, field: 'name', message: `Pattern: must match "${ENTITY_ID_PATTERN}" and not be empty` });
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  return { name: input.name!, description: input.description!, location: input.location! };
}

export function createOrganizationService(deps: { db: Database; now: () => number; persistentTokenTimeoutMs: number }): OrganizationService {
  const { db } = deps;
  const nameExists = () => new Conflict('An organization with this name already exists', ENTITY, 'error.nameexists');

  /** Organization DTOs with their visible projects (reduced), in one batch. */
  async function withProjects(ex: Executor, rows: readonly OrganizationRow[], visibility: Visibility): Promise<OrganizationWithProjectsDtoT[]> {
    const links = await projectsOfOrganizations(ex, rows.map((r) => r.id), visibility);
    const projectsOf = new Map<number, ProjectDtoT[]>(rows.map((r) => [r.id, []]));
    const dtos = await loadProjectDtos(ex, links.map((l) => l.id), { full: false });
    const organizationOf = new Map(links.map((l) => [l.id, l.organizationId]));
    for (const dto of dtos) projectsOf.get(organizationOf.get(dto.id!) ?? -1)?.push(dto);
    return rows.map((row) => ({
      id: row.id, name: row.name, description: row.description, location: row.location, projects: projectsOf.get(row.id) ?? [],
    }));
  }

  async function write(actor: Actor, change: (tx: Executor, at: Date) => Promise<OrganizationRow>, type: 'ADD' | 'MOD') {
    const at = new Date(deps.now());
    try {
      return await db.transaction(async (tx) => {
        const row = await change(tx, at);
        // Whoever may create or change an organization (a global or organization role) sees all its projects.
        const [dto] = await withProjects(tx, [row], { all: true });
        await recordRevision(tx, actor, [{ entityType: 'organization', entityId: row.id, entityKey: row.name, revisionType: type, entity: dto! }], at);
        return dto!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameExists(); // a concurrent write of the same name
      throw err;
    }
  }

  async function create(input: OrganizationInputT, actor: Actor) {
    const valid = validate(input);
    actor.check('ORGANIZATION.CREATE', {});
    if (input.id != null) throw new BadRequest('A new organization cannot already have an ID', ENTITY, 'error.idexists');
    if (await findOrganizationByName(db, valid.name)) throw nameExists();
    return write(actor, (tx, at) => insertOrganization(tx, {
      ...valid, createdBy: actor.name, createdDate: at, lastModifiedBy: actor.name, lastModifiedDate: at,
    }), 'ADD');
  }

  return {
    async list(actor) {
      const visibility = visibilityOf(actor.referents('ORGANIZATION.READ'));
      return withProjects(db, await listOrganizations(db, visibility), visibility);
    },

    async get(name, actor) {
      actor.check('ORGANIZATION.READ', { organization: name });
      const row = await findOrganizationByName(db, name);
      if (!row) throw organizationNotFound(name);
      return (await withProjects(db, [row], visibilityOf(actor.referents('ORGANIZATION.READ'))))[0]!;
    },

    async projects(name, actor) {
      actor.check('PROJECT.READ', { organization: name });
      const row = await findOrganizationByName(db, name);
      if (!row) throw organizationNotFound(name);
      const links = await projectsOfOrganizations(db, [row.id], visibilityOf(actor.referents('PROJECT.READ')));
      return loadProjectDtos(db, links.map((l) => l.id), { full: true, persistentTokenTimeoutMs: deps.persistentTokenTimeoutMs });
    },

    create,

    async save(input, actor) {
      if (input.id == null) return { organization: await create(input, actor), created: true };
      const valid = validate(input);
      const found = await findOrganizationById(db, input.id);
      if (!found) {
        actor.check('ORGANIZATION.UPDATE', { organization: valid.name });
        throw new NotFound('Organization not found with id', ENTITY, 'error.organizationNameNotFound', { id: String(input.id) });
      }
      actor.check('ORGANIZATION.UPDATE', { organization: found.name });
      if (valid.name !== found.name) {
        actor.check('ORGANIZATION.UPDATE', { organization: valid.name });
        if (await findOrganizationByName(db, valid.name)) throw nameExists();
      }
      const organization = await write(actor, (tx, at) =>
        updateOrganization(tx, found.id, { ...valid, lastModifiedBy: actor.name, lastModifiedDate: at }), 'MOD');
      return { organization, created: false };
    },

    async remove(name, actor) {
      actor.check('ORGANIZATION.DELETE', { organization: name });
      const row = await findOrganizationByName(db, name);
      if (!row) throw organizationNotFound(name);
      const at = new Date(deps.now());
      await db.transaction(async (tx) => {
        const projectCount = await lockAndCountProjects(tx, row.id);
        if (projectCount > 0) {
          throw new ErrorVmException(400, 'error.organizationNotEmpty', `Organization ${name} still has ${projectCount} project(s)`);
        }
        const [dto] = await withProjects(tx, [row], { all: true });
        await deleteOrganization(tx, row.id);
        await recordRevision(tx, actor, [{ entityType: 'organization', entityId: row.id, entityKey: row.name, revisionType: 'DEL', entity: dto! }], at);
      });
    },
  };
}
