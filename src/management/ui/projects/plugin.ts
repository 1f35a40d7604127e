/** The project pages (issue 19 items 11–12, issue 31 items 3–4): the tabs, the subjects' forms, "Pair app", groups, sources and "Pair sources". */
import type { FastifyPluginAsync } from 'fastify';
import { pairingPageRoutes, type PairingPageServices } from './pairing.js';
import { projectFormRoutes, type ProjectFormServices } from './project-form.js';
import { projectPageRoutes, type ProjectPageServices } from './project-page.js';
import { groupPagesRoutes } from './groups.js';
import { shownFields } from './subject-form.js';
import { sourcePagesRoutes, type SourcePagesServices } from './sources.js';
import { subjectPageRoutes, type SubjectPageServices } from './subject-page.js';
import { subjectPagesRoutes } from './subjects.js';

export type ProjectPagesServices = Omit<ProjectPageServices, 'fields'> & PairingPageServices & ProjectFormServices & SourcePagesServices
  & Omit<SubjectPageServices, 'fields'>;

export type ProjectPagesOptions = ProjectPagesServices & {
  /** `MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS` (`person_name`, `date_of_birth`, `group`). */
  hiddenSubjectFields: readonly string[];
};

export const projectPages: FastifyPluginAsync<ProjectPagesOptions> = async (app, options) => {
  const { projects, subjects, groups, sources, users, oauthClients, pairing, organizations, sourceTypes, subjectSources, subjectRevisions } = options;
  const fields = shownFields(options.hiddenSubjectFields);
  await app.register(projectPageRoutes, { projects, subjects, groups, sources, users, fields });
  await app.register(subjectPagesRoutes, { projects, subjects, groups, fields });
  await app.register(subjectPageRoutes, { subjects, subjectRevisions, pairing, fields });
  await app.register(pairingPageRoutes, { projects, subjects, oauthClients, pairing });
  await app.register(projectFormRoutes, { projects, organizations, sourceTypes });
  await app.register(groupPagesRoutes, { projects, groups });
  await app.register(sourcePagesRoutes, { projects, sources, subjects, subjectSources });
};
