/**
 * JSON bodies keep Fastify's prototype-poisoning protection in both domains (the parser that
 * accepts the questionnaire app's empty bodies goes through secure-json-parse, not JSON.parse).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient, unique } from '../helpers/management-api.js';
import { errorBody, expectStatus } from '../fixtures/appserver.js';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await managementClient(t.app).tokenOf('admin', 'admin');
});
afterAll(async () => { await t.close(); });

/** Bodies around `fields` with a poisoning key at the top, nested, and through `constructor.prototype`. */
const POISONED = [
  (fields: string) => `{${fields},"__proto__":{"polluted":true}}`,
  (fields: string) => `{${fields},"nested":{"__proto__":{"polluted":true}}}`,
  (fields: string) => `{${fields},"constructor":{"prototype":{"polluted":true}}}`,
  (fields: string) => `{"__proto__":{"polluted":true},${fields}}`,
];

const send = (method: 'GET' | 'POST', url: string, payload: string | undefined, headers: Record<string, string> = {}) =>
  t.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(payload !== undefined ? { payload } : {}) });

describe('app server JSON routes', () => {
  it('answer a __proto__ or constructor.prototype key with 400 ErrorDetails and store nothing', async () => {
    for (const poisoned of POISONED) {
      const projectId = unique('poisoned');
      const res = await send('POST', '/projects', poisoned(`"projectId":"${projectId}"`));
      expect(expectStatus(res, 400)).toEqual(errorBody(400, expect.stringContaining('Malformed JSON'), '/projects'));
      expectStatus(await send('GET', `/projects/${projectId}`, undefined), 404);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still accept an empty body, and a `constructor` key that is no prototype path', async () => {
    expectStatus(await send('GET', '/projects', ''), 200);
    const projectId = unique('fine');
    expectStatus(await send('POST', '/projects', `{"projectId":"${projectId}","constructor":{"name":"x"}}`), 201);
  });
});

describe('management JSON routes', () => {
  const bearer = () => ({ authorization: `Bearer ${admin}` });

  it('answer a __proto__ or constructor.prototype key with 400 and the management error body, and store nothing', async () => {
    for (const poisoned of POISONED) {
      const name = unique('poisoned');
      const res = await send('POST', '/managementportal/api/organizations', poisoned(`"name":"${name}","description":"d","location":"l"`), bearer());
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ message: 'error.validation', description: expect.stringContaining('Malformed JSON'), fieldErrors: null });
      expect((await send('GET', `/managementportal/api/organizations/${name}`, undefined, bearer())).statusCode).toBe(404);
    }
  });

  it('still accept an empty JSON body, and the same body without the poisoning key', async () => {
    expect((await send('GET', '/managementportal/api/organizations', '', bearer())).statusCode).toBe(200);
    const name = unique('fine');
    const res = await send('POST', '/managementportal/api/organizations', `{"name":"${name}","description":"d","location":"l"}`, bearer());
    expect(res.statusCode, res.body).toBe(201);
  });
});
