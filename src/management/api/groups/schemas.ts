/** Schemas of `/api/projects/{projectName}/groups` (managementportal.md §2.8). */
import { Type, type Static } from 'typebox';
import { nullable } from '../../../platform/schemas.js';
import { EntityId } from '../../http/ids.js';
import { ENTITY_ID_PATTERN } from '../projects/schemas.js';

const projectName = Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 255 });

export const GroupsParams = Type.Object({ projectName });
export const GroupParams = Type.Object({ projectName, groupName: Type.String({ pattern: ENTITY_ID_PATTERN, minLength: 1, maxLength: 50 }) });

/** `GroupDTO` (NON_NULL); `id` and `projectId` of the input are ignored. */
export const GroupInput = Type.Object({
  id: Type.Optional(nullable(EntityId())),
  projectId: Type.Optional(nullable(EntityId())),
  name: Type.Optional(nullable(Type.String({ maxLength: 255, description: '1–50 characters, `^[_\'.@A-Za-z0-9- ]*$`; unique in the project' }))),
}, { additionalProperties: false, description: 'GroupDTO as sent on create' });
export type GroupInputT = Static<typeof GroupInput>;

export const GroupDto = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  name: Type.String(),
}, { description: 'A group of subjects in a project' });
export type GroupDtoT = Static<typeof GroupDto>;

export const GroupDeleteQuery = Type.Object({
  unlinkSubjects: Type.Optional(Type.Boolean({ default: false, description: 'Also when subjects are in the group (they leave it)' })),
});

const SubjectRef = Type.Object({
  id: Type.Optional(nullable(EntityId())),
  login: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
}, { additionalProperties: false, description: 'A subject by `id` or by `login` (not both)' });
export type SubjectRefT = Static<typeof SubjectRef>;

export const GroupSubjectsPatch = Type.Array(Type.Object({
  op: Type.Optional(nullable(Type.String({ maxLength: 50, description: '`add` or `remove`' }))),
  value: Type.Optional(nullable(Type.Array(SubjectRef, { maxItems: 10_000 }))),
}, { additionalProperties: false }), { maxItems: 100, description: 'JSON-patch-like operations on the group\'s subjects' });
export type GroupSubjectsPatchT = Static<typeof GroupSubjectsPatch>;
