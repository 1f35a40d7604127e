import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { documentCoverage, routeTable } from '../helpers/route-table.js';

let t: TestApp;
const table = routeTable();
beforeAll(async () => {
  t = await buildTestApp({}, { onRoute: table.onRoute });
});
afterAll(async () => { await t.close(); });

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
    const coverage = documentCoverage(table.routes, doc);
    expect(coverage.api.length).toBeGreaterThan(150);
    expect(coverage.notDocumented, 'routes missing from the document').toEqual([]);
    // Every documented operation is a route (no stale paths), and the API routes are not hidden by the list.
    expect(coverage.noRoute, 'operations no route serves').toEqual([]);
    expect(coverage.documentedButExcluded, 'operations on the NOT_IN_DOCUMENT list').toEqual([]);
    expect(coverage.staleExclusions, 'NOT_IN_DOCUMENT entries that match no route').toEqual([]);
  });

  it('documents every route with its response schemas', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    for (const key of documentCoverage(table.routes, doc).api) {
      const [method, path] = key.split(' ');
      const op = doc.paths[path!][method!.toLowerCase()];
      const success = Object.keys(op.responses ?? {}).filter((s) => s.startsWith('2'));
      expect(success, key).not.toEqual([]);
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

  it('redirects springdoc\'s /swagger-ui.html to Swagger UI', async () => {
    const res = await t.app.inject('/swagger-ui.html');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/swagger-ui/');
  });
});
