/**
 * The management domain (replaces ManagementPortal): the OAuth 2.0 authorization server and the
 * study-management API.
 * Not wrapped in fastify-plugin, so its hooks, parsers and handlers stay inside its scope.
 *
 * The domain's composition root (ARCHITECTURE.md rule 10): from its settings (settings.ts, the one
 * reader of `Config`) it builds every service once, and hands each route module, as plugin
 * options, only the services and values that module uses. Route modules construct nothing.
 *
 * Start-up: the keys are read by `loadManagementKeys` before the database opens; the plugin
 * registers its routes (while the admin password's bcrypt check runs on libuv's pool), then
 * creates, under the cluster-wide start-up lock, the built-in accounts, the demo data (when on),
 * the clients file's clients and the frontend client.
 */
import { existsSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createErrorHandler } from '../platform/errors.js';
import { acceptEmptyJsonBodies } from '../platform/json-body.js';
import { rejectUnstorableInput } from '../platform/input-guard.js';
import type { Database } from '../platform/database.js';
import type { ManagementSettings } from './settings.js';
import { managementErrorFormat } from './errors.js';
import { unstorableInput } from './http/validation.js';
import { createAuditLog } from './audit/audit-log.js';
import { auditRetentionJob } from './audit/retention.js';
import { createClientStore } from './oauth/clients/client-store.js';
import { ensureFrontendClient, loadClientsFile } from './oauth/clients/startup.js';
import { ensureBuiltInAccounts, startAdminPasswordCheck } from './account/admin-account.js';
import { loadKeySet, type KeySet } from './oauth/keystore.js';
import { keyStoreFile, type KeystoreRead } from './oauth/keystore-reader.js';
import { createTokenSigning } from './oauth/token-signing.js';
import { createTokenIssuer } from './oauth/token-issuer.js';
import { oauthRoutes } from './oauth/routes.js';
import { createFailedAttemptLimiter } from './oauth/limiter.js';
import { authorizeRoutes } from './oauth/authorize/routes.js';
import { createAuthorizeService } from './oauth/authorize/service.js';
import { createApprovalService } from './oauth/authorize/approvals.js';
import { createBearerAuth } from './security/bearer-auth.js';
import { createSessionAuth } from './security/session-auth.js';
import { logoutRoutes } from './security/logout-routes.js';
import { findUserByLogin } from './security/queries.js';
import { resolveSessionSecret } from './session/secret.js';
import { createSessionStore } from './session/sessions.js';
import { createAccountMail } from './mail/account-mail.js';
import { MAINTENANCE_INTERVAL_MS, OAUTH_CLEANUP_JOBS, startMaintenance } from './maintenance.js';
import { NOT_ACTIVATED_USERS_PURGE } from './account/purge.js';
import { META_TOKEN_PURGE } from './pairing/purge.js';
import { startCatalogueImport } from './catalogue/catalogue-import.js';
import { seedManagementDemoData } from './demo-data.js';
import { createResetRequestLimiter } from './account/limiter.js';
import { accountRoutes, publicAccountRoutes } from './account/routes.js';
import { createAccountService } from './account/service.js';
import { createMetaTokenReadLimiter } from './pairing/limiter.js';
import { pairingRoutes, publicMetaTokenRoutes } from './pairing/routes.js';
import { createPairingService } from './pairing/service.js';
import { managementApi } from './api/routes.js';
import { registerPageSupport } from './pages.js';
import { adminUi } from './ui/plugin.js';
import { createPageFallback, createPageRouteIndex, type SignedInOf } from './ui/error-page.js';
import { createShownOnce } from './ui/shown-once.js';
import type { NotificationDesk } from './ui/notifications/desk.js';
import { createPasswordSignIn } from './oauth/sign-in.js';
import { auditsRoutes } from './api/audits/routes.js';
import { createAuditService } from './api/audits/service.js';
import { authoritiesRoutes } from './api/authorities/routes.js';
import { groupsRoutes } from './api/groups/routes.js';
import { createGroupService } from './api/groups/service.js';
import { oauthClientRoutes } from './api/oauth-clients/routes.js';
import { createOAuthClientService } from './api/oauth-clients/service.js';
import { organizationsRoutes } from './api/organizations/routes.js';
import { createOrganizationService } from './api/organizations/service.js';
import { projectsRoutes } from './api/projects/routes.js';
import { createProjectService } from './api/projects/service.js';
import { publicRoutes } from './api/public/routes.js';
import { createPublicService } from './api/public/service.js';
import { revisionsRoutes } from './api/revisions/routes.js';
import { createRevisionService } from './api/revisions/service.js';
import { rolesRoutes } from './api/roles/routes.js';
import { createRoleService } from './api/roles/service.js';
import { sourceDataRoutes } from './api/source-data/routes.js';
import { createSourceDataService } from './api/source-data/service.js';
import { sourceTypesRoutes } from './api/source-types/routes.js';
import { createSourceTypeService } from './api/source-types/service.js';
import { sourcesRoutes } from './api/sources/routes.js';
import { createSourceService } from './api/sources/service.js';
import { subjectsRoutes } from './api/subjects/routes.js';
import { createSubjectService } from './api/subjects/service.js';
import { createSubjectRevisionsService } from './api/subjects/subject-revisions.js';
import { createSubjectSourcesService } from './api/subjects/subject-sources.js';
import { usersRoutes } from './api/users/routes.js';
import { createUserService } from './api/users/service.js';
import type { EventBus } from '../platform/events.js';
import type { PlatformEvents } from '../platform/logging.js';
import { guardedOperationRoutes, healthRoutes, type Operations } from '../platform/operations.js';
import { authorName, principal, requireSysAdmin } from './security/authorization.js';
import { ErrorVm } from './http/error-schemas.js';

