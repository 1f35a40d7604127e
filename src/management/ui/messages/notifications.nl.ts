/** Dutch texts of the notification pages. */
import type { notificationsEn } from './notifications.en.js';

export const notificationsNl: Partial<Record<keyof typeof notificationsEn, string>> = {
  'notifications.title': 'Notificaties',
  'notifications.intro': 'Kies een project om de app-gebruikers en hun notificaties te zien.',
  'notifications.usersTitle': 'Notificaties van {project}',
  'notifications.userTitle': 'Notificaties van {subject}',
  'notifications.yes': 'Ja',
  'notifications.no': 'Nee',
  'notifications.none': 'Geen notificaties.',
  'notifications.formTitle': 'Titel',
  'notifications.formBody': 'Tekst',
  'notifications.submit': 'Testnotificatie versturen',
  'notifications.sent': 'De testnotificatie staat klaar; de planner verstuurt haar nu.',
};
