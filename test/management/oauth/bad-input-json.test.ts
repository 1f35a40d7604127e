/**
 * Issue 17 item 13: malformed JSON sent as `application/json` to the OAuth routes used to answer
 * 500. The JSON endpoints answer 400 `invalid_request` (with `Cache-Control: no-store`), the
 * sign-in and consent pages a 400 page. A UTF-8 byte-order mark before a valid document is
 * skipped, as Jackson (the reference) and RFC 8259 §8.1 allow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic } from '../../helpers/management-api.js';

const MP = '/managementportal';
const UPLOAD = basic('radar_upload_backend', 'secret');
const BOM = '\uFEFF';

/** Truncated, trailing garbage, two documents, a byte-order mark before a broken one, not JSON. */
const MALFORMED = ['{"grant_type":"pass', '{"token":"x"} garbage', '{"token":"x"}{"token":"y"}', `${BOM}{"token":`, `${BOM}${BOM}{}`, '{token: x}', '[1,'];

let t: TestApp;
const seen: LightMyRequestResponse[] = [];
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => {
  // None of the requests in this file may end in a server error.
  expect(seen.filter((r) => r.statusCode >= 500).map((r) => r.body)).toEqual([]);
  await t.close();
});

async function send(method: 'GET' | 'POST', path: string, payload: string, contentType = 'application/json', auth?: string) {
  const res = await t.app.inject({
    method, url: `${MP}${path}`, payload,
    headers: { 'content-type': contentType, ...(auth ? { authorization: auth } : {}) },
  });
  seen.push(res);
  return res;
}

describe('the JSON endpoints answer 400 invalid_request', () => {
  it.each(['/oauth/token', '/oauth/check_token', '/oauth/introspect', '/oauth/revoke'])('POST %s', async (path) => {
    for (const body of MALFORMED) {
      for (const auth of [UPLOAD, undefined]) {
        const res = await send('POST', path, body, 'application/json', auth);
        expect({ body, status: res.statusCode, json: res.json() })
          .toEqual({ body, status: 400, json: { error: 'invalid_request', error_description: expect.stringMatching(/^Malformed JSON/) } });
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers.pragma).toBe('no-cache');
      }
    }
  });

  it('a media type the endpoint does not read is a 415 invalid_request', async () => {
    const res = await send('POST', '/oauth/token', '<grant_type>password</grant_type>', 'application/xml', UPLOAD);
    expect({ status: res.statusCode, json: res.json() }).toEqual({ status: 415, json: { error: 'invalid_request', error_description: expect.any(String) } });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('an empty or blank JSON body is read as no body: never a 5xx', async () => {
    for (const path of ['/oauth/token', '/oauth/check_token', '/oauth/introspect', '/oauth/revoke']) {
      for (const body of ['', '  ', BOM]) {
        const res = await send('POST', path, body, 'application/json', UPLOAD);
        expect(res.statusCode).toBeLessThan(500);
        expect(res.json()).toEqual({ error: expect.any(String), error_description: expect.any(String) });
      }
    }
  });

  it('a byte-order mark before a valid document is skipped', async () => {
    const body = JSON.stringify({ grant_type: 'password', username: 'admin', password: 'admin' });
    const plain = await send('POST', '/oauth/token', body, 'application/json', UPLOAD);
    const marked = await send('POST', '/oauth/token', `${BOM}${body}`, 'application/json', UPLOAD);
    expect(marked.statusCode).toBe(plain.statusCode);
    expect(Object.keys(marked.json()).sort()).toEqual(Object.keys(plain.json()).sort());
  });
});

describe('the sign-in and consent pages answer a 400 page', () => {
  it('GET /oauth/authorize reads no body: a malformed one changes nothing', async () => {
    const path = '/oauth/authorize?client_id=aRMT&response_type=code';
    const plain = await t.app.inject({ method: 'GET', url: `${MP}${path}` });
    for (const body of MALFORMED) {
      const res = await send('GET', path, body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: plain.statusCode });
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it.each(['/oauth/authorize', '/oauth/login'])('POST %s', async (path) => {
    for (const body of MALFORMED) {
      const res = await send('POST', path, body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: 400 });
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('Malformed JSON');
    }
  });

  it('an empty JSON body is a 4xx page', async () => {
    for (const path of ['/oauth/authorize', '/oauth/login']) {
      const res = await send('POST', path, '');
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('a media type the form does not read is a 415 page', async () => {
    const res = await send('POST', '/oauth/login', '<username/>', 'application/xml');
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });
});