const MANAGEMENT_OPERATIONS_TAGS = ['management: operations'];

export { managementSettings, type ManagementSettings } from './settings.js';
export type { NotificationDesk } from './ui/notifications/desk.js';
export { localTokenAuthority, type LocalTokenAuthority } from './oauth/resource-server.js';

/**
 * The domain's API paths, under its prefix: the JSON API, the OAuth endpoints a script calls
 * (not the sign-in and consent pages) and the audit events. CORS applies to these only.
 */
export const MANAGEMENT_API_PATHS = ['/api', '/management', '/.well-known', '/oauth/token', '/oauth/token_key', '/oauth/check_token', '/oauth/introspect', '/oauth/revoke'] as const;

/** The pages of the router's errors under the domain's prefix (app.ts `frameworkErrors`). */
export interface ManagementRouterErrorPages {
  /** The UI's error page for a browser on a page's path, else undefined (the API's body). */
  page(request: FastifyRequest, reply: FastifyReply, status: number, code: string): Promise<FastifyReply> | undefined;
  /** Called by the domain's plugin once its sessions exist: a signed-in user's page then has its navbar. */
  readSessionsWith(signedIn: SignedInOf): void;
}

/**
 * The router's errors (a malformed URL, an over-long path parameter) come before any route, so
 * before the domain's plugin is known: app.ts builds these pages with the Fastify instance, and
 * `managementPlugin` (option `routerErrorPages`) hands them its session reader when it starts.
 */
export function managementRouterErrorPages(base: string): ManagementRouterErrorPages {
  let sessionReader: SignedInOf | undefined;
  const fallback = createPageFallback({
    base, apiPaths: MANAGEMENT_API_PATHS, routes: createPageRouteIndex(),
    signedIn: async (request) => sessionReader?.(request),
  });
  return {
    page: (request, reply, status, code) => (fallback.covers(request) ? fallback.routerError(request, reply, status, code) : undefined),
    readSessionsWith(signedIn) { sessionReader = signedIn; },
  };
}

export const DEV_CLIENTS_FILE = 'config/oauth_client_details.csv';
/** Where the reference's Docker image and helm charts mount the clients file. */
export const REFERENCE_CLIENTS_FILE = '/mp-includes/config/oauth_client_details.csv';

/**
 * Reads the signing and checking keys. `buildApp` calls this before opening the database, so a
 * bad keystore stops the start before anything is migrated or written. `prefetched`: the read
 * main.ts started before the app's modules loaded (used when it is of the same file and password).
 */
