/**
 * When schedules are generated (§6.4, fixed): after a user is created or updated (once the
 * request has committed, in the background: it never fails the request), after a protocol
 * refresh found a change, and every QUESTIONNAIRE_SCHEDULE_INTERVAL_SECONDS in one process of
 * all (the job lease in schedules/queries.ts), the first run at start.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AsyncTask, SimpleIntervalJob, ToadScheduler } from 'toad-scheduler';
import type { AppserverEventBus } from '../events.js';
import type { ProtocolSource } from './protocol.js';
import { logGenerationFailure, type ScheduleService } from './service.js';

export function startScheduleRuns(app: FastifyInstance, deps: { schedules: ScheduleService; events: AppserverEventBus; protocols: ProtocolSource; intervalSeconds: number }) {
  const { schedules, events, protocols, intervalSeconds } = deps;
  const log = app.logLevels.component('schedules');
  const holder = randomUUID();
  const toad = new ToadScheduler();
  const pending = new Set<Promise<unknown>>();
  let closing = false;
  const track = (work: Promise<unknown>) => {
    pending.add(work);
    // Only bookkeeping: whoever started the work handles its failure.
    const done = () => { pending.delete(work); };
    work.then(done, done);
  };

  const unsubscribeUsers = events.subscribe('user.saved', ({ userId, projectId, subjectId }) => {
    if (closing) return;
    track(schedules.generateForUser(userId, 'auto')
      .catch((err: unknown) => logGenerationFailure(log, err, { projectId, subjectId }, 'schedule generation after a user change failed')));
  });
  const unsubscribeProtocols = protocols.onChange(() => {
    if (closing) return;
    track(schedules.runForProtocolChange().catch((err: unknown) => log.error({ reason: (err as Error).message }, 'schedule run after a protocol change failed')));
  });

  if (intervalSeconds > 0) {
    const task = new AsyncTask('questionnaire-schedule', async () => {
      if (closing) return;
      const run = schedules.runInterval(holder, intervalSeconds * 1000);
      track(run);
      await run;
    }, (err) => log.error({ reason: err.message }, 'questionnaire schedule run failed'));
    app.addHook('onReady', async () => {
      toad.addSimpleIntervalJob(new SimpleIntervalJob({ seconds: intervalSeconds, runImmediately: true }, task, { id: 'questionnaire-schedule', preventOverrun: true }));
    });
  }
  app.addHook('onClose', async () => {
    closing = true;
    toad.stop();
    unsubscribeUsers();
    unsubscribeProtocols();
    await Promise.allSettled([...pending]);
  });
}
