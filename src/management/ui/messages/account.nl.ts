/** Dutch texts of the account pages. */
import type { accountEn } from './account.en.js';

export const accountNl: Partial<Record<keyof typeof accountEn, string>> = {
  'account.resetRequestTitle': 'Wachtwoord opnieuw instellen',
  'account.email': 'E-mail',
  'account.resetFinishTitle': 'Kies een nieuw wachtwoord',
  'account.newPassword': 'Nieuw wachtwoord',
  'account.confirmPassword': 'Bevestig nieuw wachtwoord',
  'account.currentPassword': 'Huidig wachtwoord',
  'account.setPassword': 'Wachtwoord instellen',
  'account.signIn': 'Aanmelden',
  'account.activateTitle': 'Activeer uw account',
  'account.settingsTitle': 'Accountinstellingen',
  'account.firstName': 'Voornaam',
  'account.lastName': 'Achternaam',
  'account.language': 'Taal',
  'account.saved': 'Opgeslagen.',
  'account.passwordTitle': 'Wachtwoord wijzigen',
  'account.changePassword': 'Wachtwoord wijzigen',
  'account.revoke': 'Intrekken',
};
