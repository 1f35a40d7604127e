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

export const AuditsQuery = Type.Object({
  ...PageQuery.properties,
  fromDate: Type.Optional(Type.String({ format: 'date', description: 'First day (UTC), `YYYY-MM-DD`' })),
  toDate: Type.Optional(Type.String({ format: 'date', description: 'Last day (UTC, included), `YYYY-MM-DD`' })),
});

export const AuditParams = Type.Object({ id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) });
