/**
 * Use cases of `/api/users` (the reference's `UserResource` + `UserService`, managementportal.md
 * §2.2). Every change records a revision (entity type `user`, plus `role` for roles it had to
 * create) in its transaction, so a refused role change leaves nothing behind.
 *
 * Reference bugs fixed (§15):
 * - 5: `POST /api/users` answers the `UserDTO`, never the entity with its reset key.
 * - 7: `USER.*` of a non-personal role reaches only users with a role in that role's project or
 *   organization (the oracle gets the target user's referents); a new user is judged by the roles
 *   it is given, so a user without roles can only be created by a system admin (or a client).
 *   Changing another user (update, delete, roles) needs the permission on every scope that user
 *   holds a role in (issue 28 item 1, roles/checks.ts `requireUserChange`).
 * - `PUT /api/users` said `error.emailexists` for a login taken by another user; it says
 *   `error.userexists`, as `POST` does.
 */
import type { Database, Executor } from '../../../platform/database.js';
import { referentsOf } from '../../authz/oracle.js';
import { BadRequest, Forbidden, NotFound } from '../../errors.js';
import type { Page } from '../../http/paging.js';
import { requireField } from '../../http/validation.js';
import { generateResetKey } from '../../security/password-rules.js';
import { recordRevision, type EntityChange } from '../revisions/queries.js';
import { mayChangeUser, requirePermission, requireRoleChange, requireUserChange, userReferentsOf } from '../roles/checks.js';
import { roleDto, type RoleDtoT } from '../roles/dto.js';
import { replaceUserRoles, roleRefsOfUsers, type RoleRef } from '../roles/queries.js';
import type { RoleInputT } from '../roles/schemas.js';
import { AUTHORITY_DTOS, findOrCreateRole, roleChange } from '../roles/service.js';
import { authorName } from '../../security/authorization.js';
import type { RevisionType, UserRow } from '../../schema.js';
import type { MpAuth } from '../../security/principal.js';
import { findClient } from '../../oauth/clients/queries.js';
import { endCredentialsOfUser } from '../../oauth/user-credentials.js';
import { userDto, type ManagedUserInputT, type UserDtoT, type UsersQueryT } from './schemas.js';
import {
  deleteUserById, findSubjectOfUser, findUserByEmail, findUserById, insertUser, loadUserDtos, searchUsers, updateUserRow, type UserCriteria,
  type UserSort, type UserVisibility,
} from './queries.js';
import { findUserByLogin } from '../../security/queries.js';

const ENTITY = 'userManagement';

/** What the account-creation e-mail needs of a new user (the reference's `MailService.sendCreationEmail`). */
export interface CreatedUser {
  login: string;
  email: string | null;
  firstName: string | null;
  langKey: string;
  /** The key of the activation link (`/reset/finish?key=`); valid from `resetDate`. */
  resetKey: string;
  resetDate: Date;
}

export interface UserServiceDeps {
  db: Database;
  now: () => number;
  /** Called after a user is created and committed (sends the creation e-mail); must not throw. */
  onUserCreated?: (user: CreatedUser) => void | Promise<void>;
}

