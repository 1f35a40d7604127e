/**
 * Headless Chromium for the admin UI's browser tests (playwright-core driving Debian's
 * `/usr/bin/chromium`; `.ci/run` installs it). Selectors go by role and label only. Every test
 * keeps screenshots in `test-results/screenshots/` (CI artifacts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildTestApp, type TestApp } from './build-test-app.js';
import type { Need } from './requires.js';
import type { BuildOptions } from '../../src/app.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without Chromium the browser tests are skipped locally; CI (CI=true) installs it, so there they fail instead. */
export const browserAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';
export const chromiumInstalled: Need = [browserAvailable, `no Chromium at ${CHROMIUM} (apt-get install chromium)`];
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
/**
 * How long a page may take to show what a test waits for. Every wait ends on its event; the
 * budget only bounds a failure: Swagger UI took 29 s to render at load 12 on 2 cores.
 */
export const BROWSER_WAIT_MS = 60_000;

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

/**
 * The accessibility rules every admin page keeps (issue 19 item 7): `<html lang>`, `<nav>` (when
 * signed in) and `<main>`, one `<h1>`, every `<img>` with `alt`, every control named by a label,
 * `aria-label(ledby)` or its text. Returns what breaks them (empty when none).
 */
export async function accessibilityProblems(page: Page, opts: { signedIn: boolean }): Promise<string[]> {
  return page.evaluate((signedIn) => {
    // Runs in the page; the test project has no DOM types, so the little it uses is typed here.
    interface El {
      tagName: string; name?: string; id?: string; type?: string; value?: string; textContent: string | null;
      labels?: { length: number } | null; getAttribute(name: string): string | null; hasAttribute(name: string): boolean;
    }
    const document = (globalThis as unknown as { document: { documentElement: { lang: string }; querySelectorAll(selector: string): Iterable<El> & { length: number } } }).document;
    const problems: string[] = [];
    if (!document.documentElement.lang) problems.push('<html> without lang');
    if (document.querySelectorAll('main').length !== 1) problems.push('not exactly one <main>');
    if (signedIn && document.querySelectorAll('nav').length === 0) problems.push('no <nav>');
    const h1 = document.querySelectorAll('h1').length;
    if (h1 !== 1) problems.push(`${h1} <h1> elements`);
    for (const img of document.querySelectorAll('img')) if (!img.hasAttribute('alt')) problems.push(`<img src=${img.getAttribute('src')}> without alt`);
    const controls = document.querySelectorAll('input:not([type=hidden]), select, textarea, button');
    for (const el of controls) {
      const named = (el.labels?.length ?? 0) > 0 || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
        || (el.tagName === 'BUTTON' && el.textContent?.trim()) || (el.type === 'submit' && el.value);
      if (!named) problems.push(`unnamed ${el.tagName.toLowerCase()} ${el.name || el.id || ''}`);
    }
    return problems;
  }, opts.signedIn);
}

/** Bytes of HTML, CSS and JS a page load transferred (issue 19: at most 150 KB a page). */
export async function pageWeight(page: Page, url: string): Promise<number> {
  let bytes = 0;
  const count = async (response: import('playwright-core').Response) => {
    const type = response.headers()['content-type'] ?? '';
    if (/text\/html|text\/css|javascript/.test(type)) bytes += (await response.body().catch(() => Buffer.alloc(0))).length;
  };
  const pending: Promise<void>[] = [];
  const listener = (response: import('playwright-core').Response) => { pending.push(count(response)); };
  page.on('response', listener);
  await page.goto(url, { waitUntil: 'load' });
  page.off('response', listener);
  await Promise.all(pending);
  return bytes;
}
