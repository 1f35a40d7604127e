/**
 * Use cases of `/api/roles` and `/api/authorities` (the reference's `RoleService`,
 * managementportal.md §2.9), and the role resolution the user use cases share: a `RoleDTO` names
 * an authority and its referent, and there is one role row per (authority, referent).
 *
 * Every change records a revision (entity type `role`) in its transaction.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { referentsOf } from '../../authz/oracle.js';
import { ROLES, type Authority } from '../../authz/permissions.js';
import { BadRequest, Conflict, NotFound } from '../../errors.js';
import { recordRevision, type EntityChange } from '../revisions/queries.js';
import type { RevisionType } from '../../schema.js';
import { authorName } from '../../security/authorization.js';
import type { MpAuth } from '../../security/principal.js';
import { requirePermission, roleEntity } from './checks.js';
import { roleDto, type RoleDtoT } from './dto.js';
import {
  findOrganizationRef, findProjectRef, findRoleRef, findRoleRefByKey, findRoleRefByProjectAndAuthority, insertRole,
  listRoleRefs, rolesByAuthority, updateRole, type RoleRef,
} from './queries.js';
import type { AuthorityDtoT, RoleInputT } from './schemas.js';

const ENTITY = 'role';

/** What a revision names as its author: the user, or the client of a client-credentials token. */

/** The authorities a role can be given in the UI: every non-personal one (participants are made through subjects). */
export const AUTHORITY_DTOS: readonly AuthorityDtoT[] = [...ROLES.values()]
  .filter((role) => !role.personal)
  .map((role) => ({ name: role.authority, scope: role.scope }));

/** A role's revision change; its key reads like a token's `roles` claim (`radar:ROLE_PROJECT_ADMIN`). */
export function roleChange(role: RoleRef, revisionType: RevisionType): EntityChange {
  const referent = role.projectName ?? role.organizationName;
  return {
    entityType: 'role', entityId: role.id, revisionType, entity: roleDto(role),
    entityKey: referent !== null ? `${referent}:${role.authorityName}` : role.authorityName,
  };
}

interface RoleTarget {
  authorityName: Authority;
  projectId: number | null;
  organizationId: number | null;
}

/**
 * Reads the authority and referent of a `RoleDTO`, as the reference's `getRoleAuthority`.
 * @throws BadRequest `error.invalidAuthority` for an unknown authority or a missing referent;
 *   NotFound `error.invalidAuthority` when the project or organization does not exist
 */
async function roleTarget(db: Executor, input: RoleInputT, entityName: string): Promise<RoleTarget> {
  const authorityName = input.authorityName ?? '';
  const def = ROLES.get(authorityName as Authority);
  if (!def) throw new BadRequest('Authority not found with authorityName', entityName, 'error.invalidAuthority', { authorityName: String(input.authorityName) });
  const params = (key: string, value: unknown) => ({ authorityName, [key]: String(value) });
  switch (def.scope) {
    case 'GLOBAL':
      return { authorityName: def.authority, projectId: null, organizationId: null };
    case 'ORGANIZATION': {
      const ref = input.organizationId ?? input.organizationName;
      if (ref == null) throw new BadRequest('Authority with authorityName should have organization ID', entityName, 'error.invalidAuthority', { authorityName });
      const org = await findOrganizationRef(db, typeof ref === 'number' ? { id: ref } : { name: ref });
      if (!org) throw new NotFound('Cannot find organization for authority', entityName, 'error.invalidAuthority', params('organizationId', ref));
      return { authorityName: def.authority, projectId: null, organizationId: org.id };
    }
    case 'PROJECT': {
      const ref = input.projectId ?? input.projectName;
      if (ref == null) throw new BadRequest('Authority with authorityName should have project ID', entityName, 'error.invalidAuthority', { authorityName });
      const project = await findProjectRef(db, typeof ref === 'number' ? { id: ref } : { name: ref });
      if (!project) throw new NotFound('Cannot find project for authority', entityName, 'error.invalidAuthority', params('projectId', ref));
      return { authorityName: def.authority, projectId: project.id, organizationId: null };
    }
  }
}

/**
 * The role a `RoleDTO` names, created when missing (the reference's `getProjectRole` & co).
 * Call inside the caller's transaction; `created` roles belong in its revision.
 * @throws as `roleTarget`
 */
