/**
 * No secret in the OpenAPI document or in error bodies (issue 22 item 5). Every `example`,
 * `examples` and `default` of /v3/api-docs is walked: none is a configured secret (the dev
 * passwords, the keystore password, a client secret of the clients file), a token or key of this
 * service (a JWT, a bcrypt hash, a private key, a 20-digit reset key), and the documented meta-token
 * name opens nothing. No error response declares a field for a secret. Error bodies of bad input
 * that carries a secret (malformed JSON, wrong types, failed grants, unknown keys) never quote it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient } from '../helpers/management-api.js';
import { securedEnv } from '../helpers/appserver-auth.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is walked generically
type Json = any;

const MP = '/managementportal';
let t: TestApp;
let doc: Json;
/** Every example, examples entry and default in the document, with where it is. */
const examples: { at: string; value: unknown }[] = [];

beforeAll(async () => {
  t = await buildTestApp(securedEnv());
  doc = (await t.app.inject({ method: 'GET', url: '/v3/api-docs' })).json();
  (function walk(node: Json, at: string) {
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'example' || key === 'default') examples.push({ at: `${at}/${key}`, value });
        if (key === 'examples') for (const item of Object.values(value as object)) examples.push({ at: `${at}/${key}`, value: (item as Json)?.value ?? item });
        walk(value, `${at}/${key}`);
      }
    }
  })(doc, '');
});
afterAll(async () => { await t?.close(); });

/** Every string inside a value. */
const strings = (value: unknown): string[] => typeof value === 'string' ? [value]
  : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

describe('the OpenAPI document', () => {
  it('has examples, and none is a configured secret, a token, a hash or a key', async () => {
    expect(examples.length).toBeGreaterThan(100);
    const clientSecrets = readFileSync('config/oauth_client_details.csv', 'utf8').split('\n').slice(1)
      .map((line) => line.split(';')[2] ?? '').filter((secret) => secret.length > 0);
    const configured = new Set([
      'admin', 'radar', t.config.managementportalOauthKeyStorePassword, t.config.adminPassword ?? 'radar', ...clientSecrets,
    ].filter((s): s is string => typeof s === 'string' && s.length > 0));
    const token = await managementClient(t.app).tokenOf('admin', 'admin');
    const text = JSON.stringify(doc);
    expect(text).not.toContain(token.split('.')[2]);
    for (const { at, value } of examples) {
      for (const s of strings(value)) {
        expect(configured.has(s), `${at}: a configured secret`).toBe(false);
        expect(s, at).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/); // a JWT
        expect(s, at).not.toMatch(/\$2[aby]\$\d\d\$/); // a bcrypt hash
        expect(s, at).not.toMatch(/PRIVATE KEY/);
        expect(s, at).not.toMatch(/^\d{20}$/); // a reset or activation key
      }
    }
    // A private JWK parameter anywhere: `d` of an EC or RSA key.
    expect(text).not.toMatch(/"d":"[\w-]{20,}"/);
  });

  it('documents a meta-token name that opens nothing', async () => {
    const names = examples.filter((e) => /tokenName/.test(e.at)).flatMap((e) => strings(e.value));
    for (const name of names) {
      expect((await t.app.inject({ method: 'GET', url: `${MP}/api/meta-token/${encodeURIComponent(name)}` })).statusCode, name).toBe(404);
    }
  });

  it('declares no secret field in any error response', () => {
    const secretField = /password|secret|refresh_?token|access_?token|reset_?key|activation_?key|hash/i;
    const resolve = (schema: Json): Json => (schema?.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema);
    const fields = (schema: Json, seen = new Set<Json>()): string[] => {
      const s = resolve(schema);
      if (!s || typeof s !== 'object' || seen.has(s)) return [];
      seen.add(s);
      return [
        ...Object.keys(s.properties ?? {}), ...Object.values(s.properties ?? {}).flatMap((p) => fields(p, seen)),
        ...[s.anyOf, s.oneOf, s.allOf].flat().filter(Boolean).flatMap((p: Json) => fields(p, seen)), ...(s.items ? fields(s.items, seen) : []),
      ];
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(operations as Record<string, Json>)) {
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
          if (Number(status) < 400) continue;
          for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
            checked++;
            expect(fields(media.schema).filter((f) => secretField.test(f)), `${method} ${path} ${status}`).toEqual([]);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('error bodies', () => {
  const secret = () => `Secr3t-${randomBytes(9).toString('base64url')}`;

  // Not here: an unknown or spent meta-token name, which the reference's 404/410 bodies name back
  // to its sender (test/management/pairing/routes.test.ts); such a name opens nothing any more.
  it('never quote a secret sent in bad input', async () => {
    const cases: { name: string; method: 'GET' | 'POST' | 'PUT'; url: string; type?: string; body?: (s: string) => string }[] = [
      { name: 'malformed JSON (reset finish)', method: 'POST', url: `${MP}/api/account/reset_password/finish`, type: 'application/json', body: (s) => `{"key":"${s}","newPassword":"${s}"` },
      { name: 'wrong types (reset finish)', method: 'POST', url: `${MP}/api/account/reset_password/finish`, type: 'application/json', body: (s) => JSON.stringify({ key: s, newPassword: 5 }) },
      { name: 'unknown reset key', method: 'POST', url: `${MP}/api/account/reset_password/finish`, type: 'application/json', body: (s) => JSON.stringify({ key: s, newPassword: `${s}-Aa1!` }) },
      { name: 'unknown activation key', method: 'GET', url: `${MP}/api/activate?key=SECRET` },
      { name: 'password grant, wrong password', method: 'POST', url: `${MP}/oauth/token`, type: 'application/x-www-form-urlencoded', body: (s) => `grant_type=password&client_id=ManagementPortalapp&username=admin&password=${s}` },
      { name: 'refresh grant, unknown token', method: 'POST', url: `${MP}/oauth/token`, type: 'application/x-www-form-urlencoded', body: (s) => `grant_type=refresh_token&client_id=ManagementPortalapp&refresh_token=${s}` },
      { name: 'client secret too long', method: 'POST', url: `${MP}/oauth/token`, type: 'application/x-www-form-urlencoded', body: (s) => `grant_type=client_credentials&client_id=aRMT&client_secret=${s.repeat(200)}` },
      { name: 'check_token with a non-token', method: 'POST', url: `${MP}/oauth/check_token`, type: 'application/x-www-form-urlencoded', body: (s) => `token=${s}` },
      { name: 'bearer that is not a JWT', method: 'GET', url: `${MP}/api/account` },
      { name: 'malformed JSON (app server)', method: 'POST', url: '/projects', type: 'application/json', body: (s) => `{"projectId":"${s}` },
      { name: 'bearer that is not a JWT (app server)', method: 'GET', url: '/projects' },
    ];
    for (const c of cases) {
      const s = secret();
      const res = await t.app.inject({
        method: c.method, url: c.url.replace('SECRET', s),
        headers: { ...(c.type ? { 'content-type': c.type } : {}), authorization: c.name.startsWith('bearer') ? `Bearer ${s}` : '' },
        ...(c.body ? { payload: c.body(s) } : {}),
      });
      expect(res.statusCode, `${c.name}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, c.name).toBeLessThan(500);
      expect(res.body.includes(s) || res.body.includes(s.slice(0, 10)), `${c.name}: ${res.body.slice(0, 300)}`).toBe(false);
      expect(JSON.stringify(res.headers).includes(s), `${c.name}: a header`).toBe(false);
    }
  });
});
