/**
 * `/oauth-clients` in headless Chromium: one row per client, the protected client saying so on the
 * list and its own page, its "Edit" and "Delete" disabled with the reason as their description and
 * its forms refused (403) saying why, a client created with "Generate secret" (shown once, working at
 * `/oauth/token`), edited and deleted as the API then sees it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { BROWSER_WAIT_MS, chromiumInstalled, screenshot, signIn } from '../../helpers/browser.js';
import { startAdminPages, type AdminPages } from '../../helpers/admin-pages.js';
import { basic, unique } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';

const WHY = 'A protected client, such as the admin UI\'s own, cannot be edited or deleted, here or through the API.';

/** The text of the elements an element's `aria-describedby` names: what a screen reader reads after its name. */
const descriptionOf = (locator: Locator) => locator.evaluate((element) => {
  const doc = (globalThis as unknown as { document: { getElementById(id: string): { textContent: string | null } | null } }).document;
  return ((element as unknown as { getAttribute(name: string): string | null }).getAttribute('aria-describedby') ?? '')
    .split(/\s+/).map((id: string) => doc.getElementById(id)?.textContent ?? '').join(' ').trim();
});

describe('admin UI: OAuth clients', requires(chromiumInstalled), () => {
  let ui: AdminPages;
  let page: Page;

  beforeAll(async () => {
    ui = await startAdminPages();
    page = await ui.signedIn();
  });
  afterAll(async () => ui?.close());

  it('lists one row per client the API lists; the protected client says so and cannot be edited or deleted', async () => {
    await page.goto(`${ui.t.base}/oauth-clients`);
    const listed = (await ui.api.call('GET', '/api/oauth-clients', { bearer: ui.adminToken })).body as { clientId: string }[];
    expect(listed.length).toBeGreaterThan(0);
    for (const { clientId } of listed) expect(await page.getByRole('cell', { name: clientId, exact: true }).count()).toBe(1);
    expect(await page.getByRole('row').count()).toBe(listed.length + 1);

    const frontend = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'ManagementPortalapp', exact: true }) });
    expect(await frontend.getByRole('cell', { name: 'Protected', exact: true }).count()).toBe(1);
    expect(await frontend.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await frontend.getByRole('link', { name: 'Delete' }).count()).toBe(0);
    for (const name of ['Edit', 'Delete']) {
      const button = frontend.getByRole('button', { name });
      expect(await button.isDisabled()).toBe(true);
      expect(await descriptionOf(button)).toBe(WHY);
    }
    await screenshot(page, 'oauth-clients-list');

    // Its own page says it is protected, with the same disabled controls.
    await frontend.getByRole('link', { name: 'ManagementPortalapp' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('OAuth client ManagementPortalapp');
    expect(await page.getByText(WHY).count()).toBe(1);
    expect(await descriptionOf(page.getByRole('button', { name: 'Edit' }))).toBe(WHY);
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);

    // Its forms, opened anyway, say why they are refused (as the API refuses the change: 403).
    for (const form of ['edit', 'delete']) {
      const res = await fetch(`${ui.t.base}/oauth-clients/ManagementPortalapp/${form}`, { headers: { cookie: await cookieHeader(page), accept: 'text/html' } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('The OAuth client ManagementPortalapp is protected: it cannot be edited or deleted.');
    }
  });

  it('an unprotected client\'s page links to its forms', async () => {
    const clientId = unique('ui-plain');
    expect((await ui.api.call('POST', '/api/oauth-clients', { bearer: ui.adminToken, body: { clientId, scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'] } })).status).toBe(201);
    await page.goto(`${ui.t.base}/oauth-clients/${clientId}`);
    expect(await page.getByText(WHY).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Edit' }).getAttribute('href')).toBe(`/managementportal/oauth-clients/${clientId}/edit`);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
  });

  it('creates a client with a generated secret, shown once, that works for client_credentials; then edits and deletes it', async () => {
    const clientId = unique('ui-client');
    await page.goto(`${ui.t.base}/oauth-clients`);
    await page.getByRole('link', { name: 'Create OAuth client' }).click();
    await page.getByLabel('Client ID').fill(clientId);
    await page.getByLabel('Scopes', { exact: true }).fill('SUBJECT.READ, PROJECT.READ');
    await page.getByLabel('Resource IDs').fill('res_ManagementPortal');
    await page.getByLabel('client_credentials').check();
    await page.getByLabel('Redirect URIs').fill('https://app.example.org/callback');
    await page.getByLabel('Access token validity (seconds)').fill('600');
    await page.getByLabel('Refresh token validity (seconds)').fill('3600');
    await page.getByLabel('Dynamic registration').check();
    await page.getByLabel('Generate secret').check();
    await screenshot(page, 'oauth-clients-create');
    await page.getByRole('button', { name: 'Save' }).click();

    const secret = await page.getByLabel('Client secret', { exact: true }).inputValue();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await screenshot(page, 'oauth-clients-secret');
    const token = await ui.api.token({ grant_type: 'client_credentials' }, basic(clientId, secret));
    expect(token.status).toBe(200);
    expect(token.access_token).toEqual(expect.any(String));
    // Post, redirect, show once (issue 31 item 10): the secret's page is a GET that forgets it; a
    // reload shows no secret and re-submits nothing (the secret stays the one just shown).
    expect(page.url()).toBe(`${ui.t.base}/oauth-clients/${clientId}/secret`);
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByRole('alert').textContent()).toContain('shown once and is not kept');
    expect((await ui.api.token({ grant_type: 'client_credentials' }, basic(clientId, secret))).status).toBe(200);

    const stored = (await ui.api.call('GET', `/api/oauth-clients/${clientId}`, { bearer: ui.adminToken })).body;
    expect(stored).toMatchObject({
      scope: ['SUBJECT.READ', 'PROJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'],
      registeredRedirectUri: ['https://app.example.org/callback'], accessTokenValiditySeconds: 600, refreshTokenValiditySeconds: 3600,
      additionalInformation: { dynamic_registration: 'true' },
    });

    // The secret is never shown again: the list and the edit form hold no trace of it.
    await page.goto(`${ui.t.base}/oauth-clients`);
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: clientId, exact: true }) });
    await row.getByRole('link', { name: 'Edit' }).click();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByLabel('Dynamic registration').isChecked()).toBe(true);
    await page.getByLabel('Scopes', { exact: true }).fill('SUBJECT.READ');
    await page.getByLabel('Dynamic registration').uncheck();
    await screenshot(page, 'oauth-clients-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${ui.t.base}/oauth-clients`);
    const edited = (await ui.api.call('GET', `/api/oauth-clients/${clientId}`, { bearer: ui.adminToken })).body;
    expect(edited.scope).toEqual(['SUBJECT.READ']);
    expect(edited.additionalInformation.dynamic_registration).toBeUndefined();
    // The secret was kept.
    expect((await ui.api.token({ grant_type: 'client_credentials' }, basic(clientId, secret))).status).toBe(200);

    await page.getByRole('row').filter({ has: page.getByRole('cell', { name: clientId, exact: true }) }).getByRole('link', { name: 'Delete' }).click();
    await screenshot(page, 'oauth-clients-delete');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${ui.t.base}/oauth-clients`);
    expect(await page.getByRole('cell', { name: clientId, exact: true }).count()).toBe(0);
    expect((await ui.api.call('GET', `/api/oauth-clients/${clientId}`, { bearer: ui.adminToken })).status).toBe(404);
  });

  it('a bad form answers 400 with an alert, keeping what was typed, and stores nothing', async () => {
    await page.goto(`${ui.t.base}/oauth-clients/new`);
    await page.getByLabel('Client ID').fill('bad/id');
    await page.getByLabel('Scopes', { exact: true }).fill('SUBJECT.READ');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Save' }).click()]);
    expect(response.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('client ID');
    expect(await page.getByLabel('Scopes', { exact: true }).inputValue()).toBe('SUBJECT.READ');
    expect((await ui.api.call('GET', '/api/oauth-clients/bad%2Fid', { bearer: ui.adminToken })).status).not.toBe(200);
  });

  it('works with JavaScript off: create with a generated secret, then delete', async () => {
    const context = await ui.browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    plain.setDefaultTimeout(BROWSER_WAIT_MS);
    await plain.goto(`${ui.t.base}/login`);
    await signIn(plain, ui.t.base);
    const clientId = unique('no-js');
    await plain.goto(`${ui.t.base}/oauth-clients/new`);
    await plain.getByLabel('Client ID').fill(clientId);
    await plain.getByLabel('client_credentials').check();
    await plain.getByLabel('Generate secret').check();
    await plain.getByRole('button', { name: 'Save' }).click();
    const secret = await plain.getByLabel('Client secret', { exact: true }).inputValue();
    expect((await ui.api.token({ grant_type: 'client_credentials' }, basic(clientId, secret))).status).toBe(200);
    await plain.goto(`${ui.t.base}/oauth-clients/${clientId}/delete`);
    await plain.getByRole('button', { name: 'Delete' }).click();
    await plain.waitForURL(`${ui.t.base}/oauth-clients`);
    expect((await ui.api.call('GET', `/api/oauth-clients/${clientId}`, { bearer: ui.adminToken })).status).toBe(404);
    await context.close();
  });

  it('shows a project admin the clients (OAUTHCLIENTS.READ) without Create, Edit or Delete, and 403 for the forms', async () => {
    const { projectName } = (await ui.api.call('POST', '/api/projects', {
      bearer: ui.adminToken, body: { projectName: unique('clients-p'), description: 'd', location: 'l', organizationName: 'main' },
    })).body as { projectName: string };
    const admin = await ui.api.userWithRole('ROLE_PROJECT_ADMIN', { project: projectName });
    const other = await ui.signedIn(admin.login, 'Passw0rd');
    const list = await other.goto(`${ui.t.base}/oauth-clients`);
    expect(list?.status()).toBe(200);
    expect(await other.getByRole('cell', { name: 'pRMT', exact: true }).count()).toBe(1);
    expect(await other.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await other.getByRole('link', { name: 'Create OAuth client' }).count()).toBe(0);
    expect((await other.goto(`${ui.t.base}/oauth-clients/new`))?.status()).toBe(403);
    expect((await other.goto(`${ui.t.base}/oauth-clients/pRMT/edit`))?.status()).toBe(403);
  });
});

async function cookieHeader(page: Page): Promise<string> {
  return (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
}