export interface UserService {
  /** One page of the non-participant users the actor may see, filtered as the reference's `UserFilter`. */
  list(actor: MpAuth, query: UsersQueryT, page: Page<UserSort>): Promise<{ users: UserDtoT[]; total: number }>;
  /** @throws AccessDenied without USER.READ on the user; NotFound `error.entityNotFound` */
  get(actor: MpAuth, login: string): Promise<UserDtoT>;
  /**
   * The user as `get` reads it, for a page that offers to change it: also refused unless the actor
   * could make that change (`requireUserChange`).
   * @throws AccessDenied; NotFound
   */
  getForChange(actor: MpAuth, login: string, permission: 'USER.UPDATE' | 'USER.DELETE'): Promise<UserDtoT>;
  /**
   * Which of `users` (as `list` returned them) the actor may update and delete, by the checks
   * `update` and `remove` make (`requireUserChange`: the permission on every project, organization
   * and global scope the user holds a role in), keyed by login. One read of their roles.
   */
  changesAllowed(actor: MpAuth, users: readonly UserDtoT[]): Promise<Map<string, { update: boolean; delete: boolean }>>;
  /**
   * Creates an inactive user with a random password and a fresh reset key (the activation link).
   * @throws BadRequest `error.idexists`, `error.userexists`, `error.emailexists`, `error.invalidAuthority`,
   *   `error.loginisclientid` (the login is an OAuth client's id);
   *   NotFound `error.invalidAuthority` (unknown project or organization); AccessDenied
   */
  create(actor: MpAuth, input: ManagedUserInputT): Promise<UserDtoT>;
  /**
   * Replaces names, e-mail, language, activation and (when `roles` is given) the roles of the user
   * with `input.id`; the login never changes. Deactivating, or taking a role away, ends the user's
   * sign-in sessions (but the actor's own, for a role) and revokes its refresh-token chains.
   * @throws ValidationFailed without id; NotFound; BadRequest `error.emailexists` / `error.userexists`;
   *   Forbidden `error.invalidsubjectstate` when activating a removed subject; AccessDenied
   */
  update(actor: MpAuth, input: ManagedUserInputT): Promise<UserDtoT>;
  /**
   * Deletes a user and its sign-in sessions; an unknown login is no error (idempotent).
   * @throws Forbidden `error.invalidsubjectstate` for a participant (deleted through its subject); AccessDenied
   */
  remove(actor: MpAuth, login: string): Promise<void>;
  /** @throws AccessDenied without ROLE.READ on the user; NotFound */
  getRoles(actor: MpAuth, login: string): Promise<RoleDtoT[]>;
  /**
   * Makes `roles` the user's roles; ROLE.UPDATE is needed on each role given or taken. Taking a
   * role away ends the user's sign-in sessions (but the actor's own) and refresh-token chains.
   * @throws NotFound; BadRequest/NotFound `error.invalidAuthority`; AccessDenied
   */
  setRoles(actor: MpAuth, login: string, roles: readonly RoleInputT[]): Promise<void>;
  /**
   * Takes one project role from the user, as `setRoles` with the user's roles but that one (the
   * admin UI's "Remove" on a project's admins tab): the same checks, revision, audit event and end
   * of the user's other credentials, in one transaction.
   * @throws NotFound `error.entityNotFound` (no such user), `error.roleNotFound` (the user does not
   *   hold `authorityName` in `projectName`); AccessDenied
   */
  removeProjectRole(actor: MpAuth, login: string, projectName: string, authorityName: string): Promise<void>;
}

const notFound = (login: string) => new NotFound('User not found with login', ENTITY, 'error.entityNotFound', { user: login });

const userChange = (dto: UserDtoT, revisionType: RevisionType): EntityChange =>
  ({ entityType: 'user', entityId: dto.id, entityKey: dto.login, revisionType, entity: dto });

/** A query value the reference's `PredicateBuilder.isValidValue` accepts (not blank, not "null"). */
const valid = (value: string | undefined) => (value !== undefined && value.trim() !== '' && value !== 'null' ? value : undefined);

function criteriaOf(query: UsersQueryT): UserCriteria {
  const authority = valid(query.authority)?.trim().toUpperCase();
  return {
    login: valid(query.login),
    email: valid(query.email),
    name: valid(query.name),
    projectName: valid(query.projectName),
    organization: valid(query.organization),
    authorities: AUTHORITY_DTOS
      .filter((a) => authority === undefined || a.name.includes(authority))
      .map((a) => ({ name: a.name, scope: a.scope as UserCriteria['authorities'][number]['scope'] })),
    allowNoRole: authority === undefined,
    includeUpperLevels: query.includeUpperLevels ?? false,
  };
}

function visibilityOf(actor: MpAuth): UserVisibility {
  const referents = referentsOf(actor, 'USER.READ');
  if (referents.global) return { global: true };
  return { global: false, self: actor.userName, projects: [...referents.projects], organizations: [...referents.organizations] };
}

