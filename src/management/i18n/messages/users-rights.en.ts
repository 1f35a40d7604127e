/** English texts of the users list's rights (issue 31 item 4 of its remaining items): what a user may not change. */
export const usersRightsEn = {
  'usersRights.deleteSelf': 'You cannot delete your own account.',
} as const;
