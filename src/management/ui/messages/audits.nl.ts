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
};
