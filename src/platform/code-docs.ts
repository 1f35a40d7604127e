/**
 * The code documentation at `<app server context path>/java-docs/`, as the reference serves its
 * javadoc: TypeDoc's HTML of `src/` (`npm run docs`, written to dist/java-docs), served as static
 * files when built. Without it (`npm ci --ignore-scripts`, no `npm run docs`) the path answers 404.
 * The pages hold only what the source says: no configuration, no data, and no token is needed.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import fastifyStatic from '@fastify/static';

/** dist/java-docs, from src/platform (tsx) and dist/platform (built) alike. */
export const CODE_DOCS_DIR = fileURLToPath(new URL('../../dist/java-docs/', import.meta.url));

/** `path`: where the pages are served, ending in `/` (e.g. `/java-docs/`). */
export const codeDocsPlugin: FastifyPluginAsync<{ path: string; root?: string }> = async (app, { path, root = CODE_DOCS_DIR }) => {
  if (!existsSync(root)) {
    app.log.info({ root }, `no code documentation built (npm run docs): ${path} answers 404`);
    return;
  }
  // Encapsulated: `reply.sendFile` exists in this plugin only.
  await app.register(fastifyStatic, { root, prefix: path, index: ['index.html'] });
  // The folder itself. The router ignores trailing slashes, so `/java-docs` lands here too; it is
  // sent to `/java-docs/`, where the pages' relative links resolve.
  app.get(path, { schema: { hide: true } }, (request, reply) => {
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect(path);
    return reply.sendFile('index.html');
  });
};
