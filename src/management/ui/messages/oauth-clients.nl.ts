/** Dutch texts of the OAuth client pages. */
import type { oauthClientsEn } from './oauth-clients.en.js';

export const oauthClientsNl: Partial<Record<keyof typeof oauthClientsEn, string>> = {
  'clients.title': 'OAuth-clients',
  'clients.create': 'OAuth-client aanmaken',
  'clients.createTitle': 'OAuth-client aanmaken',
  'clients.editTitle': 'OAuth-client {clientId} bewerken',
  'clients.scopes': 'Scopes',
  'clients.grants': 'Grant-typen',
  'clients.dynamic': 'Dynamische registratie',
  'clients.secret': 'Clientgeheim',
  'clients.generate': 'Geheim genereren',
  'clients.protected': 'beschermd',
  'clients.edit': 'Bewerken',
  'clients.delete': 'Verwijderen',
  'clients.none': 'Geen OAuth-clients.',
};
