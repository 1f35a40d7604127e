/** Dutch texts of the subject list's sources and status and of the admins tab "Remove"; a missing key shows the English text. */
import type { listsEn } from './lists.en.js';

export const listsNl: Partial<Record<keyof typeof listsEn, string>> = {
  'subjects.sources': 'Bronnen',
  'admins.role': 'Rol',
  'admins.actions': 'Acties',
  'admins.remove': 'Verwijderen',
  'admins.removeLabel': 'Rol {role} van {login} verwijderen',
  'admins.removed': '{login} heeft de rol {role} in project {project} niet meer.',
  'admins.notHeld': '{login} heeft geen rol {role} in dit project.',
  'admins.denied': 'U mag de rol {role} niet afnemen van {login}: daarvoor hebt u dat recht nodig in elk project en elke organisatie waarin de gebruiker een rol heeft.',
};
