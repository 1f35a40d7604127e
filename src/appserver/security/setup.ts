/**
 * Builds the app server's token security from its settings (issue 21 items 1–3): the key sources
 * (this process's authorization server, always; `{SECURITY_RADAR_MANAGEMENTPORTAL_URL}/oauth/token_key`;
 * the `radar_is.yml` endpoints and PEMs), the verifier and the authenticator.
 */
import type { KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { fixedKeySource, remoteKeySource, type KeySource } from './key-sources.js';
import type { JwsAlg } from './keys.js';
import { createAuthenticator, type Authenticator } from './guard.js';
import type { RadarIsConfig } from './radar-is-config.js';
import { createTokenVerifier } from './verifier.js';

/**
 * What the app server needs of the authorization server in this process (the management domain
 * implements it; `app.ts` passes it in, so the domains never import each other).
 */
export interface LocalTokenAuthority {
  publicKeys(): readonly { kid: string; alg: string; publicKey: KeyObject }[];
  /** Whether the user exists and is activated. */
  userActive(login: string): Promise<boolean>;
  client(clientId: string): Promise<{ resourceIds: readonly string[]; scope: readonly string[] } | undefined>;
}

export interface SecuritySettings {
  enabled: boolean;
  managementportalUrl: string;
  resourceId: string | undefined;
  /** The `radar_is.yml` at `RADAR_IS_CONFIG_LOCATION`, read before the database opens (`readRadarIsConfig`). */
  radarIs: RadarIsConfig | undefined;
}

export const DEFAULT_RESOURCE_NAME = 'res_AppServer';
/** What the questionnaire app's client needs (appserver.md §7). */
export const APP_CLIENT_ID = 'aRMT';
export const APP_CLIENT_SCOPES = ['MEASUREMENT.CREATE', 'SUBJECT.UPDATE', 'SUBJECT.READ', 'PROJECT.READ'];

export interface AppserverSecurity {
  resourceName: string;
  /** Undefined while security is off. */
  authenticator?: Authenticator;
  sources: readonly KeySource[];
  /** Starts the remote sources' first load (in the background) and checks the app's client. */
  start(): Promise<void>;
}

export function createAppserverSecurity(settings: SecuritySettings, deps: { local: LocalTokenAuthority; log: FastifyBaseLogger; now: () => number }): AppserverSecurity {
  const { local, log, now } = deps;
  const file = settings.radarIs;
  const resourceName = settings.resourceId ?? file?.resourceName ?? DEFAULT_RESOURCE_NAME;
  if (!settings.enabled) {
    return {
      resourceName, sources: [],
      async start() {
        log.warn({ setting: 'SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED' }, 'app server API is open to anyone: token security is off');
      },
    };
  }

  const localSource = fixedKeySource('this ManagementPortal', local.publicKeys().map((k) => ({ kid: k.kid, algs: new Set([k.alg as JwsAlg]), key: k.publicKey })));
  const urls = [...new Set([
    ...(settings.managementportalUrl ? [`${settings.managementportalUrl}/oauth/token_key`] : []),
    ...(file?.publicKeyEndpoints ?? []),
  ])];
  const forget = () => verifier.forget();
  const remotes = urls.map((url) => remoteKeySource({ url, log, now, onChange: forget }));
  const sources: KeySource[] = [
    localSource,
    ...(file && file.publicKeys.length > 0 ? [fixedKeySource('RADAR_IS_CONFIG_LOCATION publicKeys', file.publicKeys)] : []),
    ...remotes,
  ];
  const verifier = createTokenVerifier({ sources, resourceName, now });
  const authenticator = createAuthenticator({ verifier, local: localSource, userActive: (login) => local.userActive(login), now });

  return {
    resourceName, authenticator, sources,
    async start() {
      for (const remote of remotes) void remote.refresh();
      const client = await local.client(APP_CLIENT_ID);
      if (!client) return;
      const missingScopes = APP_CLIENT_SCOPES.filter((s) => !client.scope.includes(s));
      if (!client.resourceIds.includes(resourceName) || missingScopes.length > 0) {
        log.warn({
          clientId: APP_CLIENT_ID, resource: client.resourceIds.includes(resourceName) ? undefined : resourceName, missingScopes,
        }, 'the questionnaire app\'s client cannot call the app server: give it the resource and scopes');
      }
    },
  };
}
