/** The project pages (issue 19 items 11–12): the tabs, the subjects' forms and "Pair app". */
import type { FastifyPluginAsync } from 'fastify';
import { pairingPageRoutes, type PairingPageServices } from './pairing.js';
import { projectPageRoutes, type ProjectPageServices } from './project-page.js';
import { shownFields } from './subject-form.js';
import { subjectPageRoutes, type SubjectPageServices } from './subject-page.js';
import { subjectPagesRoutes } from './subjects.js';

export type ProjectPagesServices = Omit<ProjectPageServices, 'fields'> & PairingPageServices & Omit<SubjectPageServices, 'fields'>;

export type ProjectPagesOptions = ProjectPagesServices & {
  /** `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS` (`person_name`, `date_of_birth`, `group`). */
  hiddenSubjectFields: readonly string[];
};

export const projectPages: FastifyPluginAsync<ProjectPagesOptions> = async (app, options) => {
  const { projects, subjects, groups, sources, users, oauthClients, pairing, subjectRevisions } = options;
  const fields = shownFields(options.hiddenSubjectFields);
  await app.register(projectPageRoutes, { projects, subjects, groups, sources, users, fields });
  await app.register(subjectPagesRoutes, { projects, subjects, groups, fields });
  await app.register(subjectPageRoutes, { subjects, subjectRevisions, pairing, fields });
  await app.register(pairingPageRoutes, { projects, subjects, oauthClients, pairing });
};
