/** English texts of the audit page (`/audits`). */
export const auditsEn = {
  'audits.title': 'Audits',
  'audits.from': 'From',
  'audits.to': 'To',
  'audits.search': 'Search',
  'audits.time': 'Time',
  'audits.principal': 'Principal',
  'audits.type': 'Type',
  'audits.data': 'Data',
  'audits.none': 'No audit events in this period.',
  'audits.previous': 'Previous page',
  'audits.next': 'Next page',
  'audits.count': '{from}–{to} of {total}',
  'audits.badRange': 'The start of the period is after its end.',
} as const;
