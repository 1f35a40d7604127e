/**
 * Periodic clean-up of the management domain's short-lived rows: expired refresh-token records,
 * sign-in sessions, authorization codes and consent approvals (an expired one can never be used again, its JWT or
 * row having expired). Each job is one idempotent DELETE, so several instances may run it at once;
 * a failure is logged and retried at the next interval. Further jobs (meta-tokens, accounts never
 * activated) join the list.
 */
import type { FastifyBaseLogger } from 'fastify';
import { AsyncTask, SimpleIntervalJob, ToadScheduler } from 'toad-scheduler';
import type { Database } from '../platform/database.js';
import { sqlState } from '../platform/database.js';
import { deleteExpiredApprovals, deleteExpiredCodes } from './oauth/authorize/queries.js';
import { deleteExpiredRefreshTokens } from './oauth/queries.js';
import { deleteExpiredSessions } from './session/queries.js';

/** How often the jobs run. */
export const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

export interface MaintenanceJob {
  name: string;
  /** Deletes what is stale at `now`; returns how many rows went. */
  run(db: Database, now: Date): Promise<number>;
}

export const OAUTH_CLEANUP_JOBS: readonly MaintenanceJob[] = [
  { name: 'expired refresh tokens', run: deleteExpiredRefreshTokens },
  { name: 'expired sign-in sessions', run: deleteExpiredSessions },
  { name: 'expired authorization codes', run: deleteExpiredCodes },
  { name: 'expired consent approvals', run: deleteExpiredApprovals },
];

/** Runs every job once (tests call this directly). */
export async function runMaintenance(db: Database, jobs: readonly MaintenanceJob[], now: Date, log: FastifyBaseLogger): Promise<void> {
  for (const job of jobs) {
    try {
      const removed = await job.run(db, now);
      if (removed > 0) log.info({ job: job.name, removed }, 'maintenance');
    } catch (err) {
      log.error({ job: job.name, sqlState: sqlState(err) }, 'maintenance job failed; retried at the next interval');
    }
  }
}

/** Starts the jobs every `intervalMs` (first run after one interval); returns the stop function. */
export function startMaintenance(deps: { db: Database; jobs: readonly MaintenanceJob[]; intervalMs: number; now: () => number; log: FastifyBaseLogger }): () => void {
  const toad = new ToadScheduler();
  const task = new AsyncTask('management-maintenance', () => runMaintenance(deps.db, deps.jobs, new Date(deps.now()), deps.log),
    (err) => deps.log.error({ err }, 'maintenance failed'));
  toad.addSimpleIntervalJob(new SimpleIntervalJob({ milliseconds: deps.intervalMs }, task, { id: 'management-maintenance', preventOverrun: true }));
  return () => toad.stop();
}
