/**
 * App-server security settings through the whole app (issue 21 items 1–2, 8): the switch's
 * defaults, another ManagementPortal's keys through `SECURITY_RADAR_MANAGEMENTPORTAL_URL` and
 * through a `radar_is.yml` (endpoints, PEMs, resourceName), bad files stopping the start, the
 * start-up warnings; and the per-user status cache on a fake clock.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { buildApp } from '../../../src/app.js';
import { createAuthenticator } from '../../../src/appserver/security/guard.js';
import { fixedKeySource } from '../../../src/appserver/security/key-sources.js';
import { keyFromPem } from '../../../src/appserver/security/keys.js';
import { createTokenVerifier } from '../../../src/appserver/security/verifier.js';
import { createAppserverSecurity } from '../../../src/appserver/security/setup.js';
import pino from 'pino';
import { buildTestApp } from '../../helpers/build-test-app.js';
import { captureLog } from '../../helpers/log-capture.js';
import { appserverClientsFile, callAs } from '../../helpers/appserver-auth.js';

const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = (k: KeyObject) => (k.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
const pemOf = (k: KeyObject) => k.export({ format: 'pem', type: 'spki' }) as string;

/** A token of another ManagementPortal: a sys admin there (radar-auth claims). */
const foreignToken = (key: KeyObject, aud = 'res_AppServer') => new SignJWT({
  aud: [aud], scope: ['PROJECT.READ', 'SUBJECT.READ'], sub: 'elsewhere-admin', user_name: 'elsewhere-admin',
  roles: [], authorities: ['ROLE_SYS_ADMIN'], grant_type: 'password', client_id: 'ManagementPortalapp',
  exp: Math.floor(Date.now() / 1000) + 3600, iat: Math.floor(Date.now() / 1000),
}).setProtectedHeader({ alg: 'ES256' }).sign(key);

