import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

let t: TestApp;
const served: { method: string; path: string }[] = [];
beforeAll(async () => {
  t = await buildTestApp({}, {
    onRoute: (route) => {
      for (const method of [route.method].flat()) served.push({ method: method.toLowerCase(), path: route.url.replace(/:(\w+)/g, '{$1}') });
    },
  });
});
afterAll(async () => { await t.close(); });

/**
 * The routes the service answers that are not API operations, each with why. Anything else the
 * route table holds must be in the document (a `hide: true` schema does not excuse a route).
 */
const NOT_API: readonly { route: RegExp; reason: string }[] = [
  { route: /^head /, reason: 'HEAD: Fastify answers it for every GET, documented by its GET' },
  { route: /^options /, reason: 'CORS preflights of the app server (the reference\'s @CrossOrigin), no operation' },
  { route: /^get \/v3\/api-docs(\.yaml)?$/, reason: 'the OpenAPI document itself' },
  { route: /^get \/swagger-ui(\/.*)?$/, reason: 'Swagger UI pages and assets' },
  { route: /^get \/java-docs\/(\*)?$/, reason: 'the code documentation (static TypeDoc HTML)' },
  { route: /^get \/managementportal\/content\//, reason: 'static files of the admin UI (logos, styles)' },
  { route: /^get \/managementportal\/oauth\/token$/, reason: 'answers only 405 method_not_allowed (the reference\'s body for a GET to the token endpoint)' },
  {
    route: /^(get|post) \/managementportal(\/(login|logout|notifications|oauth-clients|account|activate|organizations|source-types|audits|users|projects)(\/.*)?)?$/,
    reason: 'admin UI pages (HTML forms under the context path, not under /api)',
  },
];
const notApi = (r: { method: string; path: string }) => NOT_API.some(({ route }) => route.test(`${r.method} ${r.path}`));

describe('OpenAPI', () => {
  it('serves one OpenAPI 3 document as JSON and YAML', async () => {
    const json = await t.app.inject('/v3/api-docs');
    expect(json.statusCode).toBe(200);
    const doc = json.json();
    expect(doc.openapi).toMatch(/^3\./);
    const yaml = await t.app.inject('/v3/api-docs.yaml');
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers['content-type']).toContain('yaml');
    expect(parse(yaml.body)).toEqual(doc);
  });

  it('is a valid OpenAPI document', async () => {
    const validator = new Validator();
    const result = await validator.validate((await t.app.inject('/v3/api-docs')).json());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every route the service answers, but for a named list of pages and assets', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    const routes = served.filter((r) => !notApi(r));
    expect(routes.length).toBeGreaterThan(150);
    const missing = routes.filter((r) => !doc.paths[r.path]?.[r.method]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // Every documented operation is a route (no stale paths), and the API routes are not hidden by the list.
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method, path })));
    expect(documented.filter((d) => !served.some((r) => r.method === d.method && r.path === d.path))).toEqual([]);
    expect(documented.filter(notApi)).toEqual([]);
  });

  it('documents every route with its response schemas', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    const routes = served.filter((r) => !notApi(r));
    for (const r of routes) {
      const op = doc.paths[r.path][r.method];
      const success = Object.keys(op.responses ?? {}).filter((s) => s.startsWith('2'));
      expect(success, `${r.method} ${r.path}`).not.toEqual([]);
    }
    expect(doc.components.schemas).toHaveProperty('FcmNotificationDto');
    expect(doc.components.schemas).toHaveProperty('ErrorDetails');
  });

  it('documents the token request with each grant\'s parameters', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    const token = Object.keys(doc.paths).find((path) => path.endsWith('/oauth/token'))!;
    const { properties } = doc.paths[token].post.requestBody.content['application/json'].schema;
    expect(Object.keys(properties).sort()).toEqual([
      'client_id', 'client_secret', 'code', 'code_verifier', 'grant_type', 'password', 'redirect_uri', 'refresh_token', 'scope', 'username',
    ]);
    expect(properties.grant_type.description).toBe('authorization_code, client_credentials, password, refresh_token');
    expect(properties.scope.description).toMatch(/^client_credentials, password, refresh_token grants: /);
    expect(properties.code_verifier.description).toMatch(/^authorization_code grant: /);
  });

  it('serves Swagger UI', async () => {
    const res = await t.app.inject('/swagger-ui/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger');
  });
});
