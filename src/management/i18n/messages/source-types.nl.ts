/** Dutch texts of the source type page. */
import type { sourceTypesEn } from './source-types.en.js';

export const sourceTypesNl: Record<keyof typeof sourceTypesEn, string> = {
  'sourceTypes.title': 'Brontypen',
  'sourceTypes.none': 'Geen brontypen.',
  'sourceTypes.type': 'Brontype',
  'sourceTypes.scope': 'Bereik',
  'sourceTypes.dynamic': 'Dynamische registratie',
  'sourceTypes.yes': 'ja',
  'sourceTypes.no': 'nee',
  'sourceTypes.name': 'Naam',
  'sourceTypes.sourceData': 'Brongegevens',
  'sourceTypes.sourceDataCount': '{count} soorten brongegevens',
  'sourceTypes.dataName': 'Naam van de brongegevens',
  'sourceTypes.dataType': 'Type',
  'sourceTypes.topic': 'Topic',
  'sourceTypes.frequency': 'Frequentie',
  'sourceTypes.unit': 'Eenheid',
  'sourceTypes.processingState': 'Verwerkingsstadium',
  'sourceTypes.enabled': 'Actief',
  'sourceTypes.previous': 'Vorige pagina',
  'sourceTypes.next': 'Volgende pagina',
  'sourceTypes.count': '{from}–{to} van {total}',
};
