/**
 * Issue 33 item 2: the operational endpoints under `/actuator` (HTTP basic) and under
 * ManagementPortal's `/managementportal/management` (a system admin's token or session), one
 * implementation answering alike; log levels read and changed at run time (Spring Boot's
 * loggers endpoint and ManagementPortal's LogsResource), reaching the component loggers made
 * before the change, logged and audited as LOGGER_LEVEL_CHANGED with the actor.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { captureLog } from '../helpers/log-capture.js';
import { basic, managementClient, type Json } from '../helpers/management-api.js';
import { csrfOf, uiClient } from '../helpers/ui-client.js';
import { loggerOptions } from '../../src/platform/logging.js';
import { auditEvents } from '../../src/management/schema.js';
import { aProject } from '../fixtures/management.js';

const captured = captureLog();
let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
const actuator = { authorization: basic('radar', 'radar') };
const M = '/managementportal/management';

beforeAll(async () => {
  const options = loggerOptions('info');
  if (typeof options !== 'object') throw new Error('loggerOptions must return pino options');
  t = await buildTestApp({}, { logger: { ...options, stream: captured.stream } });
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => { await t?.close(); });

const inject = async (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, body?: unknown) => {
  const res = await t.app.inject({
    method, url, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  let json: Json;
  try { json = res.body === '' ? undefined : res.json(); } catch { json = res.body; }
  return { status: res.statusCode, body: json, headers: res.headers };
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The LOGGER_LEVEL_CHANGED events of `logger`, once written (audit events are written in batches). */
async function audited(logger: string, count: number) {
  const read = async () => (await t.app.db.db.select().from(auditEvents).where(eq(auditEvents.eventType, 'LOGGER_LEVEL_CHANGED')))
    .filter((e) => (e.data as Record<string, string>).logger === logger);
  return vi.waitFor(async () => {
    const rows = await read();
    if (rows.length < count) throw new Error('not written yet');
    return rows.map((e) => ({ principal: e.principal, data: e.data }));
  }, { timeout: 30_000, interval: 20 });
}

