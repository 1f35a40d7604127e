/**
 * Notification e-mails (the reference's `EmailNotificationTransmitter`, appserver.md §9): one
 * plain-text mail through the platform mailer, from RADAR_NOTIFICATION_EMAIL_FROM to the user's
 * address, with subject `emailTitle ?? title` and text `emailBody ?? body`. A user without an
 * address is skipped with a warning.
 *
 * A send resolves with its result and never rejects: whether and when a failed mail is tried
 * again is the scheduler's rule (it queues, retries and counts mails apart from the push). The
 * reference swallowed a failed mail; here a temporary failure (no connection, a 4xx reply) is
 * retried and only a permanent refusal (a 5xx reply) gives up at once.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../../platform/mail.js';
import type { MessageRow } from '../schema.js';

/** The notification fields a mail is made of. */
export type MailedNotification = Pick<MessageRow, 'id' | 'title' | 'body' | 'emailTitle' | 'emailBody'>;

export type MailResult =
  | { result: 'sent' }
  | { result: 'skipped' }
  | { result: 'failed'; permanent: boolean; reason: string };

export interface NotificationEmailSender {
  /** Sends the notification's mail to `to`; never rejects. */
  send(notification: MailedNotification, recipient: { to: string | null; subjectId: string }): Promise<MailResult>;
  /** Resolves when every mail in flight has finished (sent or failed). */
  close(): Promise<void>;
}

export interface NotificationEmailDeps {
  mailer: Mailer;
  from: string;
  log: FastifyBaseLogger;
}

/** SMTP permanent failures are 5xx replies; no connection, a timeout or a 4xx reply may pass. */
const isPermanent = (err: unknown) => {
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

export function createNotificationEmailSender({ mailer, from, log }: NotificationEmailDeps): NotificationEmailSender {
  const inFlight = new Set<Promise<MailResult>>();
  return {
    send(n, { to, subjectId }) {
      if (!to?.trim()) {
        log.warn({ messageId: n.id, subjectId }, 'notification e-mail skipped: the user has no e-mail address');
        return Promise.resolve({ result: 'skipped' });
      }
      const mail = mailer.send({ from, to, subject: n.emailTitle ?? n.title ?? '', text: n.emailBody ?? n.body ?? '' })
        .then((): MailResult => ({ result: 'sent' }), (err: unknown): MailResult => ({
          result: 'failed', permanent: isPermanent(err), reason: err instanceof Error ? err.message : String(err),
        }));
      inFlight.add(mail);
      void mail.finally(() => inFlight.delete(mail));
      return mail;
    },
    async close() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
