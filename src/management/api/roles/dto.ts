/** `RoleDTO` (NON_NULL): `{id, organizationId, organizationName, projectId, projectName, authorityName}`. */
import { Type, type Static } from 'typebox';
import { nonNull } from '../../http/json.js';

export const RoleDto = Type.Object({
  id: Type.Optional(Type.Integer()),
  organizationId: Type.Optional(Type.Integer()),
  organizationName: Type.Optional(Type.String()),
  projectId: Type.Optional(Type.Integer()),
  projectName: Type.Optional(Type.String()),
  authorityName: Type.Optional(Type.String()),
}, { description: 'A role: an authority on a project, an organization, or global' });
export type RoleDtoT = Static<typeof RoleDto>;

export interface RoleRow {
  id: number;
  authorityName: string;
  organizationId: number | null;
  organizationName: string | null;
  projectId: number | null;
  projectName: string | null;
}

export const roleDto = (row: RoleRow): RoleDtoT => nonNull({
  id: row.id, organizationId: row.organizationId, organizationName: row.organizationName,
  projectId: row.projectId, projectName: row.projectName, authorityName: row.authorityName,
});
