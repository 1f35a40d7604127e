/** Dutch texts of the project pages; a missing key shows the English text. */
import type { projectsEn } from './projects.en.js';

export const projectsNl: Partial<Record<keyof typeof projectsEn, string>> = {
  'project.title': 'Project {name}',
  'project.tab.subjects': 'Deelnemers',
  'project.tab.groups': 'Groepen',
  'project.tab.sources': 'Bronnen',
  'project.tab.admins': 'Beheerders',
  'subjects.personName': 'Naam',
  'subjects.dateOfBirth': 'Geboortedatum',
  'subjects.group': 'Groep',
  'subjects.searchButton': 'Zoeken',
  'subjects.loadMore': 'Meer laden',
  'subjects.count': '{shown} van {total}',
  'subjects.status': 'Status',
  'pair.print': 'Afdrukken',
  'pair.baseUrl': 'Basis-URL',
  'pair.loopback': '{setting} is {url}, een loopback-adres: een telefoon kan het niet bereiken. Stel het in op het adres van het platform in het netwerk voordat u koppelt.',
  'subjects.notActive.DEACTIVATED': 'Deelnemer {login} is niet geactiveerd: koppelen of beëindigen kan niet.',
  'subjects.notActive.DISCONTINUED': 'Deelnemer {login} is beëindigd: koppelen of opnieuw beëindigen kan niet.',
  'subjects.notActive.INVALID': 'Deelnemer {login} is beëindigd: koppelen of opnieuw beëindigen kan niet.',
  'projects.yes': 'Ja',
  'projects.no': 'Nee',
};
