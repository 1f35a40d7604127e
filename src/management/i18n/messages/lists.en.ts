/** English texts of the lists coordinators use (issue 31 item 7): the subject list's sources and status, a project's admins tab "Remove". */
export const listsEn = {
  'subjects.sources': 'Sources',
  'admins.role': 'Role',
  'admins.actions': 'Actions',
  'admins.remove': 'Remove',
  /** The accessible name of a row's "Remove" button. */
  'admins.removeLabel': 'Remove role {role} of {login}',
  'admins.removed': '{login} no longer has the role {role} in project {project}.',
  'admins.notHeld': '{login} has no role {role} in this project.',
  'admins.denied': 'You may not take the role {role} from {login}: changing a user\'s roles needs that right in every project and organization where the user holds a role.',
} as const;
