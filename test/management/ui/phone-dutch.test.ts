/**
 * Phones and Dutch (issue 31 items 12 and 13), in one Chromium at 390 × 844 with the `lang=nl`
 * cookie of the language switch, signed in as the admin with the dev demo data. It visits every
 * page the navbar and the project tabs reach (`<nav>` links, followed from the home page and each
 * project), and one page of each kind their lists link to (detail, edit, pairing…). On each:
 * - nothing scrolls sideways: the document is no wider than the viewport;
 * - no text of the English catalogue is left: no English value (or the literal part of one with
 *   parameters) longer than 3 characters whose Dutch text differs appears as words in the page's
 *   text, title, labels or button values (the navbar's folded menu included).
 * The OAuth sign-in and consent pages are checked the same way.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_WAIT_MS, chromiumInstalled, launchBrowser, screenshot, startUiApp, type UiTestApp } from '../../helpers/browser.js';
import { requires } from '../../helpers/requires.js';
import { en } from '../../../src/management/i18n/messages/en.js';
import { nl } from '../../../src/management/i18n/messages/nl.js';
import { upsertClient } from '../../../src/management/oauth/clients/queries.js';

const PHONE = { width: 390, height: 844 };
/** Words of a path kept as they are when grouping pages by kind; any other segment below the first is an entity's name. */
const ACTION_SEGMENTS = /^(new|edit|delete|pair|discontinue|groups|sources|admins|subjects|settings|password|approvals|history|revisions|source-data|users|members|roles)$/;
const MAX_PAGES = 80;
const REDIRECT = 'https://app.example.org/callback';
/**
 * Names in the demo data (not of the catalogue) that contain an English word of it: the groups
 * "Test Group A/B" and the source "source-1", also inside a page's own texts ("Rename Test Group A"),
 * and the audit trail's entity types (`source`, `subject`…: identifiers, as the API names them).
 */
const DATA_NAMES = /Test Group [AB]|\bsource-\d+\b|^(?:source|subject|project|user|group|role|organization)$/g;

