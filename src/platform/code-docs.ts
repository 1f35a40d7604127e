/**
 * The code documentation at `<app server context path>/java-docs/`, as the reference serves its
 * javadoc: TypeDoc's HTML of `src/` (`npm run docs`, written to dist/java-docs), served as static
 * files when built. Without it (`npm ci --ignore-scripts`, no `npm run docs`) the path answers 404.
 * The pages hold only what the source says: no configuration, no data, and no token is needed.
 *
 * Work that can wait does not hold up listening (issue 30 item 5): loading @fastify/static (and
 * glob, which it loads) took about 70 ms of a ~0.9 s start. The pages are served by a small inner
 * Fastify instance with @fastify/static, built at the first request for them; its answers go out
 * through this app (so its headers and error pages apply), and its 404 is this app's 404.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/** dist/java-docs, from src/platform (tsx) and dist/platform (built) alike. */
export const CODE_DOCS_DIR = fileURLToPath(new URL('../../dist/java-docs/', import.meta.url));

/** Request headers the file server reads (conditional and range requests); the rest stay here. */
const FORWARDED = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range', 'range'] as const;
/** Response headers of the file server that describe the file. */
const RETURNED = ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control', 'accept-ranges', 'content-range'] as const;

/** `path`: where the pages are served, ending in `/` (e.g. `/java-docs/`). */
export const codeDocsPlugin: FastifyPluginAsync<{ path: string; root?: string }> = async (app, { path, root = CODE_DOCS_DIR }) => {
  if (!existsSync(root)) {
    app.log.info({ root }, `no code documentation built (npm run docs): ${path} answers 404`);
    return;
  }
  let files: Promise<FastifyInstance> | undefined;
  const fileServer = () => (files ??= (async () => {
    const [{ default: Fastify }, { default: fastifyStatic }] = await Promise.all([import('fastify'), import('@fastify/static')]);
    const server = Fastify();
    await server.register(fastifyStatic, { root, prefix: path, index: ['index.html'] });
    await server.ready();
    return server;
  })());
  app.addHook('onClose', async () => { if (files) await (await files).close(); });

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const headers = Object.fromEntries(FORWARDED.flatMap((name) => (typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [])));
    const answer = await (await fileServer()).inject({ method: request.method as 'GET' | 'HEAD', url: request.url, headers });
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const name of RETURNED) {
      const value = answer.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  app.get(`${path}*`, { schema: { hide: true } }, serve);
  // The folder itself (its index.html). The router ignores trailing slashes, so `/java-docs` lands
  // here too; it is sent to `/java-docs/`, where the pages' relative links resolve.
  app.get(path, { schema: { hide: true } }, (request, reply) => {
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect(path);
    return serve(request, reply);
  });
};