export async function findOrCreateRole(db: Executor, input: RoleInputT, entityName: string): Promise<{ role: RoleRef; created: boolean }> {
  const target = await roleTarget(db, input, entityName);
  const existing = await findRoleRefByKey(db, target.authorityName, target);
  if (existing) return { role: existing, created: false };
  const id = await insertRole(db, target);
  // A concurrent request may have created it between the look-up and the insert.
  const role = id !== undefined ? await findRoleRef(db, id) : await findRoleRefByKey(db, target.authorityName, target);
  return { role: role!, created: id !== undefined };
}

export interface RoleService {
  /** Roles the actor may read: all for global readers, else those of its projects and organizations. */
  list(actor: MpAuth): Promise<RoleDtoT[]>;
  /** The ROLE_SYS_ADMIN roles. */
  admins(): Promise<RoleDtoT[]>;
  /** @throws AccessDenied without ROLE.READ on the project; NotFound `error.entityNotFound` */
  get(actor: MpAuth, projectName: string, authorityName: string): Promise<RoleDtoT>;
  /**
   * @throws BadRequest `error.idexists` when an id is given, `error.invalidAuthority`;
   *   Conflict `error.roleExists` when the role exists
   */
  create(actor: MpAuth, input: RoleInputT): Promise<RoleDtoT>;
  /**
   * Changes the authority or referent of a role (all its users follow); without an id, creates.
   * @throws NotFound `error.entityNotFound`; Conflict `error.roleExists`; as `create`
   */
  update(actor: MpAuth, input: RoleInputT): Promise<{ role: RoleDtoT; created: boolean }>;
}

export function createRoleService(deps: { db: Database; now: () => number }): RoleService {
  const { db } = deps;
  const exists = (target: RoleTarget) =>
    new Conflict('Role already exists', ENTITY, 'error.roleExists', { authorityName: target.authorityName });

  async function create(actor: MpAuth, input: RoleInputT): Promise<RoleDtoT> {
    if (input.id != null) throw new BadRequest('A new role cannot already have an ID', ENTITY, 'error.idexists');
    return db.transaction(async (tx) => {
      const target = await roleTarget(tx, input, ENTITY);
      const id = await insertRole(tx, target);
      if (id === undefined) throw exists(target);
      const role = (await findRoleRef(tx, id))!;
      requirePermission(actor, 'ROLE.CREATE', roleEntity(role));
      await recordRevision(tx, { name: authorName(actor), address: actor.address }, [roleChange(role, 'ADD')], new Date(deps.now()));
      return roleDto(role);
    });
  }

  return {
    async list(actor) {
      const referents = referentsOf(actor, 'ROLE.READ');
      const rows = await listRoleRefs(db, { global: referents.global, projects: [...referents.projects], organizations: [...referents.organizations] });
      return rows.map(roleDto);
    },
    async admins() {
      return (await rolesByAuthority(db, 'ROLE_SYS_ADMIN')).map(roleDto);
    },
    async get(actor, projectName, authorityName) {
      const project = await findProjectRef(db, { name: projectName });
      requirePermission(actor, 'ROLE.READ', { project: projectName, organization: project?.organizationName ?? null });
      const role = project && await findRoleRefByProjectAndAuthority(db, projectName, authorityName);
      if (!role) throw new NotFound('Role not found with projectName and authorityName', ENTITY, 'error.entityNotFound', { projectName, authorityName });
      return roleDto(role);
    },
    create,
    async update(actor, input) {
      if (input.id == null) return { role: await create(actor, input), created: true };
      const id = input.id;
      return db.transaction(async (tx) => {
        const existing = await findRoleRef(tx, id);
        if (!existing) throw new NotFound('Role not found with id', ENTITY, 'error.entityNotFound', { id: String(id) });
        const target = await roleTarget(tx, input, ENTITY);
        const clash = await findRoleRefByKey(tx, target.authorityName, target);
        if (clash && clash.id !== id) throw exists(target);
        await updateRole(tx, id, target);
        const role = (await findRoleRef(tx, id))!;
        requirePermission(actor, 'ROLE.UPDATE', roleEntity(existing));
        requirePermission(actor, 'ROLE.UPDATE', roleEntity(role));
        await recordRevision(tx, { name: authorName(actor), address: actor.address }, [roleChange(role, 'MOD')], new Date(deps.now()));
        return { role: roleDto(role), created: false };
      });
    },
  };
}