export async function loadManagementKeys(settings: ManagementSettings, log: FastifyBaseLogger, prefetched?: KeystoreRead): Promise<KeySet> {
  const { keyStore } = settings;
  return loadKeySet({
    profile: settings.profile,
    // Drop-in: the reference's image and helm charts mount the keystore at their own path.
    file: keyStoreFile(keyStore.file),
    password: keyStore.password,
    signingAlias: keyStore.signingAlias,
    checkingAliases: keyStore.checkingAliases,
  }, log, prefetched);
}

export interface ManagementPluginOptions {
  /** `managementSettings(config)`: everything the domain takes from the configuration. */
  settings: ManagementSettings;
  keys: KeySet;
  /** Clock in epoch milliseconds (tests move time). */
  now?: () => number;
  /** Load the dev profile's demo data (managementportal.md §9). */
  demoData?: boolean;
  /** The app server's notifications for the admin UI's pages (undefined: those pages say it is unavailable). */
  notificationDesk?: NotificationDesk | undefined;
  /** The operational endpoints the actuator serves, served again under `/management` (undefined: not served). */
  operations?: Operations | undefined;
  /** The router's error pages (app.ts `frameworkErrors`), to be given the session reader. */
  routerErrorPages?: ManagementRouterErrorPages | undefined;
}

