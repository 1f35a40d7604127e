/** Schemas of the management API's public endpoints (managementportal.md §2.3, §2.11). */
import { Type, type Static } from 'typebox';
import { SourceTypeRef } from '../source-types/dto.js';

/** `PublicProjectDTO` (NON_NULL): what anyone may know of a project. */
export const PublicProjectDto = Type.Object({
  projectName: Type.String(),
  description: Type.String(),
  sourceTypes: Type.Array(SourceTypeRef, { description: 'MinimalSourceTypeDTO: id, model, producer, catalogVersion' }),
}, { description: 'A project as the public sees it' });
export type PublicProjectDtoT = Static<typeof PublicProjectDto>;

export const ProfileInfo = Type.Object({
  activeProfiles: Type.Array(Type.String(), { description: '`dev` or `prod`' }),
}, { description: 'The active profile' });

export const SiteSettings = Type.Object({
  hiddenSubjectFields: Type.Array(Type.String(), { description: 'Subject fields the UI hides (`person_name`, `date_of_birth`, `group`)' }),
}, { description: 'Settings the UI reads before sign-in' });
