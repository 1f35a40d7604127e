/**
 * The management domain (replaces ManagementPortal): the OAuth 2.0 authorization server and the
 * study-management API.
 * Not wrapped in fastify-plugin, so its hooks, parsers and handlers stay inside its scope.
 *
 * Start-up: the keys are read by `loadManagementKeys` before the database opens; the plugin then
 * creates, under the cluster-wide start-up lock, the built-in accounts, the demo data (when on),
 * the clients file's clients and the frontend client.
 */
import { existsSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import { createErrorHandler } from '../platform/errors.js';
import { acceptEmptyJsonBodies } from '../platform/json-body.js';
import { rejectUnstorableInput } from '../platform/input-guard.js';
import type { Database } from '../platform/database.js';
import { managementErrorFormat } from './errors.js';
import { unstorableInput } from './http/validation.js';
import { createAuditLog } from './audit/audit-log.js';
import { createClientStore } from './oauth-clients/client-store.js';
import { ensureFrontendClient, loadClientsFile } from './oauth-clients/startup.js';
import { ensureBuiltInAccounts } from './users/admin-account.js';
import { loadKeySet, type KeySet } from './oauth/keystore.js';
import { closeSigning, createSigner } from './oauth/token-signing.js';
import { createTokenIssuer } from './oauth/token-issuer.js';
import { oauthRoutes } from './oauth/routes.js';
import { createFailedAttemptLimiter } from './oauth/limiter.js';
import { createBearerAuth } from './security/bearer-auth.js';
import { createSessionAuth } from './security/session-auth.js';
import { oauthClientRoutes } from './oauth-clients/routes.js';
import { managementApi } from './api.js';
import { createAccountMail } from './mail/account-mail.js';
import { MAINTENANCE_INTERVAL_MS, OAUTH_CLEANUP_JOBS, startMaintenance } from './maintenance.js';
import { NOT_ACTIVATED_USERS_PURGE } from './account/purge.js';
import { META_TOKEN_PURGE } from './pairing/purge.js';
import { startCatalogueImport } from './catalogue/catalogue-import.js';
import { createOAuthClientService } from './oauth-clients/service.js';
import { authorizeRoutes } from './oauth/authorize/routes.js';
import { createAuthorizeService } from './oauth/authorize/service.js';
import { resolveSessionSecret } from './session/secret.js';
import { createSessionStore } from './session/sessions.js';
import { seedManagementDemoData } from './demo-data.js';

/** The management slice of the configuration. */
export interface ManagementConfig {
  profile: 'dev' | 'prod';
  keyStore: string;
  keyStorePassword: string;
  signingKeyAlias: string;
  checkingKeyAliases: readonly string[];
  issuer: string;
  /** Unset: the dev file in dev, the reference's mount point (when present) in prod. */
  clientsFile: string | undefined;
  frontendAccessTokenValiditySeconds: number;
  frontendRefreshTokenValiditySeconds: number;
  commonAdminPassword: string | undefined;
  refreshReuseGraceSeconds: number;
  /** `MANAGEMENTPORTAL_OAUTH_PERSISTENT_META_TOKEN_TIMEOUT` in seconds. */
  persistentMetaTokenTimeoutSeconds: number;
  /** `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS`. */
  hiddenSubjectFields: readonly string[];
}

export const DEFAULT_KEY_STORE = 'config/keystore.p12';
export const REFERENCE_KEY_STORE = '/mp-includes/config/keystore.p12';
export const DEV_CLIENTS_FILE = 'config/oauth_client_details.csv';
/** Where the reference's Docker image and helm charts mount the clients file. */
export const REFERENCE_CLIENTS_FILE = '/mp-includes/config/oauth_client_details.csv';

/**
 * Reads the signing and checking keys. `buildApp` calls this before opening the database, so a
 * bad keystore stops the start before anything is migrated or written.
 */
export async function loadManagementKeys(config: ManagementConfig, log: FastifyBaseLogger): Promise<KeySet> {
  // Drop-in: the reference's image and helm charts mount the keystore here.
  const file = config.keyStore === DEFAULT_KEY_STORE && !existsSync(DEFAULT_KEY_STORE) && existsSync(REFERENCE_KEY_STORE)
    ? REFERENCE_KEY_STORE : config.keyStore;
  return loadKeySet({
    profile: config.profile,
    file,
    password: config.keyStorePassword,
    signingAlias: config.signingKeyAlias,
    checkingAliases: config.checkingKeyAliases,
  }, log);
}

export interface ManagementPluginOptions {
  config: ManagementConfig;
  keys: KeySet;
  /** Clock in epoch milliseconds (tests move time). */
  now?: () => number;
  /** Load the dev profile's demo data (managementportal.md §9). */
  demoData?: boolean;
}

export const managementPlugin: FastifyPluginAsync<ManagementPluginOptions> = async (app, { config, keys, now = Date.now, demoData = false }) => {
  const db: Database = app.db.db;
  const log = app.log.child({ component: 'management' });

  acceptEmptyJsonBodies(app);
  // A NUL character or a coerced Infinity anywhere in a request: 400 (the OAuth scopes: invalid_request or a page).
  app.addHook('preHandler', rejectUnstorableInput(unstorableInput));
  app.setErrorHandler(createErrorHandler(managementErrorFormat));
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ message: 'error.notFound', description: `No endpoint ${request.method} ${request.url.split('?')[0]}`, fieldErrors: null });
  });

  await app.db.exclusive(async () => {
    await ensureBuiltInAccounts(db, { profile: config.profile, adminPassword: config.commonAdminPassword }, log);
    if (demoData) await seedManagementDemoData(db, log);
    const clientsFile = config.clientsFile
      ?? (config.profile === 'dev' ? DEV_CLIENTS_FILE : existsSync(REFERENCE_CLIENTS_FILE) ? REFERENCE_CLIENTS_FILE : undefined);
    if (clientsFile) await loadClientsFile(db, clientsFile, log);
    else log.warn({ setting: 'MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE' }, 'no oauth clients file configured');
    await ensureFrontendClient(db, {
      accessTokenValiditySeconds: config.frontendAccessTokenValiditySeconds,
      refreshTokenValiditySeconds: config.frontendRefreshTokenValiditySeconds,
    });
  });

  const audit = createAuditLog({ db, log: log.child({ component: 'audit' }) });
  app.addHook('onClose', async () => audit.flush());
  const clients = createClientStore({ db, now });
  app.addHook('onClose', async () => closeSigning(keys));
  const issuer = createTokenIssuer({ signer: createSigner(keys), issuer: config.issuer, now });

  const limiter = createFailedAttemptLimiter({ maxPerMinute: app.config.managementportalOauthFailedAttemptsPerMinute, maxPerAddressPerMinute: app.config.managementportalOauthFailedAttemptsPerAddressPerMinute, now });

  await app.register(oauthRoutes, {
    keys,
    issuer: config.issuer,
    token: { db, clients, limiter, issuer, keys, audit, now, refreshReuseGraceSeconds: config.refreshReuseGraceSeconds },
    introspection: { db, clients, limiter, keys, now },
  });

  // The management API: every route but the public ones authenticates its principal first.
  // The sign-in pages' sessions also authenticate the API (the admin UI), so both get the same store and key.
  const sessions = createSessionStore({ db, now });
  const sessionSecret = await resolveSessionSecret(db, app.config.managementportalSessionSecret);
  const sessionAuth = createSessionAuth({ db, sessions, secret: sessionSecret });
  const bearer = createBearerAuth({ db, keys, now, session: sessionAuth });
  app.decorateRequest('mpAuth', null);
  const oauthClients = createOAuthClientService({ db, clients, log });
  const accountMail = createAccountMail({ mail: app.mail, config: app.config, log: log.child({ component: 'account-mail' }) });
  app.addHook('onClose', async () => accountMail.close());
  await app.register(managementApi, {
    bearer,
    issuer,
    deps: {
      db, audit, now, profile: config.profile,
      persistentTokenTimeoutMs: config.persistentMetaTokenTimeoutSeconds * 1000,
      hiddenSubjectFields: config.hiddenSubjectFields,
      config: app.config, mail: app.mail, accountMail,
    },
    extra: async (api) => api.register(oauthClientRoutes, { oauthClients }),
    // The cookie path of the sign-in pages (oauth/authorize/routes.ts).
    logout: { session: sessionAuth, cookiePath: `${app.prefix}/` },
  });
  await app.register(authorizeRoutes, {
    // The token endpoint's limiter: sign-in failures share its (username, IP) counters.
    authorize: createAuthorizeService({ db, clients, now, limiter, requirePkce: app.config.managementportalOauthRequirePkce }),
    sessions,
    sessionSecret,
    now,
  });

  // Clean-up of expired and stale rows; every job is idempotent, so each instance runs them.
  const stopMaintenance = startMaintenance({ db, jobs: [...OAUTH_CLEANUP_JOBS, NOT_ACTIVATED_USERS_PURGE, META_TOKEN_PURGE], intervalMs: MAINTENANCE_INTERVAL_MS, now, log });
  app.addHook('onClose', async () => stopMaintenance());

  if (app.config.managementportalCatalogueServerEnableAutoImport) {
    // In the background: a slow or absent catalogue server delays nothing.
    const catalogue = startCatalogueImport({ db, url: app.config.managementportalCatalogueServerServerUrl!, log: log.child({ component: 'catalogue-import' }), now });
    app.addHook('onClose', async () => { catalogue.stop(); await catalogue.done; });
  }
};
