/** Spring Boot's `AuditEvent` as `/management/audits` writes it (managementportal.md §2.11). */
import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/paging.js';

export const AuditEventDto = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  principal: Type.String(),
  type: Type.String({ examples: ['AUTHENTICATION_SUCCESS', 'GRANT_ACCESS_TOKEN'] }),
  data: Type.Record(Type.String(), Type.String()),
}, { description: 'An audit event (AuditEvent)' });
export type AuditEventDtoT = Static<typeof AuditEventDto>;

/** The filters beyond the reference's date range (issue 31 item 8), shared with the admin UI's page. */
export const AuditFilterQuery = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 64, description: 'Only events of this kind (`AUTHENTICATION_FAILURE`, `ENTITY_UPDATED`…)' })),
  principal: Type.Optional(Type.String({ maxLength: 256, description: 'Only events of this actor (user login or client id)' })),
  targetType: Type.Optional(Type.String({ maxLength: 64, description: 'Only events about entities of this type (`subject`, `project`, `user`, `oauthClient`…)' })),
  target: Type.Optional(Type.String({ maxLength: 256, description: 'Only events about the entity with this id, login or name' })),
});
export type AuditFilterQueryT = Static<typeof AuditFilterQuery>;

export const AuditsQuery = Type.Object({
  ...PageQuery.properties,
  fromDate: Type.Optional(Type.String({ format: 'date', description: 'First day (UTC), `YYYY-MM-DD`' })),
  toDate: Type.Optional(Type.String({ format: 'date', description: 'Last day (UTC, included), `YYYY-MM-DD`' })),
  ...AuditFilterQuery.properties,
});

export const AuditParams = Type.Object({ id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) });
