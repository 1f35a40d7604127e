/**
 * One OpenAPI 3 document generated from the route schemas: JSON at /v3/api-docs, YAML at
 * /v3/api-docs.yaml (the reference's springdoc paths) and Swagger UI at /swagger-ui/.
 */
import { createRequire, Module } from 'node:module';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const SWAGGER_UI_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * @fastify/swagger and @fastify/swagger-ui `require('yaml')` as they load (72 modules, ~30 ms of
 * every start), yet use it only to answer /v3/api-docs.yaml and /swagger-ui/yaml. Until then their
 * `yaml` is a stand-in in the module cache that loads the real module on first use and hands on
 * what they read from it (issue 30 item 5). Where yaml is loaded already, it stays as it is.
 */
function deferYamlLoading(): void {
  const require = createRequire(import.meta.url);
  const path = createRequire(require.resolve('@fastify/swagger')).resolve('yaml');
  if (require.cache[path]) return;
  let yaml: Record<PropertyKey, unknown> | undefined;
  const load = () => {
    if (!yaml) {
      delete require.cache[path];
      yaml = require(path) as Record<PropertyKey, unknown>;
    }
    return yaml;
  };
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = new Proxy({}, { get: (_target, name) => load()[name] });
  require.cache[path] = standIn;
}

export const openapiPlugin = fp(async (app: FastifyInstance) => {
  deferYamlLoading();
  const { default: swagger } = await import('@fastify/swagger');
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'RADAR-base platform',
        description: 'Study management, OAuth 2.0 authorization server and app server (notifications) in one service.',
        version: app.config.version,
      },
      tags: [
        { name: 'appserver', description: 'App server: projects, users, notifications, data messages' },
        { name: 'actuator', description: 'Operational endpoints' },
      ],
      components: {
        securitySchemes: {
          adminBasic: { type: 'http', scheme: 'basic' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of the management domain\'s /oauth/token (audience res_ManagementPortal)' },
          clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client id and secret (empty secret for a public client)' },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their $id as the component name.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  app.get('/v3/api-docs', { schema: { hide: true } }, async () => app.swagger());
  app.get('/v3/api-docs.yaml', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })));

  await app.register(swaggerUi, {
    routePrefix: '/swagger-ui',
    // No validator badge: it would load an image from validator.swagger.io.
    uiConfig: { deepLinking: true, validatorUrl: null },
    // Swagger UI loads its scripts and styles from here and sets inline styles; it reads the
    // document and "Try it out" calls this origin. Nothing else, and it may not be framed.
    staticCSP: SWAGGER_UI_CSP,
  });
  // springdoc's address of the UI, which the references' READMEs and bookmarks use (springdoc answers it with a 302 too).
  app.get('/swagger-ui.html', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/swagger-ui/', 302));
}, { name: 'platform-openapi', dependencies: ['platform-config'] });
