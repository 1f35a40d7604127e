/**
 * Issue 17 item 2: `client_credentials` needs a confidential client (RFC 6749 §4.4). A client
 * without a secret gets 400 `unauthorized_client` for it; a clients-file row or an API create or
 * update that gives a secretless client the grant is logged at WARN with the client id and the
 * fix. Also item 1's clients-file side: a row whose client id is a user's login is not created
 * (ERROR); a client of that id that exists already is still updated (ERROR too).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from '@node-rs/bcrypt';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { basic, managementClient, unique } from '../../../helpers/management-api.js';
import { findClient, upsertClient } from '../../../../src/management/oauth/clients/queries.js';
import { loadClientsFile } from '../../../../src/management/oauth/clients/startup.js';
import { users } from '../../../../src/management/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'confidential-'));
const file = join(dir, 'clients.csv');
const HEADER = 'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove';
const captured = captureLog();
let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;

beforeAll(async () => {
  writeFileSync(file, [
    HEADER,
    'file_confidential;res_ManagementPortal;s3cret;SUBJECT.READ;client_credentials;;;;;{};',
    'file_public_cc;res_ManagementPortal;;SUBJECT.READ;client_credentials;;;;;{};',
    'file_public_code;res_ManagementPortal;;SUBJECT.READ;authorization_code,refresh_token;https://app.example.org/cb;;;;{};',
    // The built-in admin exists before the clients file is loaded.
    'admin;res_ManagementPortal;s3cret;SUBJECT.READ;client_credentials;;;;;{};',
  ].join('\n'));
  t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: file }, { logger: { level: 'warn', stream: captured.stream } });
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const unauthorizedClient = { status: 400, error: 'unauthorized_client', error_description: 'The client_credentials grant needs a confidential client: give this client a secret' };
const warnedAbout = (clientId: string) => captured.lines().filter((l) => l.level === 40 && l.clientId === clientId && /give it a secret/.test(String(l.msg)));

describe('client_credentials for a client without a secret', () => {
  it('from the clients file: WARN with the client id and line at start; the grant is 400 unauthorized_client', async () => {
    expect(warnedAbout('file_public_cc')).toEqual([expect.objectContaining({ file, line: 3 })]);
    expect(warnedAbout('file_confidential')).toEqual([]);
    expect(warnedAbout('file_public_code')).toEqual([]);
    expect(await mp.token({ grant_type: 'client_credentials' }, basic('file_public_cc', ''))).toEqual(unauthorizedClient);
    expect((await mp.token({ grant_type: 'client_credentials' }, basic('file_confidential', 's3cret'))).status).toBe(200);
  });

  it('created through the API: WARN, 400 unauthorized_client; given a secret by update: 200', async () => {
    const clientId = unique('public-cc');
    const input = { clientId, clientSecret: '', resourceIds: ['res_ManagementPortal'], scope: ['SUBJECT.READ'], authorizedGrantTypes: ['client_credentials'] };
    expect((await mp.call('POST', '/api/oauth-clients', { bearer: admin, body: input })).status).toBe(201);
    expect(warnedAbout(clientId)).toHaveLength(1);
    expect(await mp.token({ grant_type: 'client_credentials', client_id: clientId })).toEqual(unauthorizedClient);

    // An update that keeps it secretless warns again; one that gives it a secret does not.
    expect((await mp.call('PUT', '/api/oauth-clients', { bearer: admin, body: { ...input, clientSecret: null, scope: ['SUBJECT.READ', 'PROJECT.READ'] } })).status).toBe(200);
    expect(warnedAbout(clientId)).toHaveLength(2);
    expect((await mp.call('PUT', '/api/oauth-clients', { bearer: admin, body: { ...input, clientSecret: 'now-confidential' } })).status).toBe(200);
    expect(warnedAbout(clientId)).toHaveLength(2);
    expect(await mp.token({ grant_type: 'client_credentials' }, basic(clientId, 'now-confidential'))).toMatchObject({ status: 200, grant_type: 'client_credentials' });
  });

  it('a confidential client made public by update: WARN, and the grant is refused again', async () => {
    const clientId = unique('made-public');
    const input = { clientId, clientSecret: 's3cret', resourceIds: ['res_ManagementPortal'], scope: ['SUBJECT.READ'], authorizedGrantTypes: ['client_credentials'] };
    expect((await mp.call('POST', '/api/oauth-clients', { bearer: admin, body: input })).status).toBe(201);
    expect(warnedAbout(clientId)).toEqual([]);
    expect((await mp.call('PUT', '/api/oauth-clients', { bearer: admin, body: { ...input, clientSecret: '' } })).status).toBe(200);
    expect(warnedAbout(clientId)).toHaveLength(1);
    expect(await mp.token({ grant_type: 'client_credentials', client_id: clientId })).toEqual(unauthorizedClient);
  });
});

describe('the clients file and user logins', () => {
  it('a row whose client id is a user\'s login is not created, logged at ERROR with the client id', async () => {
    expect(await findClient(t.app.db.db, 'admin')).toBeUndefined();
    expect(captured.lines()).toContainEqual(expect.objectContaining({ level: 50, clientId: 'admin', line: 5, msg: expect.stringMatching(/not created/) }));
    expect(await findClient(t.app.db.db, 'file_confidential')).toBeDefined();
  });

  it('a client that exists already and whose id became a login (made before the fix) is still updated, with an ERROR', async () => {
    const db = t.app.db.db;
    const clientId = unique('old-client');
    await upsertClient(db, { clientId, resourceIds: [], clientSecret: null, scope: ['SUBJECT.READ'], authorizedGrantTypes: ['authorization_code'], redirectUris: ['https://x.example.org/cb'] });
    await db.insert(users).values({ login: clientId, activated: true, passwordHash: await bcrypt.hash('Passw0rd', 4), langKey: 'en' });
    writeFileSync(file, `${HEADER}\n${clientId};res_ManagementPortal;;PROJECT.READ;authorization_code;https://x.example.org/cb;;60;;{};\n`);
    await loadClientsFile(db, file, t.app.log);
    expect(await findClient(db, clientId)).toMatchObject({ scope: ['PROJECT.READ'], accessTokenValidity: 60 });
    expect(captured.lines()).toContainEqual(expect.objectContaining({ level: 50, clientId, msg: expect.stringMatching(/rename or delete the user/) }));
  });
});
