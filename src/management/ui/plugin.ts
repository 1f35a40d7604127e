/**
 * The admin UI (issue 19): server-rendered pages under the management domain's context path,
 * registered inside the pages scope (management/pages.ts: form bodies, the session cookie, Eta).
 * Every page calls the API's services, built once by the domain's plugin, with the signed-in
 * user as actor (context.ts); each page module gets only the services it uses.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RequestLimiter } from '../account/limiter.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ShownOnce } from './shown-once.js';
import type { AccountService } from '../account/service.js';
import type { AuditService } from '../api/audits/service.js';
import type { SourceDataService } from '../api/source-data/service.js';
import type { SourceTypeService } from '../api/source-types/service.js';
import type { OAuthClientService } from '../api/oauth-clients/service.js';
import type { OrganizationService } from '../api/organizations/service.js';
import type { UserService } from '../api/users/service.js';
import type { ProjectService } from '../api/projects/service.js';
import type { ApprovalService } from '../oauth/authorize/approvals.js';
import type { PasswordSignIn } from '../oauth/sign-in.js';
import type { SessionAuth } from '../security/session-auth.js';
import type { SessionStore } from '../session/sessions.js';
import { ownAccountPages } from './account/own-pages.js';
import { publicAccountPages } from './account/public-pages.js';
import { contentRoutes } from './content.js';
import { uiGuard } from './context.js';
import { uiErrorHandler } from './errors.js';
import { homeRoutes } from './home.js';
import { languageRoutes } from './language.js';
import type { NotificationDesk } from './notifications/desk.js';
import { notificationPages } from './notifications/pages.js';
import { oauthClientRoutes } from './oauth-clients.js';
import { organizationRoutes } from './organizations.js';
import { sourceTypeRoutes } from './source-types.js';
import { auditRoutes } from './audits.js';
import { userRoutes } from './users.js';
import { projectPages, type ProjectPagesServices } from './projects/plugin.js';
import { signInRoutes } from './sign-in.js';

export interface AdminUiOptions {
  sessions: SessionStore;
  sessionAuth: Pick<SessionAuth, 'principalOfUser' | 'signedInOf'>;
  signIn: PasswordSignIn;
  now: () => number;
  /** `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS`: subject fields the project pages leave out. */
  hiddenSubjectFields: readonly string[];
  /** `MANAGEMENTPORTAL_UI_LOGO_DIR`. */
  logoDir: string | undefined;
  services: {
    projects: ProjectService;
    oauthClients: OAuthClientService;
    users: UserService;
    account: AccountService;
    organizations: OrganizationService;
    approvals: ApprovalService;
    sourceTypes: SourceTypeService;
    sourceData: SourceDataService;
    audits: AuditService;
    /** The API's limiter of password-reset requests, shared with the page. */
    resetLimiter: RequestLimiter;
  } & ProjectPagesServices;
  /** The app server's notifications (app.ts passes them in). */
  notificationDesk: NotificationDesk | undefined;
  /** The audit trail's batched writer (test notifications sent). */
  audit: AuditLog;
  /** Values a page shows once after a redirect (a generated client secret). */
  shownOnce: ShownOnce;
}

export const adminUi: FastifyPluginAsync<AdminUiOptions> = async (app, { sessions, sessionAuth, signIn, now, logoDir, services, notificationDesk, hiddenSubjectFields, audit, shownOnce }) => {
  const base = app.prefix;
  app.decorateRequest('ui', null);
  app.addHook('preValidation', uiGuard({ sessions, sessionAuth, base }));
  app.setErrorHandler(uiErrorHandler(base, (request) => sessionAuth.signedInOf(request)));

  await app.register(contentRoutes, { logoDir });
  await app.register(signInRoutes, { signIn, sessions, sessionAuth, now });
  await app.register(languageRoutes);
  await app.register(homeRoutes, { projects: services.projects });
  await app.register(notificationPages, { projects: services.projects, desk: notificationDesk, audit });
  await app.register(oauthClientRoutes, { oauthClients: services.oauthClients, shownOnce });
  await app.register(publicAccountPages, { account: services.account, sessions, resetLimiter: services.resetLimiter });
  await app.register(ownAccountPages, { account: services.account, signIn, approvals: services.approvals });
  await app.register(organizationRoutes, { organizations: services.organizations, users: services.users });
  await app.register(sourceTypeRoutes, { sourceTypes: services.sourceTypes, sourceData: services.sourceData });
  await app.register(auditRoutes, { audits: services.audits, now });
  await app.register(userRoutes, { users: services.users, account: services.account, projects: services.projects, organizations: services.organizations });
  await app.register(projectPages, { ...services, hiddenSubjectFields });
};
