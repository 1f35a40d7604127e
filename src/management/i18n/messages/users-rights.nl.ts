/** Dutch texts of the users list's rights; a missing key shows the English text. */
import type { usersRightsEn } from './users-rights.en.js';

export const usersRightsNl: Partial<Record<keyof typeof usersRightsEn, string>> = {
  'usersRights.deleteSelf': 'U kunt uw eigen account niet verwijderen.',
};