export function createUserService(deps: UserServiceDeps): UserService {
  const { db } = deps;
  const now = () => new Date(deps.now());

  /** A user by login with its roles (none when unknown): what the USER checks need. */
  async function target(tx: Executor, login: string): Promise<{ user: UserRow | undefined; roles: RoleRef[] }> {
    const user = await findUserByLogin(tx, login);
    return { user, roles: user ? await roleRefsOfUsers(tx, [user.id]) : [] };
  }

  /** The roles `inputs` name, deduplicated and ordered by id; missing ones are created. */
  async function resolveRoles(tx: Executor, inputs: readonly RoleInputT[]) {
    const byId = new Map<number, { role: RoleRef; created: boolean }>();
    for (const input of inputs) {
      const resolved = await findOrCreateRole(tx, input, ENTITY);
      if (!byId.has(resolved.role.id)) byId.set(resolved.role.id, resolved);
    }
    return [...byId.values()].sort((a, b) => a.role.id - b.role.id);
  }

  /**
   * Replaces a user's roles after checking ROLE.UPDATE on every role given or taken and, when
   * anything changes, on every scope the user held a role in (requireUserChange).
   */
  async function applyRoles(tx: Executor, actor: MpAuth, user: UserRow, current: readonly RoleRef[], inputs: readonly RoleInputT[]) {
    const resolved = await resolveRoles(tx, inputs);
    return changeRoles(tx, actor, user, current, resolved);
  }

  /** `applyRoles` of roles already resolved. */
  async function changeRoles(tx: Executor, actor: MpAuth, user: UserRow, current: readonly RoleRef[], resolved: readonly { role: RoleRef; created: boolean }[]) {
    const next = new Set(resolved.map((r) => r.role.id));
    const previous = new Set(current.map((r) => r.id));
    const added = resolved.filter(({ role }) => !previous.has(role.id)).map((r) => r.role);
    const removed = current.filter((role) => !next.has(role.id));
    if (added.length > 0 || removed.length > 0) requireUserChange(actor, 'ROLE.UPDATE', user.login, current);
    for (const role of [...added, ...removed]) requireRoleChange(actor, role);
    await replaceUserRoles(tx, user.id, [...next]);
    return { roles: resolved.map((r) => r.role), created: resolved.filter((r) => r.created).map((r) => r.role), removed: removed.length > 0 };
  }

  /** The end of `setRoles` and `removeProjectRole`: credentials ended on a removal, the user's revision and its audit event. */
  async function rolesChanged(tx: Executor, actor: MpAuth, user: UserRow, roles: Awaited<ReturnType<typeof changeRoles>>, at: Date) {
    const author = authorName(actor);
    // A role taken away ends the user's other credentials (as in `update`).
    if (roles.removed) await endCredentialsOfUser(tx, user.login, at, actor.sessionId);
    const row = await updateUserRow(tx, user.id, { lastModifiedBy: author, lastModifiedDate: at });
    const dto = userDto(row, roles.roles.map(roleDto));
    await recordRevision(tx, { name: author, address: actor.address }, [userChange(dto, 'MOD'), ...roles.created.map((r) => roleChange(r, 'ADD'))], at);
  }

  return {
    async list(actor, query, page) {
      const { rows, total } = await searchUsers(db, criteriaOf(query), visibilityOf(actor), page);
      return { users: await loadUserDtos(db, rows, query.includeProvenance ?? true), total };
    },

    async get(actor, login) {
      const { user, roles } = await target(db, login);
      requirePermission(actor, 'USER.READ', { user: login, userReferents: userReferentsOf(roles) });
      if (!user) throw notFound(login);
      return userDto(user, roles.map(roleDto));
    },

    async getForChange(actor, login, permission) {
      const { user, roles } = await target(db, login);
      requirePermission(actor, 'USER.READ', { user: login, userReferents: userReferentsOf(roles) });
      requireUserChange(actor, permission, login, roles);
      if (!user) throw notFound(login);
      return userDto(user, roles.map(roleDto));
    },

    async changesAllowed(actor, users) {
      const refs = await roleRefsOfUsers(db, users.map((user) => user.id));
      return new Map(users.map((user) => {
        const roles = refs.filter((ref) => ref.userId === user.id);
        return [user.login, { update: mayChangeUser(actor, 'USER.UPDATE', user.login, roles), delete: mayChangeUser(actor, 'USER.DELETE', user.login, roles) }];
      }));
    },

    async create(actor, input) {
      if (input.id != null) throw new BadRequest('A new user cannot already have an ID', ENTITY, 'error.idexists');
      const login = input.login.toLowerCase();
      const resetKey = generateResetKey();
      const at = now();
      const author = authorName(actor);
      const created = await db.transaction(async (tx) => {
        const resolved = await resolveRoles(tx, input.roles ?? []);
        const roles = resolved.map((r) => r.role);
        requirePermission(actor, 'USER.CREATE', { user: login, userReferents: userReferentsOf(roles) });
        for (const role of roles) requireRoleChange(actor, role);
        if (await findUserByLogin(tx, login)) throw new BadRequest('Login already in use', ENTITY, 'error.userexists');
        // radar-auth reads a token whose `sub` is its `client_id` as the client's own, without the user's roles.
        if (await findClient(tx, login)) throw new BadRequest('Login is the id of an OAuth client', ENTITY, 'error.loginisclientid');
        if (input.email != null && await findUserByEmail(tx, input.email)) throw new BadRequest('Email already in use', ENTITY, 'error.emailexists');
        const row = await insertUser(tx, {
          // No password until the reset link sets one (the reference hashed a random one: 100 ms of bcrypt for nothing).
          login, passwordHash: null, activated: false, resetKey, resetDate: at,
          firstName: input.firstName ?? null, lastName: input.lastName ?? null, email: input.email ?? null, langKey: input.langKey ?? 'en',
          createdBy: author, createdDate: at, lastModifiedBy: author, lastModifiedDate: at,
        });
        await replaceUserRoles(tx, row.id, roles.map((r) => r.id));
        const dto = userDto(row, roles.map(roleDto));
        await recordRevision(tx, { name: author, address: actor.address }, [userChange(dto, 'ADD'), ...resolved.filter((r) => r.created).map((r) => roleChange(r.role, 'ADD'))], at);
        return { dto, row };
      });
      const { row } = created;
      await deps.onUserCreated?.({ login: row.login, email: row.email, firstName: row.firstName, langKey: row.langKey ?? 'en', resetKey, resetDate: at });
      return created.dto;
    },

    async update(actor, input) {
      const id = requireField(input.id, 'managedUserVM', 'id');
      const at = now();
      const author = authorName(actor);
      return db.transaction(async (tx) => {
        const user = await findUserById(tx, id);
        if (!user) throw new NotFound('User not found with id', ENTITY, 'error.entityNotFound', { id: String(id) });
        const current = await roleRefsOfUsers(tx, [user.id]);
        requireUserChange(actor, 'USER.UPDATE', user.login, current);
        if (input.email != null) {
          const other = await findUserByEmail(tx, input.email);
          if (other && other.id !== id) throw new BadRequest('Email already in use', ENTITY, 'error.emailexists');
        }
        const sameLogin = await findUserByLogin(tx, input.login.toLowerCase());
        if (sameLogin && sameLogin.id !== id) throw new BadRequest('Login already in use', ENTITY, 'error.userexists');
        // An omitted `activated` keeps the state (the reference read it as false and deactivated the user).
        const activated = input.activated ?? user.activated;
        if (activated && (await findSubjectOfUser(tx, id))?.removed) {
          throw new Forbidden('Subject cannot be the user to request this changes', ENTITY, 'error.invalidsubjectstate');
        }
        // Roles omitted: unchanged (the reference dropped them all without checking ROLE.UPDATE).
        const roles = input.roles != null ? await applyRoles(tx, actor, user, current, input.roles) : { roles: current, created: [], removed: false };
        const row = await updateUserRow(tx, id, {
          firstName: input.firstName ?? null, lastName: input.lastName ?? null, email: input.email ?? null,
          langKey: input.langKey ?? null, activated, lastModifiedBy: author, lastModifiedDate: at,
        });
        // A deactivated user is signed out everywhere at once (session-auth also refuses it), and its
        // refresh-token chains stay revoked when it is activated again. A role taken away ends them
        // too (but the actor's own session); a role only added does not: the next refresh carries it.
        if (!activated) await endCredentialsOfUser(tx, row.login, at);
        else if (roles.removed) await endCredentialsOfUser(tx, row.login, at, actor.sessionId);
        const dto = userDto(row, roles.roles.map(roleDto));
        await recordRevision(tx, { name: author, address: actor.address }, [userChange(dto, 'MOD'), ...roles.created.map((r) => roleChange(r, 'ADD'))], at);
        return dto;
      });
    },

    async remove(actor, login) {
      await db.transaction(async (tx) => {
        const { user, roles } = await target(tx, login);
        requireUserChange(actor, 'USER.DELETE', login, roles);
        if (!user) return;
        if (await findSubjectOfUser(tx, user.id)) {
          // Deleting the account would delete the subject without its own checks and revision.
          throw new Forbidden('A subject\'s account is deleted with the subject', ENTITY, 'error.invalidsubjectstate');
        }
        const dto = userDto(user, roles.map(roleDto));
        await deleteUserById(tx, user.id);
        // Sessions and refresh tokens name the login: a later user of the same login must not inherit them.
        await endCredentialsOfUser(tx, user.login, now());
        await recordRevision(tx, { name: authorName(actor), address: actor.address }, [userChange(dto, 'DEL')], now());
      });
    },

    async getRoles(actor, login) {
      const { user, roles } = await target(db, login);
      requirePermission(actor, 'ROLE.READ', { user: login, userReferents: userReferentsOf(roles) });
      if (!user) throw notFound(login);
      return roles.map(roleDto);
    },

    async setRoles(actor, login, inputs) {
      const at = now();
      await db.transaction(async (tx) => {
        const { user, roles: current } = await target(tx, login);
        requireUserChange(actor, 'ROLE.UPDATE', login, current);
        if (!user) throw notFound(login);
        await rolesChanged(tx, actor, user, await applyRoles(tx, actor, user, current, inputs), at);
      });
    },

    async removeProjectRole(actor, login, projectName, authorityName) {
      const at = now();
      await db.transaction(async (tx) => {
        const { user, roles: current } = await target(tx, login);
        requireUserChange(actor, 'ROLE.UPDATE', login, current);
        if (!user) throw notFound(login);
        const role = current.find((r) => r.projectName === projectName && r.authorityName === authorityName);
        if (!role) {
          throw new NotFound('User does not hold that role in the project', ENTITY, 'error.roleNotFound', { user: login, projectName, authorityName });
        }
        const rest = current.filter((r) => r.id !== role.id).sort((a, b) => a.id - b.id).map((r) => ({ role: r, created: false }));
        await rolesChanged(tx, actor, user, await changeRoles(tx, actor, user, current, rest), at);
      });
    },
  };
}
