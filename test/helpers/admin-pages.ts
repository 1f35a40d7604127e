/**
 * What the admin UI's page tests share: the app listening on loopback, Chromium, the API client
 * with the admin's token, and pages signed in as a given user (each in a context of its own, so
 * cookies never mix). Pages fail fast (5 s) instead of waiting for the test's timeout.
 */
import type { Browser, Page } from 'playwright-core';
import { BROWSER_WAIT_MS, launchBrowser, signIn, startUiApp, type UiTestApp } from './browser.js';
import { managementClient } from './management-api.js';

export interface AdminPages {
  t: UiTestApp;
  browser: Browser;
  api: ReturnType<typeof managementClient>;
  /** An access token of `admin`. */
  adminToken: string;
  /** A new page of a fresh browser context, not signed in. */
  newPage(): Promise<Page>;
  /** A new page signed in as `login` (the admin by default). */
  signedIn(login?: string, password?: string): Promise<Page>;
  close(): Promise<void>;
}

export async function startAdminPages(env: Record<string, string> = {}): Promise<AdminPages> {
  const t = await startUiApp(env);
  const api = managementClient(t.app);
  const adminToken = await api.tokenOf('admin', 'admin');
  const browser = await launchBrowser();
  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    return page;
  }
  return {
    t, browser, api, adminToken, newPage,
    async signedIn(login = 'admin', password = 'admin') {
      const page = await newPage();
      await page.goto(`${t.base}/login`);
      await signIn(page, t.base, login, password);
      return page;
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
