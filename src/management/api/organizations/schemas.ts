/** Schemas of `/api/organizations` (managementportal.md §2.4); the request body is projects/schemas.ts's `OrganizationInput`. */
import { Type, type Static } from 'typebox';
import { ProjectDto } from '../projects/dto.js';
import { ENTITY_ID_PATTERN } from '../projects/schemas.js';

export const OrganizationNameParams = Type.Object({
  name: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 }),
});

/** `OrganizationDTO` (NON_NULL) with its projects in the reduced form. */
export const OrganizationWithProjectsDto = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  location: Type.String(),
  projects: Type.Array(ProjectDto, { description: 'The projects the caller may see (reduced: no organization, no source types)' }),
}, { description: 'An organization' });
export type OrganizationWithProjectsDtoT = Static<typeof OrganizationWithProjectsDto>;
