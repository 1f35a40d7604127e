/**
 * Every admin page, signed in as the admin with the dev demo data: it loads (200) without a
 * browser error, keeps the accessibility rules, weighs at most 150 KB of HTML, CSS and JS, and
 * leaves a screenshot in test-results/screenshots/ (CI keeps them). Page modules add their
 * paths to PAGES.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { accessibilityProblems, launchBrowser, pageWeight, screenshot, signIn, startUiApp, type UiTestApp, chromiumInstalled } from '../../helpers/browser.js';
import { requires } from '../../helpers/requires.js';

/** Signed-in pages: [screenshot name, path under the context path]. */
const PAGES: [string, string][] = [
  ['home', '/'],
  ['notifications', '/notifications'],
  ['notifications-project', '/notifications/radar'],
  ['notifications-user', '/notifications/radar/sub-1'],
  ['organizations', '/organizations'],
  ['organization', '/organizations/main'],
  ['source-types', '/source-types'],
  ['users', '/users'],
  ['user-new', '/users/new'],
  ['user-edit', '/users/admin/edit'],
  ['audits', '/audits'],
  ['oauth-clients', '/oauth-clients'],
  ['oauth-client-new', '/oauth-clients/new'],
  ['oauth-client-edit', '/oauth-clients/aRMT/edit'],
  ['account-settings', '/account/settings'],
  ['account-password', '/account/password'],
  ['account-approvals', '/account/approvals'],
  ['project', '/projects/radar'],
  ['project-groups', '/projects/radar/groups'],
  ['project-sources', '/projects/radar/sources'],
  ['project-admins', '/projects/radar/admins'],
  ['subject-new', '/projects/radar/subjects/new'],
  ['organization-new', '/organizations/new'],
  ['organization-edit', '/organizations/main/edit'],
  ['organization-delete', '/organizations/main/delete'],
  ['project-new', '/projects/new'],
  ['project-edit', '/projects/radar/edit'],
  ['project-delete', '/projects/radar/delete'],
  ['project-source-new', '/projects/radar/sources/new'],
  ['project-group-rename', '/projects/radar/groups/Test%20Group%20A/rename'],
  ['project-group-delete', '/projects/radar/groups/Test%20Group%20A/delete'],
  ['subject-sources', '/projects/radar/subjects/sub-1/sources'],
];
/** Pages anyone may open. */
const PUBLIC_PAGES: [string, string][] = [
  ['login', '/login'],
  ['reset-request', '/account/reset/request'],
  ['reset-finish', '/account/reset/finish?key=unknown'],
  ['activate', '/activate?key=unknown'],
];
const MAX_PAGE_BYTES = 150 * 1024;

let t: UiTestApp;
let browser: Browser;
let page: Page;
const errors: string[] = [];
let signedIn = false;

describe('every admin page', requires(chromiumInstalled), () => {
  beforeAll(async () => {
    t = await startUiApp({}, { demoData: true });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('response', (response) => { if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`); });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the accessibility check finds what breaks its rules', async () => {
    const scratch = await browser.newPage();
    await scratch.setContent('<html><body><main><h1>a</h1><h1>b</h1><img src="x.png"><input name="q"><button></button></main></body></html>');
    expect(await accessibilityProblems(scratch, { signedIn: true })).toEqual([
      '<html> without lang', 'no <nav>', '2 <h1> elements', '<img src=x.png> without alt', 'unnamed input q', 'unnamed button ',
    ]);
    await scratch.close();
  });

  it.each(PUBLIC_PAGES)('%s is accessible and light', async (name, path) => {
    errors.length = 0;
    const bytes = await pageWeight(page, `${t.base}${path}`);
    expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    expect(await accessibilityProblems(page, { signedIn: false })).toEqual([]);
    expect(errors).toEqual([]);
    await screenshot(page, `page-${name}`);
  });

  it.each(PAGES)('%s loads, is accessible and light', async (name, path) => {
    if (!signedIn) {
      await page.goto(`${t.base}/login`);
      await signIn(page, t.base);
      signedIn = true;
    }
    errors.length = 0;
    const bytes = await pageWeight(page, `${t.base}${path}`);
    expect(new URL(page.url()).pathname).toBe(new URL(`${t.base}${path}`).pathname);
    expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    expect(await accessibilityProblems(page, { signedIn: true })).toEqual([]);
    expect(errors).toEqual([]);
    await screenshot(page, `page-${name}`);
  });
});