describe('/actuator/loggers', () => {
  it('needs the admin credentials', async () => {
    for (const url of ['/actuator/loggers', '/actuator/loggers/ROOT']) {
      const res = await inject('GET', url);
      expect(res.status, url).toBe(401);
      expect(res.body).toEqual({ status: 401, error: 'Unauthorized', message: 'Missing or bad formatted authorization header' });
    }
    const res = await inject('POST', '/actuator/loggers/ROOT', {}, { configuredLevel: 'TRACE' });
    expect(res.status).toBe(401);
    expect((await inject('GET', '/actuator/loggers/ROOT', actuator)).body).toEqual({ configuredLevel: 'INFO', effectiveLevel: 'INFO' });
  });

  it('lists ROOT and the log components, as Spring Boot does', async () => {
    const res = await inject('GET', '/actuator/loggers', actuator);
    expect(res.status).toBe(200);
    expect(res.body.levels).toEqual(['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE']);
    expect(res.body.groups).toEqual({});
    expect(Object.keys(res.body.loggers)[0]).toBe('ROOT');
    for (const name of ['management', 'audit', 'database', 'events', 'github', 'actuator']) {
      expect(res.body.loggers[name], name).toEqual({ configuredLevel: null, effectiveLevel: expect.any(String) });
    }
  });

  it('changes a component\'s level at run time, for loggers made before the change; logged and audited', async () => {
    const log = t.app.logLevels.component('test-made-earlier');
    log.debug('before');
    // As Spring Boot Admin sends it.
    const res = await inject('POST', '/actuator/loggers/test-made-earlier', { ...actuator, 'content-type': 'application/vnd.spring-boot.actuator.v2+json' }, { configuredLevel: 'debug' });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    log.debug('after');
    const debug = captured.lines().filter((l) => l.component === 'test-made-earlier').map((l) => l.msg);
    expect(debug).toEqual(['after']);
    expect((await inject('GET', '/actuator/loggers/test-made-earlier', actuator)).body).toEqual({ configuredLevel: 'DEBUG', effectiveLevel: 'DEBUG' });
    expect(captured.lines()).toContainEqual(expect.objectContaining({ msg: 'log level changed', logger: 'test-made-earlier', configuredLevel: 'DEBUG', actor: 'radar', via: 'actuator' }));
    expect(await audited('test-made-earlier', 1)).toEqual([
      { principal: 'radar', data: { logger: 'test-made-earlier', level: 'DEBUG', effectiveLevel: 'DEBUG', via: 'actuator' } },
    ]);

    // Reset: it follows ROOT again.
    expect((await inject('POST', '/actuator/loggers/test-made-earlier', actuator, { configuredLevel: null })).status).toBe(204);
    log.debug('reset');
    expect(captured.lines().filter((l) => l.msg === 'reset')).toEqual([]);
    expect((await inject('GET', '/actuator/loggers/test-made-earlier', actuator)).body).toEqual({ configuredLevel: null, effectiveLevel: 'INFO' });
  });

  it('ROOT sets the level of the components without one of their own, and of requests', async () => {
    const follower = t.app.logLevels.component('test-follower');
    const own = t.app.logLevels.component('test-own');
    expect((await inject('POST', '/actuator/loggers/test-own', actuator, { configuredLevel: 'INFO' })).status).toBe(204);
    expect((await inject('POST', '/actuator/loggers/root', actuator, { configuredLevel: 'WARN' })).status).toBe(204);
    follower.info('follower quiet');
    own.info('own speaks');
    const before = captured.lines().length;
    await inject('GET', '/actuator/health');
    expect(captured.lines().slice(before).filter((l) => l.msg === 'incoming request')).toEqual([]);
    expect((await inject('GET', '/actuator/loggers/ROOT', actuator)).body).toEqual({ configuredLevel: 'WARN', effectiveLevel: 'WARN' });
    // null: ROOT goes back to its start level.
    expect((await inject('POST', '/actuator/loggers/ROOT', actuator, {})).status).toBe(204);
    follower.info('follower speaks');
    const msgs = captured.lines().map((l) => l.msg);
    expect(msgs).toContain('own speaks');
    expect(msgs).toContain('follower speaks');
    expect(msgs).not.toContain('follower quiet');
    expect((await inject('GET', '/actuator/loggers/ROOT', actuator)).body).toEqual({ configuredLevel: 'INFO', effectiveLevel: 'INFO' });
  });

  it('refuses an unknown logger (404) and an unknown level (400), changing nothing', async () => {
    expect(await inject('GET', '/actuator/loggers/nope', actuator)).toMatchObject({ status: 404, body: { status: 404, error: 'Not Found', message: 'No logger named nope' } });
    expect(await inject('POST', '/actuator/loggers/nope', actuator, { configuredLevel: 'DEBUG' })).toMatchObject({ status: 404, body: { status: 404, error: 'Not Found', message: 'No logger named nope' } });
    const bad = await inject('POST', '/actuator/loggers/github', actuator, { configuredLevel: 'LOUD' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ status: 400, error: 'Bad Request', message: 'Unknown log level LOUD: one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE' });
    expect((await inject('POST', '/actuator/loggers/github', actuator, { configuredLevel: 5 })).status).toBe(400);
    expect((await inject('GET', '/actuator/loggers/github', actuator)).body).toEqual({ configuredLevel: null, effectiveLevel: 'INFO' });
  });
});