let portal: Server;
let portalUrl: string;
const portalKey = ecKey();
beforeAll(async () => {
  portal = createServer((req, res) => {
    if (req.url !== '/managementportal/oauth/token_key') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      keys: [{ alg: 'ES256', kty: 'EC', value: `-----BEGIN EC PUBLIC KEY-----\n${spki(portalKey.publicKey)}\n-----END EC PUBLIC KEY-----`, x5c: [], x5t: null }],
    }));
  });
  await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
  portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}/managementportal`;
});
afterAll(async () => new Promise((resolve) => portal.close(resolve)));

const yml = (text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'radar-is-')), 'radar_is.yml');
  writeFileSync(file, text);
  return file;
};

describe('the switch', () => {
  const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', RADAR_ADMIN_PASSWORD: 'secret1', MANAGEMENTPORTAL_MAIL_FROM: 'a@b.org' };
  it('on in prod, off in dev; an explicit value wins (reference and relaxed names)', () => {
    expect(loadConfig({ PROFILE: 'prod', ...base }).securityRadarManagementportalEnabled).toBe(true);
    expect(loadConfig({ PROFILE: 'dev' }).securityRadarManagementportalEnabled).toBe(false);
    expect(loadConfig({ PROFILE: 'prod', ...base, SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'false' }).securityRadarManagementportalEnabled).toBe(false);
    expect(loadConfig({ PROFILE: 'dev', SPRING_APPLICATION_JSON: '{"security":{"radar":{"managementportal":{"enabled":true}}}}' }).securityRadarManagementportalEnabled).toBe(true);
  });

  it('a bad URL is refused naming the setting', () => {
    expect(() => loadConfig({ SECURITY_RADAR_MANAGEMENTPORTAL_URL: 'ftp://x' })).toThrow(/SECURITY_RADAR_MANAGEMENTPORTAL_URL: must be an http/);
  });
});

describe('another ManagementPortal\'s tokens', () => {
  it('through SECURITY_RADAR_MANAGEMENTPORTAL_URL ({url}/oauth/token_key)', async () => {
    const t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', SECURITY_RADAR_MANAGEMENTPORTAL_URL: portalUrl });
    try {
      expect((await callAs(t.app, await foreignToken(portalKey.privateKey), 'GET', '/projects')).statusCode).toBe(200);
      // Signed by a key nobody publishes: 401.
      expect((await callAs(t.app, await foreignToken(ecKey().privateKey), 'GET', '/projects')).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('through a radar_is.yml: publicKeyEndpoints, publicKeys (PEM) and resourceName', async () => {
    const pemKey = ecKey();
    const file = yml([
      'resourceName: res_MyAppServer',
      'publicKeyEndpoints:',
      `  - ${portalUrl}/oauth/token_key`,
      'publicKeys:',
      '  - |-',
      ...pemOf(pemKey.publicKey).trim().split('\n').map((line) => `    ${line}`),
      '',
    ].join('\n'));
    const t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', RADAR_IS_CONFIG_LOCATION: file });
    try {
      expect((await callAs(t.app, await foreignToken(portalKey.privateKey, 'res_MyAppServer'), 'GET', '/projects')).statusCode).toBe(200);
      expect((await callAs(t.app, await foreignToken(pemKey.privateKey, 'res_MyAppServer'), 'GET', '/projects')).statusCode).toBe(200);
      // The audience is the file's resourceName now, not res_AppServer.
      expect((await callAs(t.app, await foreignToken(pemKey.privateKey), 'GET', '/projects')).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('SECURITY_OAUTH2_RESOURCE_ID wins over the file\'s resourceName', async () => {
    const pemKey = ecKey();
    const file = yml(`resourceName: res_Other\npublicKeys:\n  - "${pemOf(pemKey.publicKey).trim().replace(/\n/g, '\\n')}"\n`);
    const t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', RADAR_IS_CONFIG_LOCATION: file, SECURITY_OAUTH2_RESOURCE_ID: 'res_AppServer' });
    try {
      expect((await callAs(t.app, await foreignToken(pemKey.privateKey), 'GET', '/projects')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('a bad radar_is.yml stops the start naming RADAR_IS_CONFIG_LOCATION', () => {
  for (const [name, file] of [
    ['missing', () => '/nonexistent/radar_is.yml'],
    ['not YAML', () => yml('resourceName: [unclosed')],
    ['a bad PEM', () => yml('publicKeys:\n  - "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----"\n')],
    ['a bad endpoint', () => yml('publicKeyEndpoints:\n  - not-a-url\n')],
  ] as const) {
    it(name, async () => {
      const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', RADAR_IS_CONFIG_LOCATION: file() });
      await expect(buildApp(config, { logger: false, demoData: false })).rejects.toThrow(/^RADAR_IS_CONFIG_LOCATION: /);
    });
  }
});

describe('start-up warnings', () => {
  it('security off: start() WARNs naming the setting (the plugin calls it in prod only)', async () => {
    const log = captureLog();
    const security = createAppserverSecurity(
      { enabled: false, managementportalUrl: '', resourceId: undefined, radarIs: undefined },
      { local: { publicKeys: () => [], userActive: async () => true, client: async () => undefined }, log: pino({ level: 'warn' }, log.stream), now: Date.now },
    );
    expect(security.authenticator).toBeUndefined();
    await security.start();
    expect(log.lines()).toEqual([expect.objectContaining({ level: 40, setting: 'SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED' })]);
  });

  it('the in-process aRMT client without res_AppServer or the app\'s scopes: a WARN', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'clients-')), 'clients.csv');
    writeFileSync(bad, [
      'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove',
      'aRMT;res_ManagementPortal;;SUBJECT.READ;refresh_token,authorization_code;;;43200;7948800;{};', '',
    ].join('\n'));
    for (const [clients, warned] of [[bad, true], [appserverClientsFile(), false]] as const) {
      const log = captureLog();
      const t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true', MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: clients }, { logger: { level: 'warn', stream: log.stream } });
      await t.close();
      const line = log.lines().find((l) => l.clientId === 'aRMT');
      if (!warned) expect(line).toBeUndefined();
      else expect(line).toMatchObject({ level: 40, resource: 'res_AppServer', missingScopes: ['MEASUREMENT.CREATE', 'SUBJECT.UPDATE', 'PROJECT.READ'] });
    }
  });
});

describe('401 logging', () => {
  it('each 401 is a WARN line with the path, never the token', async () => {
    const log = captureLog();
    const t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true' }, { logger: { level: 'warn', stream: log.stream } });
    try {
      const secret = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
      expect((await callAs(t.app, secret, 'GET', '/projects?x=1')).statusCode).toBe(401);
      expect((await callAs(t.app, undefined, 'GET', '/users')).statusCode).toBe(401);
    } finally {
      await t.close();
    }
    const warned = log.lines().filter((l) => l.level === 40 && typeof l.path === 'string');
    expect(warned.map((l) => [l.path, l.msg])).toEqual([
      ['/projects', 'Cannot verify token. It may have been rendered invalid.'],
      ['/users', 'The token is missing from the request. No bearer token provided in the request'],
    ]);
    expect(log.text()).not.toContain('c2VjcmV0LXNpZ25hdHVyZQ');
  });
});

describe('per-user status of in-process tokens (fake clock)', () => {
  it('believed at most 60 s: a deactivated user is refused within a minute', async () => {
    let clock = 1_000_000_000;
    const key = ecKey();
    const local = fixedKeySource('local', [keyFromPem(pemOf(key.publicKey))]);
    let active = true;
    let lookups = 0;
    const auth = createAuthenticator({
      verifier: createTokenVerifier({ sources: [local], resourceName: 'res_AppServer', now: () => clock }),
      local, now: () => clock,
      userActive: async () => { lookups += 1; return active; },
    });
    const token = await new SignJWT({ aud: 'res_AppServer', scope: 'SUBJECT.READ', sub: 'u', user_name: 'u', exp: clock / 1000 + 3600 })
      .setProtectedHeader({ alg: 'ES256' }).sign(key.privateKey);
    const request = { headers: { authorization: `Bearer ${token}` } } as FastifyRequest;
    await auth.authenticate(request);
    active = false;
    clock += 59_000;
    await expect(auth.authenticate(request)).resolves.toBeDefined();
    expect(lookups).toBe(1);
    clock += 2_000;
    await expect(auth.authenticate(request)).rejects.toThrow('Cannot verify token. It may have been rendered invalid.');
    expect(lookups).toBe(2);
  });
});
