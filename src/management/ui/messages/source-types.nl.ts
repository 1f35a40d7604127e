/** Dutch texts of the source type page. */
import type { sourceTypesEn } from './source-types.en.js';

export const sourceTypesNl: Partial<Record<keyof typeof sourceTypesEn, string>> = {
  'sourceTypes.title': 'Brontypen',
  'sourceTypes.none': 'Geen brontypen.',
  'sourceTypes.type': 'Brontype',
  'sourceTypes.dynamic': 'Dynamische registratie',
  'sourceTypes.yes': 'ja',
  'sourceTypes.no': 'nee',
  'sourceTypes.name': 'Naam',
  'sourceTypes.sourceData': 'Brongegevens',
  'sourceTypes.enabled': 'Actief',
};
