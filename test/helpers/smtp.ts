/** A real SMTP server on loopback (smtp-server) that keeps every mail it receives, for SMTP_URL. */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message (headers and body). */
  raw: string;
  subject: string;
  /** The body after the headers, with soft line breaks undone. */
  text: string;
}

export interface SmtpStub {
  /** `smtp://127.0.0.1:port`, the value for SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** When set, every mail is refused with this SMTP error message. */
  refuse?: string;
  close(): Promise<void>;
}

function headerValue(raw: string, name: string): string {
  const match = new RegExp(`^${name}: ?(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(raw);
  return match ? match[1]!.replace(/\r?\n[ \t]/g, ' ') : '';
}

/**
 * Starts the server on `port` (default: a free one). `close()` drops open connections at once, so
 * an outage test can close it (clients then meet a refused connection) and start it again on the
 * same port.
 */
export async function startSmtpServer(opts: { port?: number } = {}): Promise<SmtpStub> {
  const stub: SmtpStub = { url: '', mails: [], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 50,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stub.refuse) {
          callback(Object.assign(new Error(stub.refuse), { responseCode: 550 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw.split(/\r?\n\r?\n/).slice(1).join('\n\n');
        stub.mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: headerValue(raw, 'Subject'),
          text: body.replace(/=\r?\n/g, '').replace(/\r?\n$/, ''),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  stub.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}
