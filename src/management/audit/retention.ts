/**
 * Retention of the audit trail (`MANAGEMENTPORTAL_AUDIT_RETENTION`): a maintenance job (run hourly
 * with the others, stopped on close) deletes the events older than the period. Idempotent, so
 * every instance may run it.
 */
import type { CalendarPeriod } from '../../config.js';
import type { MaintenanceJob } from '../maintenance.js';
import { deleteAuditEventsBefore } from './queries.js';

/** `now` minus the period, in calendar terms (UTC): P1M before 31 March is 3 March, as `Date` rolls over. */
export function retentionCutoff(now: Date, period: CalendarPeriod): Date {
  const cutoff = new Date(now.getTime());
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - period.years, cutoff.getUTCMonth() - period.months, cutoff.getUTCDate() - period.days);
  return new Date(cutoff.getTime() - period.seconds * 1000);
}

export const auditRetentionJob = (period: CalendarPeriod): MaintenanceJob => ({
  name: 'audit events past retention',
  run: (db, now) => deleteAuditEventsBefore(db, retentionCutoff(now, period)),
});