export const managementPlugin: FastifyPluginAsync<ManagementPluginOptions> = async (app, { settings, keys, now = Date.now, demoData = false, notificationDesk, operations, routerErrorPages }) => {
  const db: Database = app.db.db;
  const log = app.logLevels.component('management');

  acceptEmptyJsonBodies(app);
  // A NUL character or a coerced Infinity anywhere in a request: 400 (the OAuth scopes: invalid_request or a page).
  app.addHook('preHandler', rejectUnstorableInput(unstorableInput));
  app.setErrorHandler(createErrorHandler(managementErrorFormat));
  // A browser's request for an unknown page of the UI: the UI's 404 (or 405) page, not the API's JSON.
  const uiRouteIndex = createPageRouteIndex();
  // With a signed-in session the page has that user's navbar (`sessionAuth` is built below, before any request).
  const pageFallback = createPageFallback({
    base: app.prefix, apiPaths: MANAGEMENT_API_PATHS, routes: uiRouteIndex, signedIn: (request) => sessionAuth.signedInOf(request),
  });
  app.setNotFoundHandler((request, reply) => {
    if (pageFallback.covers(request)) return pageFallback.notFound(request, reply);
    reply.code(404).send({ message: 'error.notFound', description: `No endpoint ${request.method} ${request.url.split('?')[0]}`, fieldErrors: null });
  });

  // The admin password's bcrypt check (~50 ms on libuv's pool) runs while the routes below register.
  const adminPasswordCheck = await startAdminPasswordCheck(db, { profile: settings.profile, adminPassword: settings.adminPassword });

  const audit = createAuditLog({ db, log: app.logLevels.component('audit') });
  app.addHook('onClose', async () => audit.flush());
  // A log level changed through /actuator or /management (platform/operations.ts): audited with who did it.
  const stopAuditingLevels = (app.events as unknown as EventBus<PlatformEvents>).subscribe('logger.level', (change) => {
    audit.record({
      principal: change.actor, type: 'LOGGER_LEVEL_CHANGED',
      data: { logger: change.logger, level: change.configuredLevel ?? 'null', effectiveLevel: change.effectiveLevel, via: change.via },
    });
  });
  app.addHook('onClose', async () => stopAuditingLevels());
  const clients = createClientStore({ db, now });
  // The one signer/verifier: it owns the crypto worker thread, stopped with the app.
  const signing = createTokenSigning(keys);
  app.addHook('onClose', async () => signing.close());
  const issuer = createTokenIssuer({ signer: signing, issuer: settings.oauth.issuer, now });

  const limiter = createFailedAttemptLimiter({ maxPerMinute: settings.oauth.failedAttemptsPerMinute, maxPerAddressPerMinute: settings.oauth.failedAttemptsPerAddressPerMinute, now });

  await app.register(oauthRoutes, {
    keys,
    issuer: settings.oauth.issuer,
    token: { db, clients, limiter, issuer, verifier: signing, audit, now, refreshReuseGraceSeconds: settings.oauth.refreshReuseGraceSeconds, legacyRefreshUntil: settings.oauth.legacyRefreshUntil },
    introspection: { db, clients, limiter, verifier: signing, now },
  });

  // The management API: every route but the public ones authenticates its principal first.
  // The sign-in pages' sessions also authenticate the API (the admin UI), so both get the same store and key.
  const sessions = createSessionStore({ db, now, ttlSeconds: settings.ui.sessionTimeoutSeconds, maxAgeSeconds: settings.ui.sessionMaxAgeSeconds, audit });
  const sessionSecret = await resolveSessionSecret(db, settings.sessionSecret);
  const sessionAuth = createSessionAuth({ db, sessions, secret: sessionSecret });
  routerErrorPages?.readSessionsWith((request) => sessionAuth.signedInOf(request));
  const bearer = createBearerAuth({ db, verifier: signing, now, session: sessionAuth });
  app.decorateRequest('mpAuth', null);

  // The resource API's services, each built once (the admin UI's pages will take the same ones).
  const accountMail = createAccountMail({ mail: app.mail, settings: settings.mail, log: app.logLevels.component('account-mail') });
  app.addHook('onClose', async () => accountMail.close());
  const persistentTokenTimeoutMs = settings.pairing.persistentMetaTokenTimeoutSeconds * 1000;
  const subjectDeps = { db, audit, now, persistentTokenTimeoutMs };
  const services = {
    account: createAccountService({ db, now, accountMail, activationKeyTimeoutSeconds: settings.activationKeyTimeoutSeconds }),
    audits: createAuditService({ db, audit }),
    groups: createGroupService({ db, now }),
    oauthClients: createOAuthClientService({ db, clients, log }),
    organizations: createOrganizationService({ db, now, persistentTokenTimeoutMs }),
    pairing: createPairingService({ db, audit, now, issuer, settings: settings.pairing }),
    projects: createProjectService({ db, now, persistentTokenTimeoutMs }),
    publicProjects: createPublicService({ db }),
    revisions: createRevisionService({ db }),
    roles: createRoleService({ db, now }),
    sourceData: createSourceDataService({ db, now }),
    sourceTypes: createSourceTypeService({ db, now }),
    sources: createSourceService({ db, now }),
    subjects: createSubjectService(subjectDeps),
    subjectSources: createSubjectSourcesService(subjectDeps),
    subjectRevisions: createSubjectRevisionsService(subjectDeps),
    users: createUserService({ db, now, onUserCreated: (user) => { accountMail.creation(user); } }),
  };
  const { account, pairing } = services;
  // Password-reset requests count together, whether asked through the API or the admin UI's page.
  const resetLimiter = createResetRequestLimiter({ now });

  // Each route module gets only what it uses.
  await app.register(managementApi, {
    bearer,
    open: async (api) => {
      await api.register(publicRoutes, { service: services.publicProjects, profile: settings.profile, hiddenSubjectFields: settings.hiddenSubjectFields });
      // The cookie path of the sign-in pages (oauth/authorize/routes.ts).
      await api.register(logoutRoutes, { session: sessionAuth, cookiePath: `${app.prefix}/` });
      await api.register(publicAccountRoutes, { account, limiter: resetLimiter });
      await api.register(publicMetaTokenRoutes, { pairing, limiter: createMetaTokenReadLimiter({ maxPerMinute: settings.metaTokenReadsPerMinute, now }) });
    },
    secured: async (api) => {
      await api.register(oauthClientRoutes, { oauthClients: services.oauthClients });
      await api.register(organizationsRoutes, { organizations: services.organizations });
      await api.register(projectsRoutes, { projects: services.projects });
      await api.register(groupsRoutes, { groups: services.groups });
      await api.register(subjectsRoutes, { subjects: services.subjects, sources: services.subjectSources, revisions: services.subjectRevisions });
      await api.register(sourcesRoutes, { sources: services.sources });
      await api.register(sourceTypesRoutes, { sourceTypes: services.sourceTypes });
      await api.register(sourceDataRoutes, { sourceData: services.sourceData });
      await api.register(usersRoutes, { users: services.users });
      await api.register(rolesRoutes, { roles: services.roles });
      await api.register(authoritiesRoutes);
      await api.register(revisionsRoutes, { revisions: services.revisions });
      await api.register(accountRoutes, { account });
      await api.register(pairingRoutes, { pairing });
    },
    managementOpen: async (api) => {
      if (operations) await api.register(healthRoutes, { operations, tags: MANAGEMENT_OPERATIONS_TAGS });
    },
    management: async (api) => {
      await api.register(auditsRoutes, { audits: services.audits });
      // The reference's `management.endpoints` (and its LogsResource): `@Secured(ROLE_SYS_ADMIN)`.
      if (operations) {
        await api.register(guardedOperationRoutes, {
          operations, tags: MANAGEMENT_OPERATIONS_TAGS, endpoints: ['info', 'prometheus', 'loggers', 'logs'], guard: requireSysAdmin,
          errorBody: ErrorVm, refusals: [401, 403], security: [{ bearer: [] }],
          actorOf: (request) => ({ name: authorName(principal(request)), via: 'management' }),
        });
      }
    },
  });
  // The HTML pages: the OAuth sign-in and consent pages and the admin UI share the session cookie on the domain's path.
  const cookiePath = `${app.prefix}/`;
  await app.register(async (pages) => {
    await registerPageSupport(pages, sessionSecret);
    // Every page's route, so a page asked with a method it does not take is a 405 page (ui/error-page.ts).
    pages.addHook('onRoute', (route) => uiRouteIndex.add(route));
    await pages.register(authorizeRoutes, {
      // The token endpoint's limiter: sign-in failures share its (username, IP) counters.
      authorize: createAuthorizeService({ db, clients, now, limiter, audit, requirePkce: settings.oauth.requirePkce }),
      sessions,
      cookiePath,
      now,
      languageOfUser: async (login) => (await findUserByLogin(db, login))?.langKey ?? null,
    });
    await pages.register(adminUi, {
      sessions, sessionAuth, now, logoDir: settings.ui.logoDir, hiddenSubjectFields: settings.hiddenSubjectFields,
      signIn: createPasswordSignIn({ db, limiter, audit, via: 'admin UI' }),
      services: {
        projects: services.projects, oauthClients: services.oauthClients, users: services.users, account, organizations: services.organizations,
        approvals: createApprovalService({ db, now }), resetLimiter, sourceTypes: services.sourceTypes, audits: services.audits,
        subjects: services.subjects, groups: services.groups, sources: services.sources, pairing, subjectSources: services.subjectSources,
        subjectRevisions: services.subjectRevisions, sourceData: services.sourceData,
      },
      notificationDesk,
      audit,
      shownOnce: createShownOnce(sessionSecret, now),
    });
  });

  // After the routes: registering them keeps this thread busy, and the check above runs meanwhile.
  await app.db.exclusive(async () => {
    await ensureBuiltInAccounts(db, { profile: settings.profile, adminPassword: settings.adminPassword }, log, adminPasswordCheck);
    if (demoData) await seedManagementDemoData(db, log);
    const clientsFile = settings.oauth.clientsFile
      ?? (settings.profile === 'dev' ? DEV_CLIENTS_FILE : existsSync(REFERENCE_CLIENTS_FILE) ? REFERENCE_CLIENTS_FILE : undefined);
    if (clientsFile) await loadClientsFile(db, clientsFile, log);
    else log.warn({ setting: 'MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE' }, 'no oauth clients file configured');
    await ensureFrontendClient(db, settings.oauth.frontendClient);
  });

  // Clean-up of expired and stale rows; every job is idempotent, so each instance runs them.
  const stopMaintenance = startMaintenance({ db, jobs: [...OAUTH_CLEANUP_JOBS, NOT_ACTIVATED_USERS_PURGE, META_TOKEN_PURGE, ...(settings.auditRetention ? [auditRetentionJob(settings.auditRetention)] : [])], intervalMs: MAINTENANCE_INTERVAL_MS, now, log });
  app.addHook('onClose', async () => stopMaintenance());

  if (settings.catalogueServerUrl !== undefined) {
    // In the background: a slow or absent catalogue server delays nothing.
    const catalogue = startCatalogueImport({ db, url: settings.catalogueServerUrl, log: app.logLevels.component('catalogue-import'), now });
    app.addHook('onClose', async () => { catalogue.stop(); await catalogue.done; });
  }
};
