/** `RevisionInfoDTO` of `/api/revisions` (managementportal.md §2.11). */
import { Type, type Static } from 'typebox';

const byEntity = () => Type.Record(Type.String(), Type.Array(Type.Unknown()), {
  description: 'Entity type (`user`, `role`, `project`, `subject`, `source`, `sourcetype`, …) → the DTOs changed',
});

export const RevisionInfoDto = Type.Object({
  id: Type.Integer(),
  timestamp: Type.String({ format: 'date-time' }),
  author: Type.String(),
  changes: Type.Object({ ADD: byEntity(), MOD: byEntity(), DEL: byEntity() }, {
    description: 'By kind of change: added, modified and deleted entities (a deleted entity as it was)',
  }),
}, { description: 'A revision: who changed what, when (RevisionInfoDTO)' });
export type RevisionInfoDtoT = Static<typeof RevisionInfoDto>;

export const RevisionParams = Type.Object({ id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) });
