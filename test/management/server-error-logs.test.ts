/**
 * A 5xx of the admin pages and of the OAuth pages and endpoints is logged as the API logs one
 * (issue 28 item 4): method, route, SQLSTATE and constraint of a database error, and not the
 * statement's parameters (personal data, logins, keys) that the driver's error carries.
 *
 * The failure is forced by a trigger that raises a check violation (23514) with a constraint name
 * for one marked value, so only this file's requests fail, and only where the test wants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { captureLog, type LogLine } from '../helpers/log-capture.js';
import { csrfOf, uiClient } from '../helpers/ui-client.js';
import { managementClient, unique } from '../helpers/management-api.js';
import { loggerOptions } from '../../src/platform/logging.js';
import { aProject } from '../fixtures/management.js';
import { upsertClient } from '../../src/management/oauth/clients/queries.js';

const captured = captureLog();
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({}, { logger: loggerOptions('info', captured.stream) });
  await t.app.db.db.execute(sql.raw(`
    CREATE FUNCTION management.test_forced_failure() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'forced failure' USING ERRCODE = '23514', CONSTRAINT = 'test_forced_failure';
    END $$`));
});
afterAll(async () => t?.close());

/** Makes writes of `table` fail when `column` is `value`. */
async function failWrites(table: string, column: string, value: string): Promise<void> {
  const name = unique('test_forced').replace(/-/g, '_');
  await t.app.db.db.execute(sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE ON management.${table}
    FOR EACH ROW WHEN (NEW.${column} = '${value}') EXECUTE FUNCTION management.test_forced_failure()`));
}

/** The lines logged at error and above since `from` (an index into the captured lines). */
const errorLinesSince = (from: number): LogLine[] => captured.lines().slice(from).filter((line) => line.level >= 50);

/** Asserts the one error line of a forced failure: where, what, and nothing of the statement. */
function expectLoggedAsTheApiDoes(from: number, method: string, route: string, secrets: string[]): void {
  const lines = errorLinesSince(from);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ msg: 'database error', method, route, sqlState: '23514', constraint: 'test_forced_failure' });
  expect(lines[0]).not.toHaveProperty('err');
  const text = captured.text().split('\n').slice(from).join('\n');
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('a 5xx is logged with SQL state, constraint, method and route, without the parameters', () => {
  it('on an admin page (a settings form)', async () => {
    const project = await aProject(t.app.db.db);
    const { login } = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', { project: project.projectName }, 'Passw0rd!');
    const firstName = unique('forced-name');
    await failWrites('users', 'first_name', firstName);
    const ui = uiClient(t.app);
    expect((await ui.signIn(login, 'Passw0rd!')).status).toBe(303);
    const page = await ui.get('/managementportal/account/settings');
    const from = captured.lines().length;
    const res = await ui.post('/managementportal/account/settings', {
      _csrf: csrfOf(page.body), firstName, lastName: 'Doe', email: `${login}@example.org`, langKey: 'en',
    });
    expect(res.status).toBe(500);
    expect(res.body).not.toContain(firstName);
    expectLoggedAsTheApiDoes(from, 'POST', '/managementportal/account/settings', [firstName, `${login}@example.org`]);
  });

  it('on the OAuth sign-in page', async () => {
    const { login } = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', {}, 'Passw0rd!');
    await failWrites('oauth_sessions', 'user_login', login);
    const clientId = unique('webapp');
    await upsertClient(t.app.db.db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['PROJECT.READ'],
      authorizedGrantTypes: ['authorization_code'], redirectUris: ['https://app.example.org/callback'], autoApprove: [],
    });
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'https://app.example.org/callback' });
    const page = await t.app.inject({ url: `/managementportal/oauth/authorize?${query}` });
    expect(page.statusCode).toBe(200);
    const cookie = [page.headers['set-cookie']].flat().find((c): c is string => typeof c === 'string' && c.startsWith('mp_oauth_session='))!.split(';')[0]!;
    const requestId = /name="request_id" value="([^"]*)"/.exec(page.body)?.[1] ?? '';
    const from = captured.lines().length;
    const res = await t.app.inject({
      method: 'POST', url: '/managementportal/oauth/login',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrfOf(page.body), request_id: requestId, username: login, password: 'Passw0rd!' }).toString(),
    });
    expect(res.statusCode).toBe(500);
    expectLoggedAsTheApiDoes(from, 'POST', '/managementportal/oauth/login', [login]);
  });

  it('on the token endpoint', async () => {
    const { login } = await managementClient(t.app).userWithRole('ROLE_PROJECT_ADMIN', {}, 'Passw0rd!');
    await failWrites('refresh_tokens', 'user_login', login);
    const from = captured.lines().length;
    const res = await managementClient(t.app).token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'Passw0rd!' });
    expect(res).toMatchObject({ status: 500, error: 'server_error' });
    expectLoggedAsTheApiDoes(from, 'POST', '/managementportal/oauth/token', [login]);
  });
});
