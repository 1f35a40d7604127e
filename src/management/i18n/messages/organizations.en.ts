/** English texts of the organization pages (`/organizations`). */
export const organizationsEn = {
  'organizations.title': 'Organizations',
  'organizations.name': 'Name',
  'organizations.description': 'Description',
  'organizations.location': 'Location',
  'organizations.projectCount': 'Projects',
  'organizations.none': 'No organizations.',
  'organizations.projects': 'Projects',
  'organizations.project': 'Project',
  'organizations.status': 'Status',
  'organizations.noProjects': 'No projects.',
  'organizations.admins': 'Organization admins',
  'organizations.login': 'Login',
  'organizations.email': 'Email',
  'organizations.noAdmins': 'No organization admins.',
} as const;
