/** Dutch texts of the user pages. */
import type { usersEn } from './users.en.js';

export const usersNl: Partial<Record<keyof typeof usersEn, string>> = {
  'users.title': 'Gebruikers',
  'users.create': 'Gebruiker aanmaken',
  'users.createTitle': 'Gebruiker aanmaken',
  'users.login': 'Login',
  'users.firstName': 'Voornaam',
  'users.lastName': 'Achternaam',
  'users.name': 'Naam',
  'users.email': 'E-mail',
  'users.language': 'Taal',
  'users.activated': 'Geactiveerd',
  'users.roles': 'Rollen',
  'users.edit': 'Bewerken',
  'users.delete': 'Verwijderen',
  'users.sendActivation': 'Activeringslink sturen',
  'users.search': 'Zoeken',
  'users.none': 'Geen gebruikers.',
};
