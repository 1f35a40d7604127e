/** `UserDTO` and the request schemas of `/api/users` (managementportal.md §2.1–§2.2). */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { isoInstant } from '../../http/instants.js';
import { PageQuery } from '../../http/paging.js';
import { RoleDto, type RoleDtoT } from '../roles/dto.js';
import { RoleInput } from '../roles/schemas.js';
import type { UserRow } from '../../schema.js';

/** `Constants.ENTITY_ID_REGEX` of the reference. */
const ENTITY_ID = "^[_'.@A-Za-z0-9- ]*$";
const str = () => nullable(Type.String());
const instant = () => nullable(Type.String({ format: 'date-time' }));

/**
 * `UserDTO` (nulls written). Never carries the password hash, reset or activation key: the
 * response schema is the allow-list.
 */
export const UserDto = Type.Object({
  id: Type.Integer(),
  login: Type.String(),
  firstName: str(),
  lastName: str(),
  email: str(),
  activated: Type.Boolean(),
  langKey: str(),
  createdBy: str(),
  createdDate: instant(),
  lastModifiedBy: str(),
  lastModifiedDate: instant(),
  roles: Type.Array(RoleDto),
  authorities: Type.Array(Type.String()),
}, { description: 'A user account (UserDTO)' });
export type UserDtoT = Static<typeof UserDto>;


/** The DTO of a user with its roles; without provenance, the created/modified fields are null. */
export function userDto(row: UserRow, roles: RoleDtoT[], provenance = true): UserDtoT {
  return {
    id: row.id,
    login: row.login,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    activated: row.activated,
    langKey: row.langKey,
    createdBy: provenance ? row.createdBy : null,
    createdDate: provenance ? isoInstant(row.createdDate) : null,
    lastModifiedBy: provenance ? row.lastModifiedBy : null,
    lastModifiedDate: provenance ? isoInstant(row.lastModifiedDate) : null,
    roles,
    authorities: [...new Set(roles.map((r) => r.authorityName).filter((a): a is string => a !== undefined))],
  };
}

const nullableString = (opts: { minLength?: number; maxLength: number; format?: string }) => Type.Optional(nullable(Type.String(opts)));

/**
 * `ManagedUserVM` as sent (validated as the reference's `UserDTO` annotations say). Other fields
 * (`password`, `authorities`, provenance) are ignored.
 */
export const ManagedUserInput = Type.Object({
  id: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }))),
  login: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 50 }),
  firstName: nullableString({ maxLength: 50 }),
  lastName: nullableString({ maxLength: 50 }),
  email: nullableString({ format: 'email', minLength: 5, maxLength: 100 }),
  activated: Type.Optional(Type.Boolean()),
  langKey: nullableString({ minLength: 2, maxLength: 5 }),
  roles: Type.Optional(nullable(Type.Array(RoleInput, { maxItems: 200 }))),
}, { additionalProperties: false, description: 'ManagedUserVM as sent on create and update' });
export type ManagedUserInputT = Static<typeof ManagedUserInput>;

export const LoginParams = Type.Object({ login: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 50 }) });

export const RolesInput = Type.Array(RoleInput, { maxItems: 200, description: 'The user\'s new roles (a set)' });

const filter = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

export const UsersQuery = Type.Object({
  ...PageQuery.properties,
  login: filter('Part of the login (case-insensitive)'),
  email: filter('Part of the e-mail address (case-insensitive)'),
  name: filter('Part of the first and last name, joined by a space (case-insensitive; not in the reference)'),
  projectName: filter('Part of the name of a project the user has a role in'),
  organization: filter('Part of the name of an organization the user has a role in'),
  authority: filter('Part of an authority the user has (e.g. `PROJECT_ADMIN`)'),
  includeUpperLevels: Type.Optional(Type.Boolean({ description: 'With projectName or organization: also organization and system admins above it' })),
  includeProvenance: Type.Optional(Type.Boolean({ default: true, description: 'Whether to fill createdBy, createdDate, lastModifiedBy and lastModifiedDate' })),
});
export type UsersQueryT = Static<typeof UsersQuery>;
