/**
 * The pages' languages (issue 31 item 13): the Dutch catalogue has every English key (so a key
 * added later cannot go untranslated), and a page's language is the `lang` cookie's (set by the
 * navbar's switch), else the account's, else the browser's.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../../src/management/i18n/messages/en.js';
import { nl } from '../../../src/management/i18n/messages/nl.js';
import { languageOf } from '../../../src/management/i18n/translator.js';
import { users } from '../../../src/management/schema.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient } from '../../helpers/management-api.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';

describe('the catalogue', () => {
  it('has a Dutch text for every English key', () => {
    const missing = Object.keys(en).filter((key) => !(key in nl) || !(nl as Record<string, string>)[key]?.trim());
    expect(missing).toEqual([]);
  });

  it('has no Dutch key the English catalogue lacks', () => {
    expect(Object.keys(nl).filter((key) => !(key in en))).toEqual([]);
  });

  it('keeps every {parameter} of the English text in the Dutch one', () => {
    const params = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const differ = Object.entries(en).filter(([key, text]) => JSON.stringify(params(text)) !== JSON.stringify(params((nl as Record<string, string>)[key] ?? '')));
    expect(differ.map(([key]) => key)).toEqual([]);
  });
});

describe('languageOf: cookie > account > browser > en', () => {
  it.each([
    [{ cookie: 'nl', account: 'en', acceptLanguage: 'en-GB,en' }, 'nl'],
    [{ cookie: 'en', account: 'nl', acceptLanguage: 'nl-NL' }, 'en'],
    [{ account: 'nl', acceptLanguage: 'en-GB,en' }, 'nl'],
    [{ account: 'en', acceptLanguage: 'nl' }, 'en'],
    [{ cookie: 'xx', account: 'fr', acceptLanguage: 'de,nl-BE;q=0.8' }, 'nl'],
    [{ acceptLanguage: 'fr-FR,de' }, 'en'],
    [{}, 'en'],
  ])('%o → %s', (sources, lang) => {
    expect(languageOf(sources)).toBe(lang);
  });
});

describe('a page\'s language', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp(); });
  afterAll(async () => { await t?.close(); });

  const langOf = (html: string) => /<html lang="(\w+)"/.exec(html)?.[1];

  it('follows the browser without an account or cookie', async () => {
    const ui = uiClient(t.app, '/managementportal', { 'accept-language': 'nl-NL,nl;q=0.9,en;q=0.5' });
    const page = await ui.get('/login');
    expect(langOf(page.body)).toBe('nl');
    expect(page.body).toContain('Gebruikersnaam');
    expect(langOf((await uiClient(t.app, '/managementportal', { 'accept-language': 'en-US' }).get('/login')).body)).toBe('en');
  });

  it('follows the account over the browser, and the cookie over both', async () => {
    const { login } = await managementClient(t.app).userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
    await t.app.db.db.update(users).set({ langKey: 'nl' }).where(eq(users.login, login));
    const ui = uiClient(t.app, '/managementportal', { 'accept-language': 'en-GB,en' });
    expect((await ui.signIn(login, 'Passw0rd')).status).toBe(303);
    const home = await ui.get('/');
    expect(langOf(home.body)).toBe('nl');
    expect(home.body).toContain('Afmelden');

    // The switch: sets the cookie and goes back to the page it was clicked on.
    const switched = await ui.get('/language?lang=en&return=%2Fmanagementportal%2Forganizations');
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/managementportal/organizations');
    const cookie = ui.setCookies.find((line) => line.startsWith('lang='))!;
    expect(cookie).toMatch(/^lang=en;/);
    expect(cookie).toMatch(/Path=\/managementportal\//);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const english = await ui.get('/organizations');
    expect(langOf(english.body)).toBe('en');
    expect(english.body).toContain('Sign out');
  });

  it('is switched by links in the navbar that lead back to the page', async () => {
    const ui = uiClient(t.app, '/managementportal', { 'accept-language': 'en' });
    await ui.signIn();
    const page = await ui.get('/organizations?x=1');
    expect(page.body).toContain('href="/managementportal/language?lang=nl&amp;return=%2Fmanagementportal%2Forganizations%3Fx%3D1"');
    expect(page.body).toContain('>Nederlands</a>');
  });

  it('refuses to send the switch back to another site, and an unknown language', async () => {
    const ui = uiClient(t.app);
    for (const target of ['https://evil.example/', '//evil.example/x', '/managementportal/..//evil.example']) {
      const res = await ui.get(`/language?lang=nl&return=${encodeURIComponent(target)}`);
      expect(res.status).toBe(303);
      expect(res.location).toBe('/managementportal/');
    }
    const bad = await ui.get('/language?lang=xx&return=%2Fmanagementportal%2F');
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/text\/html/);
  });

  it('applies to the OAuth sign-in page too (cookie over browser)', async () => {
    const ui = uiClient(t.app, '/managementportal', { 'accept-language': 'en' });
    const url = '/managementportal/oauth/authorize?response_type=code&client_id=unknown-client&redirect_uri=https%3A%2F%2Fx.example%2F';
    const english = await ui.get(url);
    expect(english.status).toBe(400);
    expect(english.body).toContain('Unknown client');
    await ui.get('/language?lang=nl');
    const dutch = await ui.get(url);
    expect(langOf(dutch.body)).toBe('nl');
    expect(dutch.body).toContain('Onbekende client');
    expect(dutch.body).not.toContain('Unknown client');
  });

  it('the OAuth consent page follows the account over the browser', async () => {
    const { login } = await managementClient(t.app).userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
    await t.app.db.db.update(users).set({ langKey: 'nl' }).where(eq(users.login, login));
    const clientId = `i18n-${login}`;
    await upsertClient(t.app.db.db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'], authorizedGrantTypes: ['authorization_code'],
      redirectUris: ['https://app.example.org/cb'], autoApprove: [], accessTokenValidity: 900, refreshTokenValidity: 3600,
    });
    const ui = uiClient(t.app, '/managementportal', { 'accept-language': 'en' });
    const signInPage = await ui.get(`/managementportal/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=https%3A%2F%2Fapp.example.org%2Fcb`);
    expect(langOf(signInPage.body)).toBe('en');
    const requestId = /name="request_id" value="([^"]*)"/.exec(signInPage.body)![1]!;
    const consent = await ui.post('/managementportal/oauth/login', { _csrf: csrfOf(signInPage.body), request_id: requestId, username: login, password: 'Passw0rd' });
    expect(consent.status).toBe(200);
    expect(langOf(consent.body)).toBe('nl');
    expect(consent.body).toContain('Toestaan');
  });
});
