/**
 * Use cases of `/api/projects/{projectName}/groups` (the reference's `GroupResource` and
 * `GroupService`, managementportal.md §2.8). Reading needs PROJECT.READ on the project, creating,
 * renaming and deleting PROJECT.UPDATE, moving subjects in and out SUBJECT.UPDATE.
 *
 * Reference behaviour changed on purpose:
 * - the permission is checked on the project *and* its organization, so organization admins
 *   manage groups too (the reference passed only the project name, which organization roles
 *   never match);
 * - an unknown subject in a PATCH is 404 `error.subjectNotFound` (the reference skipped it), and
 *   `remove` takes a subject out of this group only (the reference emptied its group, whichever);
 * - the list is `{id, projectId, name}` for each group, as the reference's mapper writes it (its
 *   spec said `{name}` only);
 * - a group can be renamed (`PUT …/groups/{groupName}`, issue 31 item 3; the reference had no
 *   operation for it): its subjects stay in it.
 */
import type { Database } from '../../../platform/database.js';
import { isUniqueViolation } from '../../../platform/database.js';
import { BadRequest, Conflict, NotFound } from '../../errors.js';
import { fieldError } from '../../http/validation.js';
import { findProjectByName, type ProjectWithOrganization } from '../projects/queries.js';
import { ENTITY_ID, ENTITY_ID_PATTERN } from '../projects/schemas.js';
import { projectEntity } from '../projects/service.js';
import type { Actor } from '../../security/authorization.js';
import {
  countSubjectsInGroup, deleteGroup, findGroup, findSubjects, groupsOfProject, insertGroup, renameGroup, setSubjectsGroup, unsetSubjectsGroup,
} from './queries.js';
import type { GroupDtoT, GroupInputT, GroupSubjectsPatchT, SubjectRefT } from './schemas.js';
import type { GroupRow } from '../../schema.js';
import { recordInTx } from '../../audit/audit-log.js';
import { entityChangeEvent } from '../../audit/changes.js';

const ENTITY = 'group';
const OBJECT = 'groupDTO';

const groupDto = (row: GroupRow): GroupDtoT => ({ id: row.id, projectId: row.projectId, name: row.name });

export interface GroupService {
  /** @throws 403 without PROJECT.READ; NotFound `error.projectNameNotFound` */
  list(projectName: string, actor: Actor): Promise<GroupDtoT[]>;
  /** @throws as `list`, plus NotFound `error.groupNotFound` */
  get(projectName: string, groupName: string, actor: Actor): Promise<GroupDtoT>;
  /** @throws 400 field errors; 403 without PROJECT.UPDATE; NotFound; Conflict `error.groupExists` */
  create(projectName: string, input: GroupInputT, actor: Actor): Promise<GroupDtoT>;
  /**
   * Renames a group (its subjects stay in it); the new name is checked as on create. Renaming to
   * the same name is a no-op. @throws as `create`, plus NotFound `error.groupNotFound`
   */
  rename(projectName: string, groupName: string, input: GroupInputT, actor: Actor): Promise<GroupDtoT>;
  /**
   * Deletes a group; with `unlinkSubjects` its subjects leave it, without it a group with
   * subjects is Conflict `error.validation`.
   */
  remove(projectName: string, groupName: string, unlinkSubjects: boolean, actor: Actor): Promise<void>;
  /**
   * Adds subjects to and removes them from a group, in one transaction.
   * @throws 400 `error.validation` (unknown op, subject named by neither or both of id and login,
   *   subject not in this project); NotFound for an unknown group or subject
   */
  patchSubjects(projectName: string, groupName: string, operations: GroupSubjectsPatchT, actor: Actor): Promise<void>;
}

/** The name a create or rename gives, checked as the reference's `@NotNull @Size(1, 50) @Pattern`. */
function validName(input: GroupInputT): string {
  const name = input.name;
  if (name == null) throw fieldError(OBJECT, 'name', 'NotNull', 'must not be null');
  if (name.length < 1 || name.length > 50) throw fieldError(OBJECT, 'name', 'Size', 'size must be between 1 and 50');
  if (!ENTITY_ID.test(name)) throw fieldError(OBJECT, 'name', 'Pattern', `must match "${ENTITY_ID_PATTERN}"`);
  return name;
}

