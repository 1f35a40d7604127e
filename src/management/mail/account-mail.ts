/**
 * Sending the account mails (managementportal.md §11). Callers have committed the account change
 * (the new reset key) before they call these; the mail then goes out in the background through
 * an outbox (outbox.ts) that retries, so these functions return at once and never throw. The
 * management plugin creates one `AccountMail` per app and closes it with the app.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../../platform/mail.js';
import { createMailOutbox } from './outbox.js';
import { creationMail, passwordResetMail, type MailSettings, type MailUser } from './templates.js';

/** The user an account mail goes to; no mail without an address. */
export interface AccountMailUser extends Omit<MailUser, 'email'> {
  email: string | null | undefined;
  langKey?: string | null;
}

/** What becomes of an account mail: handed to the outbox, or not sent, and why (the admin UI says so). */
export type MailOutcome = 'queued' | 'noAddress' | 'noServer';

export interface AccountMail {
  /** What `creation`/`passwordReset` would do with a mail to `user`, decided before anything is stored. */
  outcome(user: Pick<AccountMailUser, 'email'>): MailOutcome;
  /** The creation mail (activation link with `resetKey`) of `POST /api/users` and `reset-activation/init`. English only for now. */
  creation(user: AccountMailUser, log?: FastifyBaseLogger): MailOutcome;
  /** The password-reset mail of `reset_password/init`. */
  passwordReset(user: AccountMailUser, log?: FastifyBaseLogger): MailOutcome;
  /** Stops retrying (pending retries are dropped with a warning). */
  close(): Promise<void>;
}

export function createAccountMail(deps: { mail: Mailer; settings: MailSettings; log: FastifyBaseLogger }): AccountMail {
  const outbox = createMailOutbox({ mailer: deps.mail, log: deps.log });
  const { settings } = deps;
  const outcome = (user: Pick<AccountMailUser, 'email'>): MailOutcome => (!user.email ? 'noAddress' : deps.mail.configured ? 'queued' : 'noServer');
  function queue(kind: string, user: AccountMailUser, compose: typeof creationMail, log = deps.log): MailOutcome {
    if (!user.email) {
      log.info({ kind, login: user.login }, 'account mail not sent: the user has no e-mail address');
      return 'noAddress';
    }
    // Without a mail server the outbox logs the warning and drops it.
    outbox.enqueue({ kind, login: user.login, log, message: compose(settings, { ...user, email: user.email }) });
    return outcome(user);
  }
  return {
    outcome,
    creation: (user, log) => queue('creation', user, creationMail, log),
    passwordReset: (user, log) => queue('password reset', user, passwordResetMail, log),
    close: async () => outbox.close(),
  };
}