describe('/managementportal/management', () => {
  it('health and its groups are open and answer as the actuator', async () => {
    for (const path of ['/health', '/health/liveness', '/health/readiness']) {
      const res = await inject('GET', `${M}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual((await inject('GET', `/actuator${path}`)).body);
    }
  });

  it('info, prometheus, loggers and logs: 401 without a token, 403 for a project admin, as the reference\'s ROLE_SYS_ADMIN', async () => {
    const project = await aProject(t.app.db.db);
    const padmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName });
    for (const [method, path, body] of [
      ['GET', '/info'], ['GET', '/prometheus'], ['GET', '/loggers'], ['GET', '/loggers/ROOT'], ['POST', '/loggers/ROOT', { configuredLevel: 'OFF' }],
      ['GET', '/logs'], ['PUT', '/logs', { name: 'ROOT', level: 'OFF' }],
    ] as const) {
      const none = await inject(method, `${M}${path}`, {}, body);
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(none.body).toEqual({ message: 'error.unauthorized', description: expect.any(String), fieldErrors: null });
      const denied = await inject(method, `${M}${path}`, bearer(padmin.token), body);
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body).toEqual({ message: 'error.accessDenied', description: 'Access is denied', fieldErrors: null });
    }
    expect((await inject('GET', '/actuator/loggers/ROOT', actuator)).body).toEqual({ configuredLevel: 'INFO', effectiveLevel: 'INFO' });
  });

  it('answer a system admin as the actuator does', async () => {
    expect(await inject('GET', `${M}/info`, bearer(admin))).toMatchObject({ status: 200, body: (await inject('GET', '/actuator/info')).body });
    const prometheus = await inject('GET', `${M}/prometheus`, bearer(admin));
    expect(prometheus.status).toBe(200);
    expect(prometheus.headers['content-type']).toContain('text/plain');
    expect(prometheus.body).toContain('http_server_requests_seconds_count');
    expect((await inject('GET', `${M}/loggers`, bearer(admin))).body).toEqual((await inject('GET', '/actuator/loggers', actuator)).body);
    expect(await inject('GET', `${M}/loggers/nope`, bearer(admin))).toEqual(expect.objectContaining({
      status: 404, body: { message: 'error.notFound', description: 'No logger named nope', fieldErrors: null },
    }));
  });

  it('POST loggers/{name} and PUT logs change levels, audited with the admin\'s login', async () => {
    expect((await inject('POST', `${M}/loggers/scheduler-test`, bearer(admin), { configuredLevel: 'DEBUG' })).status).toBe(404);
    t.app.logLevels.component('mp-test');
    expect((await inject('POST', `${M}/loggers/mp-test`, bearer(admin), { configuredLevel: 'TRACE' })).status).toBe(204);
    const put = await inject('PUT', `${M}/logs`, bearer(admin), { name: 'mp-test', level: 'error' });
    expect(put.status).toBe(204);
    expect(put.body).toBeUndefined();
    const logs = await inject('GET', `${M}/logs`, bearer(admin));
    expect(logs.status).toBe(200);
    expect(logs.body[0]).toEqual({ name: 'ROOT', level: 'INFO' });
    expect(logs.body).toContainEqual({ name: 'mp-test', level: 'ERROR' });
    expect(logs.body).toContainEqual({ name: 'management', level: 'INFO' });
    expect(await audited('mp-test', 2)).toEqual([
      { principal: 'admin', data: { logger: 'mp-test', level: 'TRACE', effectiveLevel: 'TRACE', via: 'management' } },
      { principal: 'admin', data: { logger: 'mp-test', level: 'ERROR', effectiveLevel: 'ERROR', via: 'management' } },
    ]);
    const bad = await inject('PUT', `${M}/logs`, bearer(admin), { name: 'mp-test', level: 'LOUD' });
    expect(bad).toEqual(expect.objectContaining({ status: 400, body: { message: 'error.validation', description: 'Unknown log level LOUD: one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE', fieldErrors: null } }));
    expect((await inject('PUT', `${M}/logs`, bearer(admin), { name: 'mp-test' })).status).toBe(400);
  });

  it('answers the admin UI\'s session too', async () => {
    const ui = uiClient(t.app);
    expect((await ui.signIn()).status).toBe(303);
    const cookie = [...ui.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await inject('GET', `${M}/logs`, { cookie });
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({ name: 'ROOT', level: 'INFO' });
    // A change through the session needs its CSRF token, as every write of the API does.
    t.app.logLevels.component('session-test');
    const forged = await inject('PUT', `${M}/logs`, { cookie }, { name: 'session-test', level: 'DEBUG' });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ message: 'error.accessDenied', description: 'Invalid or missing CSRF token', fieldErrors: null });
    const csrf = csrfOf((await ui.get('/account/password')).body);
    expect((await inject('PUT', `${M}/logs`, { cookie, 'x-csrf-token': csrf }, { name: 'session-test', level: 'DEBUG' })).status).toBe(204);
    expect(await audited('session-test', 1)).toEqual([
      { principal: 'admin', data: { logger: 'session-test', level: 'DEBUG', effectiveLevel: 'DEBUG', via: 'management' } },
    ]);
  });

  it('are in the OpenAPI document under the management tag', async () => {
    const doc = (await inject('GET', '/v3/api-docs')).body as { paths: Record<string, Record<string, { tags: string[] }>> };
    for (const path of ['/health', '/health/liveness', '/health/readiness', '/info', '/prometheus', '/loggers', '/loggers/{name}', '/logs']) {
      expect(doc.paths[`${M}${path}`], path).toBeDefined();
      for (const op of Object.values(doc.paths[`${M}${path}`]!)) expect(op.tags).toEqual(['management: operations']);
    }
  });
});
