/**
 * The admin UI's static content at `…/content/`: its stylesheet and script, and the two logos at
 * `…/content/images/` as in the reference. A logo in `MANAGEMENTPORTAL_UI_LOGO_DIR` replaces the
 * bundled one; the folder is read at every request (no rebuild or restart), and a logo missing
 * there falls back to the bundled one. Only these names are served: no path from the request
 * reaches the file system.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';

const BUNDLED = fileURLToPath(new URL('../../../public/content/', import.meta.url));

const ASSETS: Readonly<Record<string, string>> = {
  'ui.css': 'text/css; charset=utf-8',
  'ui.js': 'text/javascript; charset=utf-8',
};
export const LOGOS = ['navbar-logo.png', 'home-page-logo.png'] as const;

async function readFirst(paths: readonly string[]): Promise<Buffer | undefined> {
  for (const path of paths) {
    try {
      return await readFile(path);
    } catch { /* next candidate */ }
  }
  return undefined;
}

export const contentRoutes: FastifyPluginAsync<{ logoDir: string | undefined }> = async (app, { logoDir }) => {
  const config = { publicPage: true };
  const schema = { hide: true };

  app.get<{ Params: { file: string } }>('/content/:file', { schema, config }, async (request, reply) => {
    const type = ASSETS[request.params.file];
    const body = type ? await readFirst([join(BUNDLED, request.params.file)]) : undefined;
    if (!type || !body) return reply.code(404).type('text/plain').send('Not found');
    return reply.type(type).header('cache-control', 'no-cache').send(body);
  });

  app.get<{ Params: { file: string } }>('/content/images/:file', { schema, config }, async (request, reply) => {
    const name = LOGOS.find((logo) => logo === request.params.file);
    const body = name ? await readFirst([...(logoDir ? [join(logoDir, name)] : []), join(BUNDLED, 'images', name)]) : undefined;
    if (!body) return reply.code(404).type('text/plain').send('Not found');
    // no-cache: a replaced logo shows at the next page load.
    return reply.type('image/png').header('cache-control', 'no-cache').send(body);
  });
};
