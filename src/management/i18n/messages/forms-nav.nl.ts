/** Dutch texts of the error pages and the protected OAuth clients. */
import type { formsNavEn } from './forms-nav.en.js';

export const formsNavNl: Record<keyof typeof formsNavEn, string> = {
  'errorPage.home': 'Terug naar de startpagina',
  'errorPage.405': 'Deze pagina neemt dit soort verzoek niet aan.',
  'errorPage.413': 'Wat er verstuurd werd is te groot.',
  'errorPage.414': 'Het adres is te lang.',
  'errorPage.415': 'Wat er verstuurd werd is van een soort die deze pagina niet aanneemt.',
  'errorPage.badUrl': 'Het adres is niet geldig.',
  'clientsProtected.label': 'Beschermd',
  'clientsProtected.why': 'Een beschermde client, zoals die van de beheeromgeving zelf, kan niet worden bewerkt of verwijderd, hier noch via de API.',
  'clientsProtected.refused': 'De OAuth-client {clientId} is beschermd: hij kan niet worden bewerkt of verwijderd.',
  'clientsProtected.detailTitle': 'OAuth-client {clientId}',
};
