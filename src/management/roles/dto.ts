/** `RoleDTO` (NON_NULL): `{id, organizationId, organizationName, projectId, projectName, authorityName}`. */
import { eq, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Executor } from '../../platform/database.js';
import { nonNull } from '../http/json.js';
import { organizations, projects, roles, roleUsers } from '../schema.js';

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

/** The columns of a `RoleRow` (join `projects` and `organizations` on the role's referent). */
export const roleColumns = {
  id: roles.id,
  authorityName: roles.authorityName,
  organizationId: roles.organizationId,
  organizationName: organizations.name,
  projectId: roles.projectId,
  projectName: projects.projectName,
};

/** Roles of many users at once: user id → role DTOs (ordered by role id). */
export async function loadRoleDtos(db: Executor, userIds: readonly number[]): Promise<Map<number, RoleDtoT[]>> {
  const result = new Map<number, RoleDtoT[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return result;
  const rows = await db.select({ userId: roleUsers.userId, ...roleColumns }).from(roleUsers)
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .where(inArray(roleUsers.userId, [...userIds]))
    .orderBy(roles.id);
  for (const row of rows) result.get(row.userId)?.push(roleDto(row));
  return result;
}
