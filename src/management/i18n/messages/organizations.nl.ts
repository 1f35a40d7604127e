/** Dutch texts of the organization pages. */
import type { organizationsEn } from './organizations.en.js';

export const organizationsNl: Record<keyof typeof organizationsEn, string> = {
  'organizations.title': 'Organisaties',
  'organizations.name': 'Naam',
  'organizations.description': 'Beschrijving',
  'organizations.location': 'Locatie',
  'organizations.projectCount': 'Projecten',
  'organizations.none': 'Geen organisaties.',
  'organizations.projects': 'Projecten',
  'organizations.project': 'Project',
  'organizations.status': 'Status',
  'organizations.noProjects': 'Geen projecten.',
  'organizations.admins': 'Organisatiebeheerders',
  'organizations.login': 'Gebruikersnaam',
  'organizations.email': 'E-mailadres',
  'organizations.noAdmins': 'Geen organisatiebeheerders.',
};
