/** The scheduler's Prometheus metrics, registered on the app's own registry (`app.metrics`). */
import { Counter, Histogram, type Registry } from '../../platform/prom.js';

export interface SchedulerMetrics {
  sent: Counter<'kind'>;
  errored: Counter<'kind' | 'error'>;
  retried: Counter<'kind'>;
  lateness: Histogram<'kind'>;
  emails: Counter<'result'>;
}

export function createSchedulerMetrics(registry: Registry): SchedulerMetrics {
  const registers = [registry];
  return {
    sent: new Counter({ name: 'appserver_messages_sent_total', help: 'Notifications and data messages FCM accepted', labelNames: ['kind'], registers }),
    errored: new Counter({ name: 'appserver_messages_errored_total', help: 'Messages that ended ERRORED, by reason', labelNames: ['kind', 'error'], registers }),
    retried: new Counter({ name: 'appserver_messages_retried_total', help: 'Sends that FCM answered with a retryable error and were scheduled again', labelNames: ['kind'], registers }),
    lateness: new Histogram({
      name: 'appserver_messages_lateness_seconds',
      help: 'Send time minus scheduledTime of each FCM send',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 5, 10, 30, 60, 300, 3600],
      registers,
    }),
    emails: new Counter({ name: 'appserver_notification_emails_total', help: 'Notification e-mail sends, apart from the pushes, by result: sent, retried (failed, tried again later), failed (given up), skipped (no address)', labelNames: ['result'], registers }),
  };
}
