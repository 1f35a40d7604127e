/**
 * App-server tokens for tests, issued by the real authorization server in the same app: a clients
 * file whose clients have the resource `res_AppServer`, users created in the management domain,
 * and password or client-credentials grants.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { aParticipant } from '../fixtures/management.js';
import { basic, managementClient } from './management-api.js';

export const APP_SCOPES = 'MEASUREMENT.CREATE,SUBJECT.UPDATE,SUBJECT.READ,PROJECT.READ';
const HEADER = 'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove';

/**
 * A clients file: `aRMT` as the reference configures it, `appserver_test` (password, refresh and
 * client-credentials grants, the app's scopes) and `appserver_noscope` (client credentials without
 * the app server's read and update scopes).
 */
export function appserverClientsFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'appserver-clients-'));
  const file = join(dir, 'oauth_client_details.csv');
  writeFileSync(file, [
    HEADER,
    `aRMT;res_ManagementPortal,res_gateway,res_AppServer;;${APP_SCOPES};refresh_token,authorization_code;;;43200;7948800;{};`,
    `appserver_test;res_ManagementPortal,res_AppServer;secret;${APP_SCOPES};password,refresh_token,client_credentials;;;43200;7948800;{};`,
    'appserver_noscope;res_AppServer;secret;MEASUREMENT.CREATE;client_credentials;;;43200;7948800;{};',
    '',
  ].join('\n'));
  return file;
}

/** Settings of an app with app-server security on and the clients above. */
export const securedEnv = (env: Record<string, string> = {}) => ({
  SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true',
  MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: appserverClientsFile(),
  ...env,
});

export function appserverTokens(app: FastifyInstance) {
  const mp = managementClient(app);

  async function password(login: string, pass: string): Promise<{ access: string; refresh: string }> {
    const res = await mp.token({ grant_type: 'password', username: login, password: pass }, basic('appserver_test', 'secret'));
    if (!res.access_token) throw new Error(`no token for ${login}: ${JSON.stringify(res)}`);
    return { access: res.access_token as string, refresh: res.refresh_token as string };
  }

  return {
    password,
    /** A new user holding `authority` (globally, or on a management project or organization by name). */
    async user(authority: string, referent: { project?: string; organization?: string } = {}) {
      const { login, userId } = await mp.userWithRole(authority, referent, 'Passw0rd');
      return { login, userId, ...(await password(login, 'Passw0rd')) };
    },
    /** A new participant (its subject login is its `sub`) of the management project. */
    async participant(project: { id: number }) {
      const p = await aParticipant(app.db.db, { project, password: 'Passw0rd' });
      return { login: p.login, userId: p.user.id, ...(await password(p.login, 'Passw0rd')) };
    },
    async client(clientId: string): Promise<string> {
      const res = await mp.token({ grant_type: 'client_credentials' }, basic(clientId, 'secret'));
      if (!res.access_token) throw new Error(`no token for ${clientId}: ${JSON.stringify(res)}`);
      return res.access_token as string;
    },
  };
}

/** A request to the app server with a bearer token (none when `token` is undefined). */
export const callAs = (app: FastifyInstance, token: string | undefined, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({
    method, url,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
