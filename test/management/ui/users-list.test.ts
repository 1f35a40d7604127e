/**
 * The users list as coordinators use it (issue 31 item 7): search by login, name and e-mail (kept
 * in the URL, also by the column links), sort by a column's header (`aria-sort` says which), and
 * the created and modified columns. `GET /api/users?name=` filters the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique } from '../../helpers/management-api.js';
import { uiClient } from '../../helpers/ui-client.js';

let t: TestApp;
let ui: ReturnType<typeof uiClient>;
const tag = unique('ul').toLowerCase();
const people = [
  { login: `${tag}-a`, firstName: 'Ada', lastName: 'Lovelace', email: `zeta-${tag}@example.org` },
  { login: `${tag}-b`, firstName: 'Grace', lastName: 'Hopper', email: `alpha-${tag}@example.org` },
  { login: `${tag}-c`, firstName: 'Alan', lastName: 'Turing', email: `mid-${tag}@example.org` },
];

beforeAll(async () => {
  t = await buildTestApp();
  const api = managementClient(t.app);
  const admin = await api.tokenOf('admin', 'admin');
  for (const p of people) expect((await api.call('POST', '/api/users', { bearer: admin, body: { ...p, langKey: 'en', roles: [] } })).status).toBe(201);
  ui = uiClient(t.app);
  expect((await ui.signIn()).status).toBe(303);
});
afterAll(async () => { await t.close(); });

/** The logins of the list's rows, in order. */
const loginsOf = (html: string) => [...html.matchAll(/<tr>\s*<td>([^<]+)<\/td>/g)].map((m) => m[1]!).filter((login) => login.startsWith(tag));

describe('the users list', () => {
  it('finds users by part of their name, first or last, and by part of their e-mail', async () => {
    expect(loginsOf((await ui.get('/users?name=LOVE')).body)).toEqual([`${tag}-a`]);
    expect(loginsOf((await ui.get('/users?name=grace%20hop')).body)).toEqual([`${tag}-b`]);
    expect(loginsOf((await ui.get(`/users?email=alpha-${tag}`)).body)).toEqual([`${tag}-b`]);
    const page = (await ui.get(`/users?login=${tag}&email=example.org`)).body;
    expect(loginsOf(page)).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    // The search is kept in the form and in the column links.
    expect(page).toContain(`id="email-filter" name="email" value="example.org"`);
    expect(page).toContain(`href="/managementportal/users?login=${tag}&amp;email=example.org&amp;sort=email%2Casc"`);
  });

  it('sorts by a column header, and says which', async () => {
    const byEmail = (await ui.get(`/users?login=${tag}&sort=email,asc`)).body;
    expect(loginsOf(byEmail)).toEqual([`${tag}-b`, `${tag}-c`, `${tag}-a`]);
    expect(byEmail).toMatch(/<th scope="col" aria-sort="ascending"><a href="[^"]*sort=email%2Cdesc">Email ▲<\/a><\/th>/);
    expect(loginsOf((await ui.get(`/users?login=${tag}&sort=lastName,desc`)).body)).toEqual([`${tag}-c`, `${tag}-a`, `${tag}-b`]);
    expect((await ui.get('/users?sort=password,asc')).status).toBe(400);
  });

  it('shows when and by whom each user was created and last modified', async () => {
    const page = (await ui.get(`/users?login=${tag}-a`)).body;
    expect(page).toContain('>Created</a></th>');
    expect(page).toContain('>Last modified</a></th>');
    expect(page).toMatch(/<time[^>]*>[^<]*<\/time> · admin<\/td>/);
  });

  it('the API filters by name alike', async () => {
    const api = managementClient(t.app);
    const found = await api.call('GET', `/api/users?name=turing&login=${tag}`, { bearer: await api.tokenOf('admin', 'admin') });
    expect(found.status).toBe(200);
    expect((found.body as { login: string }[]).map((u) => u.login)).toEqual([`${tag}-c`]);
  });
});
