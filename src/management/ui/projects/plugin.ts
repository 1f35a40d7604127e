/** The project pages (issue 19 items 11–12): the tabs, the subjects' forms and "Pair app". */
import type { FastifyPluginAsync } from 'fastify';
import { pairingPageRoutes, type PairingPageServices } from './pairing.js';
import { projectPageRoutes, type ProjectPageServices } from './project-page.js';
import { subjectPagesRoutes } from './subjects.js';

export type ProjectPagesServices = ProjectPageServices & PairingPageServices;

export const projectPages: FastifyPluginAsync<ProjectPagesServices> = async (app, services) => {
  const { projects, subjects, groups, sources, users, oauthClients, pairing } = services;
  await app.register(projectPageRoutes, { projects, subjects, groups, sources, users });
  await app.register(subjectPagesRoutes, { projects, subjects, groups });
  await app.register(pairingPageRoutes, { projects, subjects, oauthClients, pairing });
};
