/**
 * A Spring Boot Admin client, as the seed's deployments use it (`spring.boot.admin.client.*`,
 * often through `SPRING_APPLICATION_JSON`): once the server listens, this instance registers with
 * the admin server (`POST {url}/instances`) and registers again every period, as Spring Boot Admin's
 * client does, so a restarted admin server learns of it again. At shutdown it deregisters
 * (`DELETE {url}/instances/{id}`, the id of the last registration's answer).
 *
 * An admin server that is down costs one WARN (not one per period); it is retried every period and
 * an INFO says when registration works again. The basic-auth password is never logged, nor the
 * user info of the URL setting, which is sent as Basic auth.
 */
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { basicAuthorization, splitUserInfo } from './url-credentials.js';

/** The admin-client settings (`SPRING_BOOT_ADMIN_CLIENT_*`). */
export interface AdminClientSettings {
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  instanceName: string;
  /** Unset: `http://<hostname>:<port>`. */
  serviceBaseUrl?: string | undefined;
  periodMs: number;
  autoDeregistration: boolean;
}

/** The registration body Spring Boot Admin's server reads (its `Application` JSON). */
export interface Registration {
  name: string;
  managementUrl: string;
  healthUrl: string;
  serviceUrl: string;
  metadata: Record<string, string>;
}

/** Each request to the admin server gives up after this long (Spring's client default: 5 s). */
const REQUEST_TIMEOUT_MS = 5000;

export function registrationOf(settings: AdminClientSettings, baseUrl: string, startup: Date): Registration {
  return {
    name: settings.instanceName,
    managementUrl: `${baseUrl}/actuator`,
    healthUrl: `${baseUrl}/actuator/health`,
    serviceUrl: `${baseUrl}/`,
    metadata: { startup: startup.toISOString() },
  };
}

export interface AdminClient {
  /** Registers now and then every period, with the service at `baseUrl`. */
  start(baseUrl: string): void;
  /** Stops registering, then deregisters when `autoDeregistration` is on and registration worked. */
  stop(): Promise<void>;
}

export function createAdminClient(settings: AdminClientSettings, log: FastifyBaseLogger, startup = new Date()): AdminClient {
  // `http://user:pass@host`: the user info goes as Basic auth (unless the username setting is set,
  // which wins), and never into a request URL or a log line.
  const server = splitUserInfo(settings.url);
  const instances = `${server.url}/instances`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (settings.username) headers.authorization = basicAuthorization(settings.username, settings.password);
  else if (server.username !== undefined) headers.authorization = basicAuthorization(server.username, server.password);
  let id: string | undefined;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();

  async function register(body: Registration): Promise<void> {
    try {
      const res = await fetch(instances, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const answer = await res.json() as { id?: unknown };
      if (typeof answer.id !== 'string' || answer.id === '') throw new Error('the answer has no id');
      if (id === undefined || failing) log.info({ url: instances, id: answer.id }, 'registered with the admin server');
      id = answer.id;
      failing = false;
    } catch (err) {
      if (!failing) log.warn({ url: instances, problem: (err as Error).message }, 'admin server registration failed; retrying every period');
      failing = true;
    }
  }

  return {
    start(baseUrl) {
      const body = registrationOf(settings, baseUrl, startup);
      const tick = () => {
        inFlight = register(body).then(() => {
          if (!stopped) timer = setTimeout(tick, settings.periodMs);
        });
      };
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      if (!settings.autoDeregistration || id === undefined) return;
      const url = `${instances}/${encodeURIComponent(id)}`;
      try {
        const res = await fetch(url, { method: 'DELETE', headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        log.info({ url }, 'deregistered from the admin server');
      } catch (err) {
        log.warn({ url, problem: (err as Error).message }, 'admin server deregistration failed');
      }
    },
  };
}

/** The base URL by default: this host's name and the port the server listens on. */
function defaultBaseUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo | null;
  return `http://${hostname()}:${address?.port ?? 8080}`;
}

/** Registers the app with the admin server once it listens; deregisters when it closes. */
export const adminClientPlugin = fp<{ settings: AdminClientSettings }>(async (app, { settings }) => {
  const client = createAdminClient(settings, app.logLevels.component('admin-client'));
  app.addHook('onListen', async () => { client.start(settings.serviceBaseUrl ?? defaultBaseUrl(app)); });
  app.addHook('onClose', async () => { await client.stop(); });
}, { name: 'admin-client' });
