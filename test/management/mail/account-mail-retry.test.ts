/**
 * An account mail while the mail server is down: the request answers at once, the account change
 * (the reset key) is committed and usable, the failure is logged without the key, and the mail
 * arrives once the server is up (the outbox retries with backoff).
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import bcrypt from '@node-rs/bcrypt';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { loggerOptions } from '../../../src/platform/logging.js';
import { users } from '../../../src/management/schema.js';
import { mimeParts } from '../../helpers/account-mail.js';
import { until } from '../../helpers/eventually.js';

const captured = captureLog();

let port: number;
let t: TestApp;
let server: SMTPServer | undefined;
const received: string[] = [];

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return free;
}

/** The mail server coming up on the port the app was configured with. */
async function startMailServer(): Promise<void> {
  server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server!.once('error', reject);
    server!.listen(port, '127.0.0.1', () => resolve());
  });
}

beforeAll(async () => {
  port = await freePort();
  const options = loggerOptions('debug');
  if (typeof options !== 'object') throw new Error('loggerOptions must return pino options');
  t = await buildTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` }, { logger: { ...options, stream: captured.stream } });
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

it('keeps the reset key while the mail server is down and delivers the mail once it is up', async () => {
  const login = unique('down');
  const email = `${login}@example.org`;
  await t.app.db.db.insert(users).values({ login, email, activated: true, passwordHash: await bcrypt.hash('Old-passw0rd', 4) });
  const mp = managementClient(t.app);

  const res = await mp.call('POST', '/api/account/reset_password/init', { body: email });
  expect(res.status).toBe(204);
  const [stored] = await t.app.db.db.select().from(users).where(eq(users.login, login));
  const key = stored!.resetKey!;
  expect(key).toMatch(/^\d{20}$/);

  await until(() => expect(captured.text()).toMatch(new RegExp(`"login":"${login}","attempt":1.*"account mail failed, retrying"`)));
  expect(received).toEqual([]);
  await startMailServer();
  await until(() => expect(received).toHaveLength(1));

  const text = mimeParts(received[0]!).find((p) => p.type === 'text/plain')!.body;
  expect(text).toContain(`/account/reset/finish?key=${key}`);
  await until(() => expect(captured.text()).toMatch(new RegExp(`"login":"${login}","attempt":2.*"account mail sent"`)));
  expect(captured.text()).not.toContain(key);

  expect((await mp.call('POST', '/api/account/reset_password/finish', { body: { key, newPassword: 'New-passw0rd' } })).status).toBe(204);
  expect(await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'New-passw0rd' }))
    .toMatchObject({ status: 200, token_type: 'bearer' });
  expect(captured.text()).not.toContain('New-passw0rd');
});
