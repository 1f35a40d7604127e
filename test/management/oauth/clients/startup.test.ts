/** The clients file at start: a broken row is logged with its line number and skipped; the rest load. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { findClient } from '../../../../src/management/oauth/clients/queries.js';
import { loadClientsFile } from '../../../../src/management/oauth/clients/startup.js';

const dir = mkdtempSync(join(tmpdir(), 'clients-'));
const file = join(dir, 'clients.csv');
const HEADER = 'client_id;resource_ids;client_secret;scope;authorized_grant_types;redirect_uri;authorities;access_token_validity;refresh_token_validity;additional_information;autoapprove';
const captured = captureLog();
let t: TestApp;

beforeAll(async () => {
  writeFileSync(file, [
    HEADER,
    'loaded_client;res_ManagementPortal;s3cret;SUBJECT.READ;client_credentials;;;600;;{};',
    'broken_client;res_ManagementPortal;s3cret;SUBJECT.READ;client_credentials;;;later;;{};',
    'typo_client;res_ManagementPortal;s3cret;UBJECT.UPDATE,SUBJECT.READ;client_credentials;;;;;{};',
  ].join('\n'));
  t = await buildTestApp({ MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: file }, { logger: { level: 'warn', stream: captured.stream } });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const token = (auth: string) => t.app.inject({
  method: 'POST', url: '/managementportal/oauth/token',
  headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  payload: 'grant_type=client_credentials',
});

describe('clients file at start', () => {
  it('loads the good rows, skips the broken one with its line number, warns about the unknown scope', async () => {
    expect((await token('loaded_client:s3cret')).json()).toMatchObject({ expires_in: 600, scope: 'SUBJECT.READ' });
    expect((await token('typo_client:s3cret')).json()).toMatchObject({ scope: 'UBJECT.UPDATE SUBJECT.READ' });
    expect((await token('broken_client:s3cret')).statusCode).toBe(401);
    expect(captured.lines()).toContainEqual(expect.objectContaining({ msg: 'oauth clients file: row skipped', line: 3, file }));
    expect(captured.lines()).toContainEqual(expect.objectContaining({ msg: 'oauth clients file: unknown scope', line: 4 }));
  });

  it('stores secrets bcrypt-hashed and replaces a client with the same id on the next load', async () => {
    const db = t.app.db.db;
    expect((await findClient(db, 'loaded_client'))!.clientSecret).toMatch(/^\$2[aby]\$10\$/);
    writeFileSync(file, `${HEADER}\nloaded_client;res_ManagementPortal;;PROJECT.READ;client_credentials;;;60;;{};\n`);
    await loadClientsFile(db, file, t.app.log);
    expect(await findClient(db, 'loaded_client')).toMatchObject({ clientSecret: null, scope: ['PROJECT.READ'], accessTokenValidity: 60 });
    expect(await findClient(db, 'typo_client')).toBeDefined();
  });

  it('a clients file that cannot be read names the setting', async () => {
    await expect(loadClientsFile(t.app.db.db, join(dir, 'missing.csv'), t.app.log))
      .rejects.toThrow(/^MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: cannot read .*missing\.csv: ENOENT/);
  });
});
