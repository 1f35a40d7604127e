/**
 * Headless Chromium for the admin UI's browser tests (playwright-core driving Debian's
 * `/usr/bin/chromium`; `.ci/run` installs it). Selectors go by role and label only. Every test
 * keeps screenshots in `test-results/screenshots/` (CI artifacts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildTestApp, type TestApp } from './build-test-app.js';
import type { BuildOptions } from '../../src/app.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without Chromium the browser tests are skipped locally; CI (CI=true) installs it, so there they fail instead. */
export const browserAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

/** JavaScript-disabled runs: `browser.newContext({ javaScriptEnabled: false })`. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A full-page screenshot named after the test database and the page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${process.env.TEST_DB ?? 'pglite'}-${name}.png`), fullPage: true });
}

export interface UiTestApp extends TestApp {
  /** `http://127.0.0.1:<port>/managementportal` */
  base: string;
  origin: string;
}

/** The real app listening on a free loopback port (the browser needs a socket). */
export async function startUiApp(env: Record<string, string> = {}, options: BuildOptions = {}): Promise<UiTestApp> {
  const testApp = await buildTestApp(env, options);
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const address = testApp.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return { ...testApp, origin, base: `${origin}${testApp.config.managementportalContextPath}` };
}

/** Signs in at `/login` as a user would and waits for the page it lands on. */
export async function signIn(page: Page, base: string, username = 'admin', password = 'admin'): Promise<void> {
  if (!page.url().includes('/login')) await page.goto(`${base}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL((url) => !url.pathname.endsWith('/login')), page.getByRole('button', { name: 'Sign in' }).click()]);
}
