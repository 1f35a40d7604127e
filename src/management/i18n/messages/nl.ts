/**
 * Dutch texts of the admin UI and the OAuth pages. Complete: test/management/ui/i18n.test.ts
 * fails on an English key without a Dutch text (a missing one would show the English text).
 */
import type { coreEn, MessageKey } from './en.js';
import { accountNl } from './account.nl.js';
import { auditsNl } from './audits.nl.js';
import { notificationsNl } from './notifications.nl.js';
import { oauthNl } from './oauth.nl.js';
import { oauthClientsNl } from './oauth-clients.nl.js';
import { projectsNl } from './projects.nl.js';
import { organizationsNl } from './organizations.nl.js';
import { setupNl } from './setup.nl.js';
import { sourceTypesNl } from './source-types.nl.js';
import { subjectPageNl } from './subject-page.nl.js';
import { sourceTypeFormsNl } from './source-type-forms.nl.js';
import { usersNl } from './users.nl.js';
import { groupsNl } from './groups.nl.js';
import { projectSourcesNl } from './project-sources.nl.js';
import { listsNl } from './lists.nl.js';
import { formsNavNl } from './forms-nav.nl.js';
import { usersRightsNl } from './users-rights.nl.js';

const core: Record<keyof typeof coreEn, string> = {
  'app.title': 'RADAR-base ManagementPortal',
  'nav.label': 'Hoofdmenu',
  'nav.home': 'Start',
  'nav.organizations': 'Organisaties',
  'nav.sourceTypes': 'Brontypen',
  'nav.users': 'Gebruikers',
  'nav.clients': 'OAuth-clients',
  'nav.audits': 'Auditlog',
  'nav.notifications': 'Notificaties',
  'nav.account': 'Account',
  'nav.signOut': 'Afmelden',
  'nav.menu': 'Menu',
  'logo.navbar': 'RADAR-base-logo',
  'logo.home': 'RADAR-base',
  'time.zone': 'UTC',
  'common.save': 'Opslaan',
  'common.cancel': 'Annuleren',
  'common.back': 'Terug',
  'common.none': 'Geen',
  'login.title': 'Aanmelden',
  'login.username': 'Gebruikersnaam',
  'login.password': 'Wachtwoord',
  'login.submit': 'Aanmelden',
  'login.failed': 'Verkeerde gebruikersnaam of wachtwoord. Deelnemers aan een studie melden zich aan in de app, niet hier.',
  'login.limited': 'Te veel mislukte aanmeldpogingen. Probeer het over een minuut opnieuw.',
  'login.forgot': 'Wachtwoord vergeten?',
  'home.title': 'Studies',
  'home.welcome': 'Aangemeld als {login}.',
  'home.noProjects': 'Geen projecten.',
  'error.title': 'Fout',
  'error.403': 'U hebt geen toestemming voor deze pagina of handeling.',
  'error.404': 'Niet gevonden.',
  'error.400': 'Het verzoek is niet geldig.',
  'error.csrf': 'Dit formulier is verlopen of kwam niet van deze site. Ga terug, laad de pagina opnieuw en probeer het nogmaals.',
  'error.500': 'Er ging iets mis. Probeer het later opnieuw.',
  'error.503': 'De dienst is even niet beschikbaar. Probeer het zo opnieuw.',
};

export const nl: Partial<Record<MessageKey, string>> = {
  ...core,
  ...accountNl,
  ...auditsNl,
  ...notificationsNl,
  ...oauthNl,
  ...oauthClientsNl,
  ...organizationsNl,
  ...projectsNl,
  ...setupNl,
  ...sourceTypesNl,
  ...subjectPageNl,
  ...sourceTypeFormsNl,
  ...usersNl,
  ...groupsNl,
  ...projectSourcesNl,
  ...listsNl,
  ...formsNavNl,
  ...usersRightsNl,
};
