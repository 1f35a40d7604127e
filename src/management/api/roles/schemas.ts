/** Request and response schemas of `/api/roles` and `/api/authorities` (managementportal.md §2.9). */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';

/** `Constants.ENTITY_ID_REGEX` of the reference. */
const ENTITY_ID = "^[_'.@A-Za-z0-9- ]*$";
const id = () => Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })));
const name = () => Type.Optional(nullable(Type.String({ maxLength: 255 })));

/**
 * `RoleDTO` as sent: an authority with its referent. Project roles need `projectId` (or
 * `projectName`), organization roles `organizationId` (or `organizationName`), global roles none.
 */
export const RoleInput = Type.Object({
  id: id(),
  authorityName: name(),
  projectId: id(),
  projectName: name(),
  organizationId: id(),
  organizationName: name(),
}, { additionalProperties: false, description: 'RoleDTO as sent' });
export type RoleInputT = Static<typeof RoleInput>;

export const RoleParams = Type.Object({
  projectName: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 255 }),
  authorityName: Type.String({ pattern: ENTITY_ID, minLength: 1, maxLength: 50 }),
});

export const AuthorityDto = Type.Object({
  name: Type.String({ examples: ['ROLE_PROJECT_ADMIN'] }),
  scope: Type.String({ description: 'GLOBAL, ORGANIZATION or PROJECT' }),
}, { description: 'An authority a role can carry (AuthorityDTO)' });
export type AuthorityDtoT = Static<typeof AuthorityDto>;
