/** Dutch texts of the audit page. */
import type { auditsEn } from './audits.en.js';

export const auditsNl: Partial<Record<keyof typeof auditsEn, string>> = {
  'audits.from': 'Van',
  'audits.to': 'Tot en met',
  'audits.search': 'Zoeken',
  'audits.time': 'Tijd',
  'audits.type': 'Type',
  'audits.data': 'Gegevens',
  'audits.none': 'Geen audit-gebeurtenissen in deze periode.',
  'audits.previous': 'Nieuwste gebeurtenissen',
  'audits.next': 'Volgende pagina',
  'audits.count': '{count} gebeurtenissen, nieuwste eerst',
  'audits.kind': 'Soort',
  'audits.actor': 'Actor',
  'audits.targetType': 'Soort doel',
  'audits.target': 'Doel',
  'audits.any': 'Alle',
  'audits.address': 'Adres',
  'audits.changes': 'Wijzigingen',
  'audits.redacted': '(geheim, niet vastgelegd)',
  'audits.export': 'CSV exporteren',
};
