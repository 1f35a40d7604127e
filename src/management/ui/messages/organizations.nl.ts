/** Dutch texts of the organization pages. */
import type { organizationsEn } from './organizations.en.js';

export const organizationsNl: Partial<Record<keyof typeof organizationsEn, string>> = {
  'organizations.title': 'Organisaties',
  'organizations.name': 'Naam',
  'organizations.description': 'Beschrijving',
  'organizations.location': 'Locatie',
  'organizations.projectCount': 'Projecten',
  'organizations.none': 'Geen organisaties.',
  'organizations.projects': 'Projecten',
  'organizations.project': 'Project',
  'organizations.noProjects': 'Geen projecten.',
  'organizations.admins': 'Organisatiebeheerders',
};
