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
  'users.activationSent': 'Een activeringsmail voor {login} is aan de mailserver overgedragen.',
  'users.activationNoServer': 'Er is geen activeringsmail naar {login} verstuurd: deze server heeft geen mailserver ingesteld (SMTP_URL). De vorige activeringslink werkt niet meer.',
  'users.activationNoAddress': 'Er is geen activeringsmail naar {login} verstuurd: de gebruiker heeft geen e-mailadres. Voeg er een toe en stuur de link opnieuw.',
  'users.search': 'Zoeken',
  'users.none': 'Geen gebruikers.',
};
