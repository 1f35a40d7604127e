import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { describeError } from '../../src/platform/actuator.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const admin = { authorization: basic('radar', 'radar') };
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

const unauthorized = (message: string) => ({ status: 401, error: 'Unauthorized', message });

describe('health', () => {
  it('is UP with the database and ping components and the probe groups', async () => {
    const res = await get('/actuator/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'UP',
      components: {
        db: { status: 'UP', details: { database: t.config.database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite' } },
        ping: { status: 'UP' },
      },
      groups: ['liveness', 'readiness'],
    });
  });

  it('answers the liveness and readiness probes without credentials', async () => {
    for (const url of ['/actuator/health/liveness', '/actuator/health/readiness', '/actuator/health/readiness/']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toEqual({ status: 'UP' });
    }
  });
});

describe('info', () => {
  it('names the application, its version and profile, without credentials', async () => {
    const res = await get('/actuator/info');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ app: { name: 'radar-platform', version: '0.0.0-test', profile: 'dev' } });
  });
});

describe('admin endpoints', () => {
  it('refuse missing, malformed and wrong credentials with 401 and a Basic challenge', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'Missing or bad formatted authorization header'],
      [{ authorization: 'Bearer abc' }, 'Missing or bad formatted authorization header'],
      [{ authorization: basic('radar', 'wrong') }, 'Bad credentials'],
      [{ authorization: basic('someone', 'radar') }, 'Bad credentials'],
      [{ authorization: basic('radar', 'radarradar') }, 'Bad credentials'],
    ];
    for (const url of ['/actuator/prometheus', '/actuator/metrics', '/actuator/metrics/process_cpu_user_seconds_total', '/actuator']) {
      for (const [headers, message] of cases) {
        const res = await get(url, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Basic realm="actuator"');
        expect(res.json()).toEqual(unauthorized(message));
      }
    }
  });

  it('hide unknown actuator paths behind the credentials: 401 anonymous, 404 for the admin', async () => {
    expect((await get('/actuator/env')).statusCode).toBe(401);
    const res = await get('/actuator/env', admin);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, error: 'Not Found', message: 'No endpoint GET /actuator/env' });
  });

  it('lists the endpoints at /actuator', async () => {
    const res = await get('/actuator', admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()._links).toMatchObject({
      self: { href: 'http://localhost:80/actuator', templated: false },
      health: { href: 'http://localhost:80/actuator/health', templated: false },
      prometheus: { href: 'http://localhost:80/actuator/prometheus', templated: false },
      'metrics-requiredMetricName': { href: 'http://localhost:80/actuator/metrics/{requiredMetricName}', templated: true },
    });
  });
});

describe('prometheus', () => {
  it('exposes process metrics and HTTP requests labelled with the route pattern', async () => {
    expect((await get('/projects/x')).statusCode).toBe(404);
    expect((await get('/projects/y?secret=1')).statusCode).toBe(404);
    expect((await get('/no/such/path')).statusCode).toBe(404);

    const res = await get('/actuator/prometheus', admin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = res.body;
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^# TYPE http_server_requests_seconds histogram$/m);
    // Both project requests land in one series: the pattern, never the raw URL.
    expect(text).toMatch(/^http_server_requests_seconds_count\{method="GET",uri="\/projects\/:projectId",status="404"\} 2$/m);
    expect(text).toMatch(/^http_server_requests_seconds_count\{method="GET",uri="UNKNOWN",status="404"\} [1-9]\d*$/m);
    expect(text).not.toMatch(/uri="\/projects\/(x|y)/);
    expect(text).not.toContain('/no/such/path');
  });
});

describe('metrics', () => {
  it('lists the names of the registry', async () => {
    const res = await get('/actuator/metrics', admin);
    expect(res.statusCode).toBe(200);
    const { names } = res.json() as { names: string[] };
    expect(names).toEqual(expect.arrayContaining(['process_cpu_user_seconds_total', 'http_server_requests_seconds', 'nodejs_heap_size_used_bytes']));
    expect(names).toEqual([...names].sort());
  });

  it('shows one gauge as a VALUE measurement', async () => {
    const res = await get('/actuator/metrics/nodejs_heap_size_used_bytes', admin);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      name: 'nodejs_heap_size_used_bytes',
      description: expect.any(String),
      baseUnit: 'bytes',
      measurements: [{ statistic: 'VALUE', value: expect.any(Number) }],
      availableTags: [],
    });
    expect(body.measurements[0].value).toBeGreaterThan(1024 * 1024);
  });

  it('shows the request histogram as COUNT and TOTAL_TIME, filtered by tags', async () => {
    await get('/projects/z1');
    await get('/projects/z2');
    const res = await get('/actuator/metrics/http_server_requests_seconds?tag=uri:/projects/:projectId&tag=method:GET', admin);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ name: 'http_server_requests_seconds', baseUnit: 'seconds', availableTags: [{ tag: 'status', values: ['404'] }] });
    const stat = Object.fromEntries((body.measurements as { statistic: string; value: number }[]).map((m) => [m.statistic, m.value]));
    expect(stat.COUNT).toBeGreaterThanOrEqual(2);
    expect(stat.TOTAL_TIME).toBeGreaterThan(0);
    expect(Object.keys(stat).sort()).toEqual(['COUNT', 'TOTAL_TIME']);

    const all = (await get('/actuator/metrics/http_server_requests_seconds', admin)).json();
    expect(all.availableTags.find((tag: { tag: string }) => tag.tag === 'uri').values).toEqual(expect.arrayContaining(['/projects/:projectId', '/actuator/metrics/:name']));
  });

  it('answers 404 for an unknown metric or a tag filter that matches nothing, 400 for a malformed tag', async () => {
    const unknown = await get('/actuator/metrics/no_such_metric', admin);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ status: 404, error: 'Not Found', message: 'No metric named no_such_metric' });

    const unmatched = await get('/actuator/metrics/http_server_requests_seconds?tag=method:BREW', admin);
    expect(unmatched.statusCode).toBe(404);
    expect(unmatched.json()).toEqual({ status: 404, error: 'Not Found', message: 'No series of http_server_requests_seconds matches method:BREW' });

    const malformed = await get('/actuator/metrics/http_server_requests_seconds?tag=method', admin);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ status: 400, error: 'Bad Request' });
  });

  it('lets other plugins register metrics on app.metrics', async () => {
    const { Counter } = await import('prom-client');
    const counter = new Counter({ name: 'radar_test_things_total', help: 'Things', labelNames: ['kind'], registers: [t.app.metrics] });
    counter.inc({ kind: 'a' }, 2);
    counter.inc({ kind: 'b' });
    const res = await get('/actuator/metrics/radar_test_things_total', admin);
    expect(res.json()).toEqual({
      name: 'radar_test_things_total', description: 'Things',
      measurements: [{ statistic: 'COUNT', value: 3 }],
      availableTags: [{ tag: 'kind', values: ['a', 'b'] }],
    });
    expect((await get('/actuator/prometheus', admin)).body).toContain('radar_test_things_total{kind="a"} 2');
  });
});

