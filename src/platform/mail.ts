/**
 * The nodemailer transport both domains send mail through (notification e-mails, account mails).
 * Built from `config.smtpUrl` (SMTP_URL or SPRING_MAIL_*), pooled, and closed with the app.
 * Without a mail server `send` rejects with a message naming the settings; nothing is queued.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  /** Plain text, always sent. */
  text: string;
  /** Optional HTML alternative (multipart/alternative beside `text`). */
  html?: string;
}

export interface Mailer {
  /** Whether a mail server is configured. */
  readonly configured: boolean;
  /** Sends one mail; rejects when the server refuses it or none is configured. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Connection and socket timeouts: a stalled mail server must not hold messages for minutes. */
const TIMEOUT_MS = 10_000;

export async function createMailer(smtpUrl: string | undefined): Promise<Mailer> {
  if (!smtpUrl) {
    return {
      configured: false,
      send: async () => { throw new Error('no mail server configured (SMTP_URL or SPRING_MAIL_HOST)'); },
      close: () => {},
    };
  }
  const { createTransport } = await import('nodemailer');
  const url = new URL(smtpUrl);
  url.searchParams.set('pool', 'true');
  for (const name of ['connectionTimeout', 'greetingTimeout', 'socketTimeout']) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(TIMEOUT_MS));
  }
  const transport = createTransport(url.toString());
  return {
    configured: true,
    async send({ from, to, subject, text, html }) {
      await transport.sendMail({ from, to, subject, text, ...(html !== undefined ? { html } : {}) });
    },
    close: () => transport.close(),
  };
}

export const mailPlugin = fp(async (app: FastifyInstance) => {
  const mailer = await createMailer(app.config.smtpUrl);
  app.decorate('mail', mailer);
  app.addHook('onClose', async () => mailer.close());
}, { name: 'platform-mail', dependencies: ['platform-config'] });