/** English texts to look for: each value (split around its `{parameters}`) whose Dutch text differs. */
const ENGLISH: { key: string; text: string; pattern: RegExp }[] = Object.entries(en).flatMap(([key, value]) => {
  const dutch = (nl as Record<string, string>)[key];
  if (dutch === value) return [];
  return value.split(/\{\w+\}/).map((part) => part.trim().replace(/^[.:,;·()–—-]+|[.:,;·()–—-]+$/g, '').trim())
    .filter((part) => part.length > 3 && /\p{L}{2}/u.test(part) && !(dutch ?? '').includes(part))
    .map((text) => ({ key, text, pattern: new RegExp(`(^|[^\\p{L}])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u') }));
});

let t: UiTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** Every piece of text a reader meets on the page: text nodes (hidden menu too), title, labels, alt texts, button values. */
async function pageTexts(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    interface N { nodeValue: string | null; parentElement: { tagName: string } | null }
    interface E { getAttribute(name: string): string | null; value?: string }
    const doc = (globalThis as unknown as {
      document: {
        title: string; body: unknown;
        createTreeWalker(root: unknown, what: number): { nextNode(): N | null };
        querySelectorAll(selector: string): Iterable<E>;
      };
    }).document;
    const texts = [doc.title];
    const walker = doc.createTreeWalker(doc.body, 4);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const tag = node.parentElement?.tagName;
      if (tag !== 'SCRIPT' && tag !== 'STYLE' && node.nodeValue?.trim()) texts.push(node.nodeValue.trim());
    }
    for (const el of doc.querySelectorAll('[aria-label], [alt], [placeholder], [title], input[type=submit], input[type=button]')) {
      for (const attribute of ['aria-label', 'alt', 'placeholder', 'title']) { const v = el.getAttribute(attribute); if (v) texts.push(v); }
      if (el.value && /submit|button/.test(el.getAttribute('type') ?? '')) texts.push(el.value);
    }
    return texts;
  });
}

/** What of `texts` is English catalogue text: `key: "text"` in …. */
function englishIn(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    const own = text.replace(DATA_NAMES, ' ');
    for (const english of ENGLISH) if (english.pattern.test(own)) found.add(`${english.key}: "${english.text}" in "${text.slice(0, 80)}"`);
  }
  return [...found];
}

interface Problem { url: string; problem: string }

/** How wide the document is beyond the viewport (0 when it fits), and what sticks out. */
async function overflow(p: Page): Promise<{ excess: number; culprits: string[] }> {
  return p.evaluate(() => {
    interface El { tagName: string; id: string; className: string; getBoundingClientRect(): { right: number }; children: Iterable<El> }
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number }; body: El } }).document;
    const width = doc.documentElement.clientWidth;
    const culprits: string[] = [];
    const walk = (el: El, depth: number) => {
      for (const child of el.children) {
        if (child.getBoundingClientRect().right > width + 0.5) {
          culprits.push(`${'  '.repeat(depth)}${child.tagName.toLowerCase()}${child.id ? `#${child.id}` : ''}${child.className ? `.${String(child.className).split(' ').join('.')}` : ''}`);
          if (culprits.length < 12) walk(child, depth + 1);
        }
      }
    };
    walk(doc.body, 0);
    return { excess: Math.max(0, doc.documentElement.scrollWidth - width), culprits };
  });
}

/** Controls of the page's content smaller than a thumb: links, buttons and fields under 40 px high, boxes under 22 px. */
async function smallTargets(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    interface El { tagName: string; type?: string; textContent: string | null; getAttribute(name: string): string | null; getBoundingClientRect(): { width: number; height: number } }
    const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): Iterable<El> } }).document;
    const small: string[] = [];
    for (const el of doc.querySelectorAll('main a[href], main button, main input:not([type=hidden]), main select, main textarea')) {
      const { width, height } = el.getBoundingClientRect();
      if (width === 0 && height === 0) continue;
      const box = el.type === 'checkbox' || el.type === 'radio';
      if (height < (box ? 22 : 40)) small.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? el.getAttribute('name') ?? '').trim().slice(0, 30)}" ${Math.round(height)}px`);
    }
    return small;
  });
}

/** A page's kind: its path with entity names replaced, so each list's detail or edit page is visited once. */
function kindOf(url: URL, basePath: string): string {
  const rest = url.pathname.slice(basePath.length).split('/').filter(Boolean);
  return rest.map((segment, i) => (i === 0 || ACTION_SEGMENTS.test(segment) ? segment : '*')).join('/');
}

describe('at 390 px wide and in Dutch', requires(chromiumInstalled), () => {
  const visited: string[] = [];
  const problems: Problem[] = [];

  beforeAll(async () => {
    t = await startUiApp({}, { demoData: true });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: PHONE, locale: 'nl-NL' });
    page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function check(url: string, name: string): Promise<void> {
    const { excess, culprits } = await overflow(page);
    if (excess > 0) {
      problems.push({ url, problem: `scrolls sideways by ${excess}px: ${culprits.join(' | ')}` });
      await screenshot(page, `phone-${name}`);
    }
    if ((await page.getAttribute('html', 'lang')) !== 'nl') problems.push({ url, problem: 'not in Dutch (<html lang>)' });
    for (const english of englishIn(await pageTexts(page))) problems.push({ url, problem: `English left: ${english}` });
    // The subject page and the pairing page are used one-handed, on a phone beside the participant.
    if (/\/subjects\/(?!new$)[^/]+(\/pair)?$/.test(new URL(url).pathname)) {
      for (const target of await smallTargets(page)) problems.push({ url, problem: `too small to tap: ${target}` });
    }
  }

  it('the checks can fail: a wide page and an English text are found', async () => {
    const scratch = await context.newPage();
    await scratch.setContent(`<html lang="nl"><body><main><p>${en['nav.signOut']}</p><div style="width:600px">x</div></main></body></html>`);
    expect((await overflow(scratch)).excess).toBeGreaterThan(0);
    expect(englishIn(await pageTexts(scratch))).toEqual([expect.stringContaining('nav.signOut')]);
    await scratch.close();
  });

  it('every page of the navbar and the project tabs (and one of each kind they list) fits and is Dutch', async () => {
    // The browser asks for Dutch (locale nl-NL), so the sign-in page is Dutch already.
    await page.goto(`${t.base}/login`);
    await page.getByLabel('Gebruikersnaam').fill('admin');
    await page.getByLabel('Wachtwoord').fill('admin');
    await Promise.all([page.waitForURL((u) => !u.pathname.endsWith('/login')), page.getByRole('button', { name: 'Aanmelden' }).click()]);
    const basePath = new URL(t.base).pathname;
    // The language switch itself, from the navbar: sets the cookie and comes back.
    await page.goto(`${t.base}/`);
    await page.getByRole('link', { name: 'Nederlands' }).click();
    await page.waitForURL(`${t.base}/`);
    expect(await page.getAttribute('html', 'lang')).toBe('nl');
    expect((await context.cookies()).find((c) => c.name === 'lang')).toMatchObject({ value: 'nl', path: `${basePath}/`, sameSite: 'Lax' });

    const kinds = new Set<string>(['']);
    const queue: { url: string; hops: number }[] = [{ url: `${t.base}/`, hops: 0 }];
    while (queue.length > 0 && visited.length < MAX_PAGES) {
      const { url, hops } = queue.shift()!;
      const response = await page.goto(url);
      if (!response || !/text\/html/.test(response.headers()['content-type'] ?? '')) continue;
      visited.push(url);
      expect.soft(response.status(), url).toBeLessThan(400);
      await check(url, kindOf(new URL(url), basePath).replace(/\W+/g, '-') || 'home');
      // Links onward: every <nav> link (navbar, project tabs), and content links (the home page's
      // projects, a list's rows and actions) up to two steps from a page a nav link reached.
      const links = await page.$$eval('a[href]:not([download])', (anchors) => anchors.map((a) => ({
        href: (a as unknown as { href: string }).href,
        inNav: (a as unknown as { closest(s: string): unknown }).closest('nav') !== null,
      })));
      for (const link of links) {
        const next = link.inNav ? 0 : hops + 1;
        if (next > 2) continue;
        const target = new URL(link.href);
        if (target.origin !== new URL(t.base).origin || !target.pathname.startsWith(`${basePath}/`)) continue;
        if (/\/(language|logout|content)(\/|$)|export|\.csv$/.test(target.pathname)) continue;
        target.hash = '';
        const kind = kindOf(target, basePath);
        if (kinds.has(kind)) continue;
        kinds.add(kind);
        queue.push({ url: target.toString(), hops: next });
      }
    }
    // The pages the issue names must be among them.
    const paths = visited.map((url) => new URL(url).pathname.slice(basePath.length));
    for (const expected of ['/', '/organizations', '/source-types', '/users', '/oauth-clients', '/audits', '/notifications', '/account/settings', '/projects/radar', '/projects/radar/groups', '/projects/radar/sources', '/projects/radar/admins']) {
      expect(paths, `visited ${expected}`).toContain(expected);
    }
    expect(paths.some((p) => /\/subjects\/[^/]+\/pair$/.test(p)), `a pairing page among ${paths.join(' ')}`).toBe(true);
    expect(paths.length, paths.join(' ')).toBeGreaterThanOrEqual(25);
    expect(problems).toEqual([]);
  });

  it('the menu folds behind "Menu" and opens without JavaScript', async () => {
    const noJs = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    await noJs.addCookies([{ name: 'lang', value: 'nl', url: `${t.base}/` }]);
    const p = await noJs.newPage();
    await p.goto(`${t.base}/login`);
    await p.getByLabel('Gebruikersnaam').fill('admin');
    await p.getByLabel('Wachtwoord').fill('admin');
    await Promise.all([p.waitForURL((u) => !u.pathname.endsWith('/login')), p.getByRole('button', { name: 'Aanmelden' }).click()]);
    const organizations = p.getByRole('navigation', { name: 'Hoofdmenu' }).getByRole('link', { name: 'Organisaties' });
    await expect.poll(() => organizations.isVisible()).toBe(false);
    await p.getByText('Menu', { exact: true }).click();
    await expect.poll(() => organizations.isVisible()).toBe(true);
    const box = await organizations.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(40);
    await noJs.close();
  });

  it('the OAuth sign-in and consent pages fit and are Dutch', async () => {
    const clientId = `phone-${randomBytes(4).toString('hex')}`;
    await upsertClient(t.app.db.db, {
      clientId, resourceIds: ['res_ManagementPortal'], clientSecret: null, scope: ['SUBJECT.READ', 'MEASUREMENT.CREATE'],
      authorizedGrantTypes: ['authorization_code'], redirectUris: [REDIRECT], autoApprove: [], accessTokenValidity: 900, refreshTokenValidity: 3600,
    });
    const fresh = await browser.newContext({ viewport: PHONE });
    await fresh.addCookies([{ name: 'lang', value: 'nl', url: `${t.base}/` }]);
    const before = page;
    page = await fresh.newPage();
    try {
      const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, state: 's' });
      const url = `${t.base}/oauth/authorize?${query.toString()}`;
      await page.goto(url);
      await check(url, 'oauth-sign-in');
      await page.getByLabel('Gebruikersnaam').fill('admin');
      await page.getByLabel('Wachtwoord').fill('wrong');
      await page.getByRole('button', { name: 'Aanmelden' }).click();
      await page.getByRole('alert').waitFor();
      await check(`${url} (wrong password)`, 'oauth-sign-in-failed');
      await page.getByLabel('Wachtwoord').fill('admin');
      await page.getByRole('button', { name: 'Aanmelden' }).click();
      await page.getByRole('button', { name: 'Toestaan' }).waitFor();
      await check(`${url} (consent)`, 'oauth-consent');
      expect(problems).toEqual([]);
    } finally {
      page = before;
      await fresh.close();
    }
  });
});