export function createGroupService(deps: { db: Database; now: () => number }): GroupService {
  const { db } = deps;
  const groupExists = (name: string, projectName: string) =>
    new Conflict(`Group ${name} already exists in project ${projectName}`, ENTITY, 'error.groupExists');

  /** The project, once the caller holds `permission` on it (on its name alone when it does not exist). */
  async function permitted(projectName: string, permission: string, actor: Actor): Promise<ProjectWithOrganization> {
    const found = await findProjectByName(db, projectName);
    actor.check(permission, found ? projectEntity(found) : { project: projectName });
    if (!found) throw new NotFound(`Project with name ${projectName} not found`, 'project', 'error.projectNameNotFound', { projectName });
    return found;
  }

  async function existingGroup(project: ProjectWithOrganization, groupName: string): Promise<GroupRow> {
    const group = await findGroup(db, project.project.id, groupName);
    if (!group) {
      throw new NotFound(`Group ${groupName} not found in project ${project.project.projectName}`, ENTITY, 'error.groupNotFound');
    }
    return group;
  }

  return {
    async list(projectName, actor) {
      const project = await permitted(projectName, 'PROJECT.READ', actor);
      return (await groupsOfProject(db, project.project.id)).map(groupDto);
    },

    async get(projectName, groupName, actor) {
      const project = await permitted(projectName, 'PROJECT.READ', actor);
      return groupDto(await existingGroup(project, groupName));
    },

    async create(projectName, input, actor) {
      const name = validName(input);
      const project = await permitted(projectName, 'PROJECT.UPDATE', actor);
      if (await findGroup(db, project.project.id, name)) throw groupExists(name, projectName);
      try {
        return groupDto(await db.transaction(async (tx) => {
          const row = await insertGroup(tx, project.project.id, name);
          await recordInTx(tx, entityChangeEvent(actor, 'group', `${projectName}/${name}`, undefined, { ...groupDto(row) }, { projectName }));
          return row;
        }));
      } catch (err) {
        if (isUniqueViolation(err)) throw groupExists(name, projectName); // a concurrent create
        throw err;
      }
    },

    async rename(projectName, groupName, input, actor) {
      const name = validName(input);
      const project = await permitted(projectName, 'PROJECT.UPDATE', actor);
      const group = await existingGroup(project, groupName);
      if (name === group.name) return groupDto(group);
      if (await findGroup(db, project.project.id, name)) throw groupExists(name, projectName);
      try {
        return groupDto(await db.transaction(async (tx) => {
          const row = await renameGroup(tx, group.id, name);
          await recordInTx(tx, entityChangeEvent(actor, 'group', `${projectName}/${name}`, { ...groupDto(group) }, { ...groupDto(row) }, { projectName }));
          return row;
        }));
      } catch (err) {
        if (isUniqueViolation(err)) throw groupExists(name, projectName); // a concurrent create or rename
        throw err;
      }
    },

    async remove(projectName, groupName, unlinkSubjects, actor) {
      const project = await permitted(projectName, 'PROJECT.UPDATE', actor);
      const group = await existingGroup(project, groupName);
      await db.transaction(async (tx) => {
        if (!unlinkSubjects && await countSubjectsInGroup(tx, group.id) > 0) {
          throw new Conflict(`Group ${groupName} has subjects. Add \`unlinkSubjects=true\` query param to confirm deletion`, ENTITY, 'error.validation');
        }
        await deleteGroup(tx, group.id);
        await recordInTx(tx, entityChangeEvent(actor, 'group', `${projectName}/${groupName}`, { ...groupDto(group) }, undefined, { projectName }));
      });
    },

    async patchSubjects(projectName, groupName, operations, actor) {
      const project = await permitted(projectName, 'SUBJECT.UPDATE', actor);
      const added: SubjectRefT[] = [];
      const removed: SubjectRefT[] = [];
      for (const operation of operations) {
        if (operation.op === 'add') added.push(...operation.value ?? []);
        else if (operation.op === 'remove') removed.push(...operation.value ?? []);
        else throw new BadRequest(`Group patch operation '${operation.op}' is not supported`, ENTITY, 'error.validation');
      }
      const group = await existingGroup(project, groupName);
      const [toAdd, toRemove] = [await subjectIds(added, project), await subjectIds(removed, project)];
      const modification = { by: actor.name, at: new Date(deps.now()) };
      await db.transaction(async (tx) => {
        await setSubjectsGroup(tx, group.id, toAdd, modification);
        await unsetSubjectsGroup(tx, group.id, toRemove, modification);
        await recordInTx(tx, {
          ...entityChangeEvent(actor, 'group', `${projectName}/${groupName}`, {}, {}, { projectName }),
          changes: {
            ...(added.length > 0 ? { subjectsAdded: { new: added.map((r) => r.login ?? r.id) } } : {}),
            ...(removed.length > 0 ? { subjectsRemoved: { new: removed.map((r) => r.login ?? r.id) } } : {}),
          },
        });
      });
    },
  };

  /** Ids of the subjects `refs` name, all of them participants of `project`. */
  async function subjectIds(refs: readonly SubjectRefT[], project: ProjectWithOrganization): Promise<number[]> {
    const ids: number[] = [];
    const logins: string[] = [];
    for (const ref of refs) {
      if (ref.id == null && ref.login == null) throw new BadRequest('Subject identification must be specified', ENTITY, 'error.validation');
      if (ref.id != null && ref.login != null) {
        throw new BadRequest('Subject identification must specify either ID or Login. Do not provide both values to avoid potential confusion.', ENTITY, 'error.validation');
      }
      if (ref.id != null) ids.push(ref.id);
      else logins.push(ref.login!);
    }
    const found = await findSubjects(db, ids, logins);
    const foundIds = new Set(found.map((s) => s.id));
    const foundLogins = new Set(found.map((s) => s.login));
    const missingId = ids.find((id) => !foundIds.has(id));
    if (missingId !== undefined) throw new NotFound('Subject not found with id', 'subject', 'error.subjectNotFound', { id: String(missingId) });
    const missingLogin = logins.find((login) => !foundLogins.has(login));
    if (missingLogin !== undefined) throw new NotFound('Subject not found with login', 'subject', 'error.subjectNotFound', { login: missingLogin });
    for (const subject of found) {
      if (subject.projectIds.length === 0) throw new BadRequest(`Subject ${subject.login} is not assigned to a project`, 'subject', 'error.validation');
      if (!subject.projectIds.includes(project.project.id)) {
        throw new BadRequest(`Subject ${subject.login} belongs to a different project`, 'subject', 'error.validation');
      }
    }
    return found.map((s) => s.id);
  }
}