describe('OpenAPI', () => {
  it('documents every actuator endpoint under the actuator tag, the admin ones with basic auth', async () => {
    const doc = (await get('/v3/api-docs')).json() as { paths: Record<string, { get: { tags: string[]; security?: unknown[] } }> };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/actuator'));
    expect(paths.sort()).toEqual([
      '/actuator', '/actuator/health', '/actuator/health/liveness', '/actuator/health/readiness',
      '/actuator/info', '/actuator/loggers', '/actuator/loggers/{name}', '/actuator/metrics', '/actuator/metrics/{name}', '/actuator/prometheus',
    ]);
    for (const path of paths) expect(doc.paths[path]!.get.tags, path).toEqual(['actuator']);
    expect(doc.paths['/actuator/prometheus']!.get.security).toEqual([{ adminBasic: [] }]);
    expect(doc.paths['/actuator/health']!.get.security).toBeUndefined();
  });
});

describe('a second app', () => {
  it('has its own registry, and reports DOWN (503) once its database is gone', async () => {
    // Its own PGlite, not one lent by the worker's pool (which closing the handle would hand back).
    const other = await buildTestApp({}, { pglite: undefined });
    try {
      const metrics = await other.app.inject({ url: '/actuator/prometheus', headers: admin });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).not.toContain('uri="/projects/:projectId"');
      expect(metrics.body).toContain('process_cpu_user_seconds_total');

      await other.app.db.close();
      const health = await other.app.inject('/actuator/health');
      expect(health.statusCode).toBe(503);
      const body = health.json();
      expect(body).toEqual({
        status: 'DOWN',
        components: {
          db: { status: 'DOWN', details: { database: expect.any(String), error: expect.any(String) } },
          ping: { status: 'UP' },
        },
        groups: ['liveness', 'readiness'],
      });
      expect(body.components.db.details.error).not.toMatch(/:\/\/[^/\s]*:[^*\s]+@/); // no credentials of a URL
      const readiness = await other.app.inject('/actuator/health/readiness');
      expect(readiness.statusCode).toBe(503);
      expect(readiness.json()).toEqual({ status: 'DOWN' });
      const liveness = await other.app.inject('/actuator/health/liveness');
      expect(liveness.statusCode).toBe(200);
      expect(liveness.json()).toEqual({ status: 'UP' });
    } finally {
      // The database handle is already closed; closing it again may fail.
      await other.close().catch(() => {});
    }
    // The first app is unaffected.
    expect((await get('/actuator/health')).statusCode).toBe(200);
  });
});

describe('describeError', () => {
  it('reports the innermost cause on one line, with URL credentials masked', () => {
    const inner = new Error('connect ECONNREFUSED postgres://radar:hunter2@db:5432/radar\n    at TCPConnectWrap');
    const outer = new Error('Failed query: select 1\nparams: ', { cause: inner });
    expect(describeError(outer)).toBe('Error: connect ECONNREFUSED postgres://radar:***@db:5432/radar');
    expect(describeError('plain')).toBe('plain');
  });
});
