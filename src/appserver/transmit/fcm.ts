/**
 * FCM through the real firebase-admin SDK (the reference's `AdminSdkFcmSender`), or a sender
 * that logs and drops (`DisabledFcmSender`), chosen by FCMSERVER_FCMSENDER.
 *
 * firebase-admin has no emulator setting for messaging, so FCM_EMULATOR_HOST is built here
 * (feasibility.md §4): a credential returning a static token, an `http.Agent` whose connections
 * go to host:port in plain TCP, and the HTTP/1.1 transport (`enableLegacyHttpTransport()`, which
 * is the only one that uses the agent). Production keeps the default HTTP/2 transport.
 *
 * Each sender owns its own firebase App (a unique name), deleted on `close`: two apps in one
 * process share nothing.
 */
import { Agent, type ClientRequestArgs } from 'node:http';
import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Message } from 'firebase-admin/messaging';
import type { Config } from '../../config.js';

/** One message's outcome: FCM's message name, or the SDK's error code (`messaging/…`, `app/…`). */
export type FcmResult = { ok: true; name: string } | { ok: false; code: string; message: string };

export interface FcmSender {
  readonly kind: 'rest' | 'disabled';
  /** Sends up to 500 messages; one result per message, in order. Never rejects for one message's failure. */
  sendEach(messages: Message[]): Promise<FcmResult[]>;
  close(): Promise<void>;
}

/** Thrown at start-up when the sender cannot be built; the message names the settings. */
export class FcmConfigError extends Error {}

type FcmConfig = Pick<Config, 'profile' | 'fcmSender' | 'fcmCredentials' | 'googleApplicationCredentials' | 'fcmEmulatorHost' | 'fcmProjectId'>;

/** The sender FCMSERVER_FCMSENDER selects; `auto` is `rest` when FCM can work (or in prod), else `disabled`. */
export function resolveFcmSender(c: FcmConfig): 'rest' | 'disabled' {
  if (c.fcmSender !== 'auto') return c.fcmSender;
  return c.fcmEmulatorHost || c.fcmCredentials || c.googleApplicationCredentials || c.profile === 'prod' ? 'rest' : 'disabled';
}

/**
 * A keep-alive agent for https:// URLs whose sockets are plain TCP to the emulator host. Its
 * `protocol` is https: so that `https.request` accepts it.
 */
class EmulatorAgent extends Agent {
  constructor(private readonly host: string, private readonly port: number) {
    super({ keepAlive: true, maxSockets: 128 });
    (this as unknown as { protocol: string }).protocol = 'https:';
  }

  override createConnection(_options: ClientRequestArgs, _callback?: (err: Error | null, socket: Socket) => void): Socket {
    return connect({ host: this.host, port: this.port });
  }
}

function parseHostPort(value: string): { host: string; port: number } {
  const i = value.lastIndexOf(':');
  return { host: value.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(value.slice(i + 1)) };
}

interface ServiceAccount { project_id?: string; client_email: string; private_key: string }

function serviceAccount(c: FcmConfig): ServiceAccount | undefined {
  if (c.fcmCredentials) return JSON.parse(Buffer.from(c.fcmCredentials, 'base64').toString('utf8')) as ServiceAccount;
  if (c.googleApplicationCredentials) {
    let text: string;
    try {
      text = readFileSync(c.googleApplicationCredentials, 'utf8');
    } catch (err) {
      throw new FcmConfigError(`GOOGLE_APPLICATION_CREDENTIALS: cannot read ${c.googleApplicationCredentials}: ${(err as Error).message}`);
    }
    try {
      const json = JSON.parse(text) as ServiceAccount;
      if (typeof json.private_key === 'string' && typeof json.client_email === 'string') return json;
    } catch { /* reported below */ }
    throw new FcmConfigError(`GOOGLE_APPLICATION_CREDENTIALS: ${c.googleApplicationCredentials} is not a service-account JSON file (with private_key and client_email)`);
  }
  return undefined;
}

export async function createFcmSender(c: FcmConfig, log: FastifyBaseLogger): Promise<FcmSender> {
  if (resolveFcmSender(c) === 'disabled') {
    log.info('FCM sender disabled (FCMSERVER_FCMSENDER): notifications and data messages are dropped');
    return {
      kind: 'disabled',
      sendEach: async (messages) => messages.map(() => ({ ok: true as const, name: 'disabled' })),
      close: async () => {},
    };
  }

  const account = c.fcmEmulatorHost ? undefined : serviceAccount(c);
  if (!c.fcmEmulatorHost && !account) {
    throw new FcmConfigError(
      'FCMSERVER_FCMSENDER: the Admin SDK sender needs credentials: set FCMSERVER_CREDENTIALS (base64 service-account JSON) or '
      + 'GOOGLE_APPLICATION_CREDENTIALS (its file), FCM_EMULATOR_HOST for a local FCM stub, or FCMSERVER_FCMSENDER=disabled',
    );
  }

  const { initializeApp, deleteApp, cert } = await import('firebase-admin/app');
  const { getMessaging } = await import('firebase-admin/messaging');
  const name = `radar-${randomUUID()}`;
  let agent: EmulatorAgent | undefined;
  let app;
  if (c.fcmEmulatorHost) {
    const { host, port } = parseHostPort(c.fcmEmulatorHost);
    agent = new EmulatorAgent(host, port);
    app = initializeApp({
      credential: { getAccessToken: async () => ({ access_token: 'emulator-token', expires_in: 3600 }) },
      projectId: c.fcmProjectId ?? 'demo-radar',
      httpAgent: agent,
    }, name);
    log.info({ emulator: c.fcmEmulatorHost, projectId: c.fcmProjectId ?? 'demo-radar' }, 'FCM through the emulator host');
  } else {
    const projectId = c.fcmProjectId ?? account!.project_id;
    app = initializeApp({ credential: cert({ projectId, clientEmail: account!.client_email, privateKey: account!.private_key }), projectId }, name);
    log.info({ projectId }, 'FCM through the Firebase Admin SDK');
  }
  const messaging = getMessaging(app);
  if (agent) messaging.enableLegacyHttpTransport();

  return {
    kind: 'rest',
    async sendEach(messages) {
      if (messages.length === 0) return [];
      try {
        const batch = await messaging.sendEach(messages);
        return batch.responses.map((r): FcmResult => (r.success
          ? { ok: true, name: r.messageId ?? '' }
          : { ok: false, code: r.error?.code ?? 'messaging/unknown-error', message: r.error?.message ?? 'unknown error' }));
      } catch (err) {
        // The whole batch failed (HTTP/2 session error, bad arguments): every message failed the same way.
        const e = err as { code?: string; message?: string };
        return messages.map(() => ({ ok: false as const, code: e.code ?? 'app/network-error', message: e.message ?? String(err) }));
      }
    },
    async close() {
      await deleteApp(app);
      agent?.destroy();
    },
  };
}
