/**
 * English texts of the admin UI (complete: every key the pages use is here). `{name}` is replaced
 * by the page's parameter of that name. Page modules add their keys in their own section.
 */
import { accountEn } from './account.en.js';
import { auditsEn } from './audits.en.js';
import { notificationsEn } from './notifications.en.js';
import { oauthEn } from './oauth.en.js';
import { oauthClientsEn } from './oauth-clients.en.js';
import { projectsEn } from './projects.en.js';
import { organizationsEn } from './organizations.en.js';
import { setupEn } from './setup.en.js';
import { sourceTypesEn } from './source-types.en.js';
import { subjectPageEn } from './subject-page.en.js';
import { sourceTypeFormsEn } from './source-type-forms.en.js';
import { usersEn } from './users.en.js';
import { groupsEn } from './groups.en.js';
import { projectSourcesEn } from './project-sources.en.js';
import { listsEn } from './lists.en.js';
import { formsNavEn } from './forms-nav.en.js';
import { usersRightsEn } from './users-rights.en.js';

export const coreEn = {
  // Layout and navigation
  'app.title': 'RADAR-base ManagementPortal',
  'nav.label': 'Main',
  'nav.home': 'Home',
  'nav.organizations': 'Organizations',
  'nav.sourceTypes': 'Source types',
  'nav.users': 'Users',
  'nav.clients': 'OAuth clients',
  'nav.audits': 'Audits',
  'nav.notifications': 'Notifications',
  'nav.account': 'Account',
  'nav.signOut': 'Sign out',
  'nav.menu': 'Menu',
  'logo.navbar': 'RADAR-base logo',
  'logo.home': 'RADAR-base',
  'time.zone': 'UTC',
  'common.save': 'Save',
  'common.cancel': 'Cancel',
  'common.back': 'Back',
  'common.none': 'None',
  // Sign-in
  'login.title': 'Sign in',
  'login.username': 'Username',
  'login.password': 'Password',
  'login.submit': 'Sign in',
  'login.failed': 'Wrong user name or password. Study participants sign in with the app, not here.',
  'login.limited': 'Too many failed sign-in attempts. Try again in a minute.',
  'login.forgot': 'Forgot your password?',
  // Home
  'home.title': 'Studies',
  'home.welcome': 'Signed in as {login}.',
  'home.noProjects': 'No projects.',
  // Errors
  'error.title': 'Error',
  'error.403': 'You do not have permission to see this page or do this.',
  'error.404': 'Not found.',
  'error.400': 'The request is not valid.',
  'error.csrf': 'This form has expired or did not come from this site. Go back, reload the page and try again.',
  'error.500': 'Something went wrong. Please try again later.',
  'error.503': 'The service is briefly unavailable. Please try again in a moment.',
} as const;

/** Every area's texts: one spread per page area. */
export const en = {
  ...coreEn,
  ...accountEn,
  ...auditsEn,
  ...notificationsEn,
  ...oauthClientsEn,
  ...oauthEn,
  ...organizationsEn,
  ...projectsEn,
  ...setupEn,
  ...sourceTypesEn,
  ...subjectPageEn,
  ...sourceTypeFormsEn,
  ...usersEn,
  ...groupsEn,
  ...projectSourcesEn,
  ...listsEn,
  ...formsNavEn,
  ...usersRightsEn,
};

export type MessageKey = keyof typeof en;
