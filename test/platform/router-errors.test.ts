/**
 * The router's own errors (a path segment that is not valid percent-encoded UTF-8; a path
 * parameter over the router's length limit) carry the error body of the domain the URL falls in,
 * not Fastify's `{error, code, message, statusCode}` (found by the fuzzer, issue 22).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const long = 'a'.repeat(500);

describe('router errors', () => {
  it('answer a malformed app server URL with 400 ErrorDetails and an over-long id with 414', async () => {
    const bad = await t.app.inject('/projects/%ED%A0%80/users');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ timestamp: expect.any(Number), status: 400, message: 'Malformed URL: a path segment is not valid percent-encoded UTF-8', path: 'uri=/projects/%ED%A0%80/users' });
    const tooLong = await t.app.inject(`/projects/${long}/users`);
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toMatchObject({ status: 414, message: 'A path parameter is too long' });
  });

  it('answer them under the management context path with an ErrorVM', async () => {
    const bad = await t.app.inject('/managementportal/api/subjects/%zz');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ message: 'error.validation', description: 'Malformed URL: a path segment is not valid percent-encoded UTF-8', fieldErrors: null });
    const tooLong = await t.app.inject(`/managementportal/api/subjects/${long}`);
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toEqual({ message: 'error.http.414', description: 'A path parameter is too long', fieldErrors: null });
  });

  it('answer them under /actuator with the actuator body', async () => {
    const bad = await t.app.inject('/actuator/metrics/%C0%AF');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ status: 400, error: 'Bad Request', message: 'Malformed URL: a path segment is not valid percent-encoded UTF-8' });
  });

  it('carry the security headers, which Fastify sends them without hooks for', async () => {
    for (const url of ['/projects/%ED%A0%80/users', `/managementportal/api/subjects/${long}`]) {
      const res = await t.app.inject(url);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('are documented: 400 on every operation, 414 where the path has parameters, 415 where the method takes a body', async () => {
    const doc = (await t.app.inject('/v3/api-docs')).json();
    const ops = Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, statuses: Object.keys(op.responses) })));
    expect(ops.filter((op) => !op.statuses.includes('400')).map((op) => `${op.method} ${op.path}`)).toEqual([]);
    expect(ops.filter((op) => op.path.includes('{') && !op.statuses.includes('414')).map((op) => `${op.method} ${op.path}`)).toEqual([]);
    expect(ops.filter((op) => op.method !== 'get' && !op.statuses.includes('415')).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });
});
