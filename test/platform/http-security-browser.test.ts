/**
 * The Content-Security-Policies in a real browser (headless Chromium): Swagger UI still renders
 * the operations, the OAuth sign-in page gets its inline style, its consent page works without
 * JavaScript, and the admin UI's pages load their script, stylesheet and logo, all without a
 * single CSP violation.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_WAIT_MS, browserAvailable, launchBrowser, signIn, startUiApp, type UiTestApp, chromiumInstalled } from '../helpers/browser.js';
import { eq } from 'drizzle-orm';
import { upsertClient } from '../../src/management/oauth/clients/queries.js';
import { oauthCodes } from '../../src/management/schema.js';
import { requires } from '../helpers/requires.js';

const REDIRECT = 'https://app.example.org/callback';
let t: UiTestApp;
let browser: Browser;
const clientId = `csp-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  if (!browserAvailable) return;
  t = await startUiApp();
  await upsertClient(t.app.db.db, {
    clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ'],
    authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [],
    accessTokenValidity: 900, refreshTokenValidity: 3600,
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A new page that records every CSP violation the browser reports. */
async function watchedPage(options: { javaScriptEnabled?: boolean } = {}): Promise<{ page: Page; violations: string[] }> {
  const page = await (await browser.newContext(options)).newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return { page, violations };
}

describe('the Content-Security-Policies in Chromium', requires(chromiumInstalled), () => {
  it('Swagger UI renders the document and its operations', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${t.origin}/swagger-ui/`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.info .title').textContent()).toContain('RADAR-base platform');
    expect(await page.locator('.opblock-tag').count()).toBeGreaterThan(0);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  it('the OAuth sign-in page gets its inline style (by hash)', async () => {
    const { page, violations } = await watchedPage();
    const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 's' });
    const res = await page.goto(`${t.base}/oauth/authorize?${query.toString()}`);
    expect(res?.status()).toBe(200);
    // layout.eta: body { background: #f4f5f7 }
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(244, 245, 247)');
    expect(violations).toEqual([]);
  });

  it('the OAuth consent page without JavaScript: untick a scope, Approve, and the code carries the ticked one only', async () => {
    const { page, violations } = await watchedPage({ javaScriptEnabled: false });
    const consentClient = `${clientId}-consent`;
    // A redirect URI on this server (a 404 page), so the browser lands on it: routes do not see redirects.
    const redirect = `${t.origin}/client-callback`;
    await upsertClient(t.app.db.db, {
      clientId: consentClient, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ', 'PROJECT.READ'],
      authorizedGrantTypes: ['authorization_code'], redirectUris: [redirect], autoApprove: [],
    });
    const query = new URLSearchParams({ client_id: consentClient, response_type: 'code', redirect_uri: redirect, state: 's' });
    await page.goto(`${t.base}/oauth/authorize?${query.toString()}`);
    await page.getByLabel('User name').fill('admin');
    await page.getByLabel('Password').fill('admin');
    await Promise.all([page.waitForURL((url) => url.pathname.endsWith('/oauth/login')), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.getByLabel('SUBJECT.READ').isChecked()).toBe(true);
    expect(await page.getByLabel('PROJECT.READ').isChecked()).toBe(true);
    await page.getByLabel('PROJECT.READ').uncheck();
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirect)), page.getByRole('button', { name: 'Approve' }).click()]);
    const code = new URL(page.url()).searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const codes = await t.app.db.db.select({ scope: oauthCodes.scope }).from(oauthCodes).where(eq(oauthCodes.clientId, consentClient));
    expect(codes).toEqual([{ scope: ['SUBJECT.READ'] }]);
    expect(violations).toEqual([]);
  });

  it('the admin UI loads its script, stylesheet and logo and signs in', async () => {
    const { page, violations } = await watchedPage();
    await page.goto(`${t.base}/login`);
    await signIn(page, t.base);
    await page.goto(`${t.base}/users`);
    const loaded = await page.evaluate(`({
      css: [...document.styleSheets].some((s) => s.href && s.href.endsWith('/content/ui.css') && s.cssRules.length > 0),
      logo: [...document.images].filter((i) => i.complete && i.naturalWidth > 0).length,
    })`) as { css: boolean; logo: number };
    expect(loaded.css).toBe(true);
    expect(loaded.logo).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });
});
