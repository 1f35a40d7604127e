/**
 * The scope of the management domain's HTML pages: the OAuth sign-in and consent pages and the
 * admin UI. It registers, once for both, form bodies, the signed session cookie and `reply.view`
 * with Eta over `views/` (`<%= %>` escapes HTML; templates compiled once and cached whatever
 * NODE_ENV says). The API scope has none of these: it stays lean.
 */
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';

export const VIEWS = fileURLToPath(new URL('../../views/', import.meta.url));

export async function registerPageSupport(app: FastifyInstance, sessionSecret: string): Promise<void> {
  await app.register(formbody);
  await app.register(cookie, { secret: sessionSecret });
  await app.register(view, { engine: { eta: new Eta() }, root: VIEWS, production: true });
}
