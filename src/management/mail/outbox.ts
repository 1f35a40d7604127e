/**
 * Background sending of account mails. A mail is queued after the account change has committed
 * and the request answers at once; a failed send is logged and retried with backoff, so a mail
 * server that is down delays the mail but never undoes or fails the change.
 *
 * Mails wait in memory: a retry still pending when the app closes is dropped with a warning
 * (the user can ask for a new link). Log lines name the mail kind and the login, never the
 * message (it holds the reset key).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer, MailMessage } from '../../platform/mail.js';

/** Waits before the 2nd, 3rd, … attempt: five attempts over about six minutes. */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 10_000, 60_000, 300_000];

export interface OutboxMail {
  message: MailMessage;
  /** What the mail is, for the log (`creation`, `password reset`). */
  kind: string;
  login: string;
  /** Logger of whoever queued the mail (defaults to the outbox's). */
  log?: FastifyBaseLogger;
}

export interface MailOutbox {
  /** Queues one mail and returns at once; never throws. */
  enqueue(mail: OutboxMail): void;
  /** Stops retrying (pending mails are dropped and logged) and waits for sends in progress. */
  close(): Promise<void>;
}

/** What of a send failure may be logged: codes and the server's answer, not the message. */
const failure = (err: unknown) => {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
  return { code: e.code, responseCode: e.responseCode, reason: typeof e.message === 'string' ? e.message : String(err) };
};

export function createMailOutbox(deps: { mailer: Mailer; log: FastifyBaseLogger; retryDelaysMs?: readonly number[] }): MailOutbox {
  const delays = deps.retryDelaysMs ?? RETRY_DELAYS_MS;
  const waiting = new Map<NodeJS.Timeout, OutboxMail>();
  const sending = new Set<Promise<void>>();
  let closed = false;

  function attempt(mail: OutboxMail, n: number): void {
    const log = mail.log ?? deps.log;
    const meta = { kind: mail.kind, login: mail.login, attempt: n + 1 };
    const sent: Promise<void> = deps.mailer.send(mail.message).then(
      () => { log.info(meta, 'account mail sent'); },
      (err: unknown) => {
        const delay = delays[n];
        if (delay === undefined || closed) {
          log.error({ ...meta, ...failure(err) }, 'account mail not sent; giving up');
          return;
        }
        log.warn({ ...meta, ...failure(err), retryInMs: delay }, 'account mail failed, retrying');
        const timer = setTimeout(() => {
          waiting.delete(timer);
          attempt(mail, n + 1);
        }, delay);
        timer.unref(); // a pending retry never holds the process open
        waiting.set(timer, mail);
      },
    ).finally(() => { sending.delete(sent); });
    sending.add(sent);
  }

  return {
    enqueue(mail) {
      const log = mail.log ?? deps.log;
      if (closed) {
        log.warn({ kind: mail.kind, login: mail.login }, 'account mail not sent: shutting down');
      } else if (!deps.mailer.configured) {
        log.warn({ kind: mail.kind, login: mail.login }, 'account mail not sent: no mail server configured (SMTP_URL)');
      } else {
        attempt(mail, 0);
      }
    },
    async close() {
      closed = true;
      for (const [timer, mail] of waiting) {
        clearTimeout(timer);
        (mail.log ?? deps.log).warn({ kind: mail.kind, login: mail.login }, 'account mail dropped at shutdown');
      }
      waiting.clear();
      await Promise.allSettled([...sending]);
    },
  };
}
