/** Dutch texts of the audit page. */
import type { auditsEn } from './audits.en.js';

export const auditsNl: Record<keyof typeof auditsEn, string> = {
  'audits.title': 'Auditlog',
  'audits.from': 'Van',
  'audits.to': 'Tot en met',
  'audits.search': 'Zoeken',
  'audits.time': 'Tijd',
  'audits.principal': 'Gebruiker',
  'audits.type': 'Type',
  'audits.data': 'Gegevens',
  'audits.none': 'Geen auditgebeurtenissen in deze periode.',
  'audits.previous': 'Nieuwste gebeurtenissen',
  'audits.next': 'Volgende pagina',
  'audits.count': '{count} gebeurtenissen, nieuwste eerst',
  'audits.badRange': 'Het begin van de periode ligt na het einde.',
  'audits.kind': 'Soort',
  'audits.actor': 'Uitgevoerd door',
  'audits.targetType': 'Soort doel',
  'audits.target': 'Doel',
  'audits.any': 'Alle',
  'audits.address': 'Adres',
  'audits.changes': 'Wijzigingen',
  'audits.redacted': '(geheim, niet vastgelegd)',
  'audits.export': 'CSV exporteren',
};
