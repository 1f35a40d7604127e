/** English texts of the error pages and the protected OAuth clients (issue 31 item 11). */
export const formsNavEn = {
  'errorPage.home': 'Back to the home page',
  'errorPage.405': 'This page does not take this kind of request.',
  'errorPage.413': 'What was sent is too large.',
  'errorPage.414': 'The address is too long.',
  'errorPage.415': 'What was sent is of a kind this page does not take.',
  'errorPage.badUrl': 'The address is not valid.',
  'clientsProtected.label': 'Protected',
  'clientsProtected.why': 'A protected client, such as the admin UI\'s own, cannot be edited or deleted, here or through the API.',
  'clientsProtected.refused': 'The OAuth client {clientId} is protected: it cannot be edited or deleted.',
  'clientsProtected.detailTitle': 'OAuth client {clientId}',
} as const;
