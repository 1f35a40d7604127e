/**
 * The admin UI (issue 19): server-rendered pages under the management domain's context path,
 * registered inside the pages scope (management/pages.ts: form bodies, the session cookie, Eta).
 * Every page calls the API's services, built once by the domain's plugin, with the signed-in
 * user as actor (context.ts); each page module gets only the services it uses.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ProjectService } from '../api/projects/service.js';
import type { PasswordSignIn } from '../oauth/sign-in.js';
import type { SessionAuth } from '../security/session-auth.js';
import type { SessionStore } from '../session/sessions.js';
import { contentRoutes } from './content.js';
import { uiGuard } from './context.js';
import { uiErrorHandler } from './errors.js';
import { homeRoutes } from './home.js';
import { projectPages, type ProjectPagesServices } from './projects/plugin.js';
import { signInRoutes } from './sign-in.js';

export interface AdminUiOptions {
  sessions: SessionStore;
  sessionAuth: Pick<SessionAuth, 'principalOfUser'>;
  signIn: PasswordSignIn;
  now: () => number;
  /** `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS`: subject fields the project pages leave out. */
  hiddenSubjectFields: readonly string[];
  /** `MANAGEMENTPORTAL_UI_LOGO_DIR`. */
  logoDir: string | undefined;
  services: {
    projects: ProjectService;
  } & ProjectPagesServices;
}

export const adminUi: FastifyPluginAsync<AdminUiOptions> = async (app, { sessions, sessionAuth, signIn, now, logoDir, services, hiddenSubjectFields }) => {
  const base = app.prefix;
  app.decorateRequest('ui', null);
  app.addHook('preValidation', uiGuard({ sessions, sessionAuth, base }));
  app.setErrorHandler(uiErrorHandler);

  await app.register(contentRoutes, { logoDir });
  await app.register(signInRoutes, { signIn, sessions, sessionAuth, now });
  await app.register(homeRoutes, { projects: services.projects });
  await app.register(projectPages, { ...services, hiddenSubjectFields });
};
