import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

let t: TestApp;
const served: { method: string; path: string; hidden: boolean }[] = [];
beforeAll(async () => {
  t = await buildTestApp({}, {
    onRoute: (route) => {
      for (const method of [route.method].flat()) {
        served.push({ method: method.toLowerCase(), path: route.url.replace(/:(\w+)/g, '{$1}'), hidden: route.schema?.hide === true });
      }
    },
  });
});
afterAll(async () => { await t.close(); });

// Documentation and UI assets themselves are not API operations.
const undocumented = (path: string) => path.startsWith('/swagger-ui') || path.startsWith('/v3/api-docs');

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

  it('documents every route with its response schemas', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    const routes = served.filter((r) => r.method !== 'head' && r.method !== 'options' && !r.hidden && !undocumented(r.path));
    expect(routes.length).toBeGreaterThan(30);
    const missing = routes.filter((r) => !doc.paths[r.path]?.[r.method]);
    expect(missing).toEqual([]);
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
