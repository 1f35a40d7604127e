/**
 * Notification e-mails (the reference's `EmailNotificationTransmitter`, appserver.md §9): one
 * plain-text mail through the platform mailer, from RADAR_NOTIFICATION_EMAIL_FROM to the user's
 * address, with subject `emailTitle ?? title` and text `emailBody ?? body`. A user without an
 * address is skipped with a warning.
 *
 * Sending runs in the background: a failure is logged and counted and never holds up or fails the
 * push (the reference swallowed it too). Which notifications get a mail, and when, is the
 * scheduler's rule.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Counter } from 'prom-client';
import type { Mailer } from '../../platform/mail.js';
import type { MessageRow } from '../schema.js';

/** The notification fields a mail is made of. */
export type MailedNotification = Pick<MessageRow, 'id' | 'title' | 'body' | 'emailTitle' | 'emailBody'>;

export interface NotificationEmailSender {
  /** Starts sending the notification's mail to `to`; never throws, and its outcome is only logged and counted. */
  send(notification: MailedNotification, recipient: { to: string | null; subjectId: string }): void;
  /** Resolves when every mail in flight has finished (sent or failed). */
  close(): Promise<void>;
}

export interface NotificationEmailDeps {
  mailer: Mailer;
  from: string;
  /** Counts mails by `result`: sent or failed. */
  counter: Pick<Counter<'result'>, 'inc'>;
  log: FastifyBaseLogger;
}

export function createNotificationEmailSender({ mailer, from, counter, log }: NotificationEmailDeps): NotificationEmailSender {
  const inFlight = new Set<Promise<void>>();
  return {
    send(n, { to, subjectId }) {
      if (!to?.trim()) {
        log.warn({ messageId: n.id, subjectId }, 'notification e-mail skipped: the user has no e-mail address');
        return;
      }
      const mail = mailer.send({ from, to, subject: n.emailTitle ?? n.title ?? '', text: n.emailBody ?? n.body ?? '' })
        .then(() => {
          counter.inc({ result: 'sent' });
        }, (err: unknown) => {
          counter.inc({ result: 'failed' });
          log.warn({ messageId: n.id, reason: (err as Error).message }, 'notification e-mail failed');
        });
      inFlight.add(mail);
      void mail.finally(() => inFlight.delete(mail));
    },
    async close() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
