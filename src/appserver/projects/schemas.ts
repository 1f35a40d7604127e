import { Type, type Static } from 'typebox';
import { InstantOut, ref } from '../schemas.js';

export const ProjectDto = Type.Object({
  id: Type.Integer(),
  projectId: Type.String(),
  createdAt: InstantOut,
  updatedAt: InstantOut,
});

/** Request body: `id` is accepted so that its presence on create can be refused as the reference does. */
export const ProjectBody = Type.Object({
  id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  projectId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, { additionalProperties: false });

export const ProjectDtos = Type.Object({ projects: Type.Array(ref<typeof ProjectDto>('ProjectDto')) });

export type ProjectDtoT = Static<typeof ProjectDto>;
export type ProjectBodyT = Static<typeof ProjectBody>;
export const ProjectDtoRef = ref<typeof ProjectDto>('ProjectDto');
