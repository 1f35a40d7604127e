/**
 * The project page in a browser (issue 19 items 11–12): subjects created, edited, discontinued
 * and deleted as the API then shows them; "Pair app" whose QR code, read from a screenshot,
 * is a meta-token URL that reads once; keyset "Load more" without repeats; filters kept in the
 * URL; another project's page refused to a project admin; and the same with JavaScript off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshot, signIn, startUiApp, type UiTestApp, chromiumInstalled } from '../../helpers/browser.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { aProjectIn, aSubjectIn, mainOrganization } from '../../fixtures/management.js';
import { requires } from '../../helpers/requires.js';

// jsqr is CommonJS: under NodeNext its default import is the module, whose `default` is the function.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ?? jsQRModule) as typeof jsQRModule.default;

let t: UiTestApp;
let browser: Browser;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let context: BrowserContext;
let page: Page;
const GROUP = unique('cohort');

beforeAll(async () => {
  if (!browserAvailable) return;
  t = await startUiApp({ MANAGEMENTPORTAL_META_TOKEN_READS_PER_MINUTE: '1000000' }, { demoData: true });
  browser = await launchBrowser();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const group = await mc.call('POST', '/api/projects/radar/groups', { bearer: admin, body: { name: GROUP } });
  expect(group.status).toBe(201);
  context = await browser.newContext();
  page = await context.newPage();
  await signIn(page, t.base);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The subjects of `radar` as the API lists them to the admin, by external id. */
async function apiSubject(externalId: string): Promise<Json> {
  const res = await mc.call('GET', `/api/projects/radar/subjects?externalId=${encodeURIComponent(externalId)}`, { bearer: admin });
  expect(res.status).toBe(200);
  return (res.body as Json[]).find((s) => s.externalId === externalId);
}

const rowOf = (p: Page, text: string): Locator => p.getByRole('row').filter({ has: p.getByRole('cell', { name: text, exact: true }) });

async function createSubject(p: Page, values: { externalId: string; personName: string; dateOfBirth?: string; group?: string; attributes?: string }) {
  await p.goto(`${t.base}/projects/radar`);
  await p.getByRole('link', { name: 'Create subject' }).click();
  const form = p.getByRole('form', { name: 'Create subject' });
  await form.getByLabel('External ID').fill(values.externalId);
  await form.getByLabel('Person name').fill(values.personName);
  if (values.dateOfBirth) await form.getByLabel('Date of birth').fill(values.dateOfBirth);
  if (values.group) await form.getByLabel('Group').selectOption({ label: values.group });
  if (values.attributes) await form.getByLabel('Attributes').fill(values.attributes);
  await form.getByRole('button', { name: 'Save' }).click();
}

/** The QR code in `image`, decoded from a screenshot of the element. */
async function decodeQr(image: Locator): Promise<string> {
  const png = PNG.sync.read(await image.screenshot());
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  expect(code).not.toBeNull();
  return code!.data;
}

/** The app's read of a meta-token URL (no authentication). */
async function readToken(tokenUrl: string) {
  const path = new URL(tokenUrl).pathname;
  const res = await t.app.inject({ method: 'GET', url: path });
  return { status: res.statusCode, body: res.json() as Json };
}

/** Pairs from the subject's row: picks aRMT and generates the code; its URL as the QR code holds it. */
async function pair(p: Page, externalId: string, name: string): Promise<string> {
  await p.goto(`${t.base}/projects/radar?externalId=${encodeURIComponent(externalId)}`);
  await rowOf(p, externalId).getByRole('link', { name: 'Pair app' }).click();
  await p.getByLabel('OAuth client').selectOption('aRMT');
  await expect.poll(() => p.getByLabel('Persistent token').isChecked()).toBe(false);
  await p.getByRole('button', { name: 'Generate QR code' }).click();
  const image = p.getByRole('img', { name: /QR/ });
  await image.waitFor();
  const box = await image.boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(256);
  await screenshot(p, name);
  const decoded = await decodeQr(image);
  // The page shows the token's name, expiry and URL as text.
  await expect.poll(() => p.getByRole('main').textContent()).toContain(decoded);
  const tokenName = decoded.split('/').pop()!;
  expect(await p.getByRole('main').textContent()).toContain(tokenName);
  expect(await p.locator('main time[datetime]').count()).toBe(1);
  return decoded;
}

describe('project page', requires(chromiumInstalled), () => {
  it('shows the tabs and lists subjects with their login, external id and status; each tab has a screenshot', async () => {
    const res = await page.goto(`${t.base}/projects/radar`);
    expect(res!.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('radar');
    const tabs = page.getByRole('navigation', { name: 'Project sections' });
    expect(await tabs.getByRole('link', { name: 'Subjects' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('search').count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^\d+ of \d+$/);
    await screenshot(page, 'project-subjects');
    for (const [tab, name] of [['Groups', 'project-groups'], ['Sources', 'project-sources'], ['Admins', 'project-admins']] as const) {
      await tabs.getByRole('link', { name: tab }).click();
      expect(await tabs.getByRole('link', { name: tab }).getAttribute('aria-current')).toBe('page');
      await screenshot(page, name);
    }
    await tabs.getByRole('link', { name: 'Groups' }).click();
    expect(await page.getByRole('cell', { name: GROUP, exact: true }).count()).toBe(1);
  });

  it('creates a subject that the API then returns, and refuses a taken external id keeping what was typed', async () => {
    const externalId = unique('ext');
    await createSubject(page, { externalId, personName: 'Ada Lovelace', dateOfBirth: '1990-12-10', group: GROUP, attributes: 'site=London\nwave = 2' });
    await page.waitForURL(/\/projects\/radar\?created=/);
    expect(await page.getByRole('status').first().textContent()).toMatch(/^Subject .+ created\.$/);
    const stored = await apiSubject(externalId);
    expect(stored).toMatchObject({
      externalId, personName: 'Ada Lovelace', dateOfBirth: '1990-12-10', group: GROUP, status: 'ACTIVATED', attributes: { site: 'London', wave: '2' },
    });
    expect(stored.enrollmentDate).toEqual(expect.any(String));
    await screenshot(page, 'project-subject-created');

    await createSubject(page, { externalId, personName: 'Someone else' });
    const form = page.getByRole('form', { name: 'Create subject' });
    expect(await page.getByRole('alert').textContent()).toContain('already exists');
    expect(await form.getByLabel('Person name').inputValue()).toBe('Someone else');
    await screenshot(page, 'project-subject-create-refused');
    const res = await mc.call('GET', `/api/projects/radar/subjects?externalId=${externalId}`, { bearer: admin });
    expect((res.body as Json[]).filter((s) => s.externalId === externalId)).toHaveLength(1);
  });

  it('edits a subject in the form "Edit subject"; what the form does not show is kept', async () => {
    const externalId = unique('ext');
    await createSubject(page, { externalId, personName: 'Grace', attributes: 'site=Paris' });
    const before = await apiSubject(externalId);
    await page.goto(`${t.base}/projects/radar?externalId=${externalId}`);
    await rowOf(page, externalId).getByRole('link', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit subject' });
    expect(await form.getByLabel('Person name').inputValue()).toBe('Grace');
    await screenshot(page, 'project-subject-edit');
    await form.getByLabel('Person name').fill('Grace Hopper');
    await form.getByLabel('Attributes').fill('site=Paris\nphone=android');
    await form.getByLabel('Group').selectOption({ label: GROUP });
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/updated=/);
    const after = await apiSubject(externalId);
    expect(after).toMatchObject({ login: before.login, personName: 'Grace Hopper', group: GROUP, attributes: { site: 'Paris', phone: 'android' }, status: 'ACTIVATED' });
    expect(after.enrollmentDate).toBe(before.enrollmentDate);

    // A date that is no day: the form again with an alert (400), nothing saved.
    await page.goto(`${t.base}/projects/radar/subjects/${before.login}/edit`);
    const edit = page.getByRole('form', { name: 'Edit subject' });
    await edit.getByLabel('Attributes').fill('no equals sign');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), edit.getByRole('button', { name: 'Save' }).click()]);
    expect(response.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('key=value');
    expect((await apiSubject(externalId)).attributes).toEqual({ site: 'Paris', phone: 'android' });
  });

  it('pairs an app: the QR code is a token URL that reads once; generating again deletes the previous token; prints code and text only', async () => {
    const externalId = unique('ext');
    await createSubject(page, { externalId, personName: 'Pat' });
    const login = (await apiSubject(externalId)).login as string;
    const first = await pair(page, externalId, 'project-pair-app');
    expect(first).toMatch(/\/api\/meta-token\/[A-Za-z0-9.-]{8}$/);

    // Again on the same page: a new token; the first one is gone.
    await page.getByRole('button', { name: 'Generate QR code' }).click();
    await page.waitForLoadState();
    const second = await decodeQr(page.getByRole('img', { name: /QR/ }));
    expect(second).not.toBe(first);
    expect((await readToken(first)).status).toBe(404);

    const read = await readToken(second);
    expect(read.status).toBe(200);
    expect(read.body.refreshToken).toEqual(expect.any(String));
    expect((await readToken(second)).status).toBe(410);
    const audits = await mc.call('GET', '/management/audits?size=2000', { bearer: admin });
    expect((audits.body as Json[]).filter((a) => a.type === 'PAIR_CLIENT_REQUEST' && a.data.subject_login === login)).toHaveLength(2);

    // "Print": the print stylesheet shows the code and its text, no navigation or form.
    const print = page.getByRole('button', { name: 'Print' });
    expect(await print.isVisible()).toBe(true);
    // The script shows the expiry in the browser's locale; the UTC text stays in its title.
    expect(await page.locator('main time').getAttribute('title')).toMatch(/ UTC$/);
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('img', { name: /QR/ }).isVisible()).toBe(true);
    expect(await page.getByText(second).isVisible()).toBe(true);
    expect(await page.locator('nav').first().isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Generate QR code' }).isVisible()).toBe(false);
    await screenshot(page, 'project-pair-print');
    await page.emulateMedia({ media: 'screen' });
  });

  it('discontinues a subject, which stays listed as discontinued; deletes another, which the API no longer has', async () => {
    const externalId = unique('ext');
    await createSubject(page, { externalId, personName: 'Dis' });
    await page.goto(`${t.base}/projects/radar?externalId=${externalId}`);
    await rowOf(page, externalId).getByRole('link', { name: 'Discontinue' }).click();
    await screenshot(page, 'project-subject-discontinue');
    await page.getByRole('button', { name: 'Discontinue' }).click();
    await page.waitForURL(/discontinued=/);
    expect((await apiSubject(externalId)).status).toBe('DISCONTINUED');
    await page.goto(`${t.base}/projects/radar?externalId=${externalId}`);
    expect(await rowOf(page, externalId).getByRole('cell', { name: 'Discontinued' }).count()).toBe(1);

    await rowOf(page, externalId).getByRole('link', { name: 'Delete' }).click();
    await screenshot(page, 'project-subject-delete');
    const login = (await apiSubject(externalId)).login as string;
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/deleted=/);
    expect((await mc.call('GET', `/api/subjects/${login}`, { bearer: admin })).status).toBe(404);
    expect(await apiSubject(externalId)).toBeUndefined();
    expect(await rowOf(page, externalId).count()).toBe(0);
  });

  it('"Load more" adds the next 20 until all are shown, without repeats; without JavaScript its link pages through the same rows', async () => {
    const db = t.app.db.db;
    const project = await aProjectIn(db, await mainOrganization(db));
    const logins = new Set<string>();
    for (let i = 0; i < 45; i++) logins.add((await aSubjectIn(db, project.id)).login);
    const url = `${t.base}/projects/${project.projectName}`;
    const firstCells = () => page.locator('#subjects tbody tr td:first-child').allTextContents();

    await page.goto(url);
    expect(await page.locator('#subjects-count').textContent()).toBe('20 of 45');
    await page.getByRole('link', { name: 'Load more' }).click();
    await expect.poll(() => page.locator('#subjects-count').textContent()).toBe('40 of 45');
    await page.getByRole('link', { name: 'Load more' }).click();
    await expect.poll(() => page.locator('#subjects-count').textContent()).toBe('45 of 45');
    expect(await page.getByRole('link', { name: 'Load more' }).count()).toBe(0);
    const shown = await firstCells();
    expect(shown).toHaveLength(45);
    expect(new Set(shown)).toEqual(logins);
    await screenshot(page, 'project-load-more');

    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noJs.newPage();
    await signIn(plain, t.base);
    await plain.goto(`${url}?sort=login,desc`);
    const seen: string[] = [];
    for (;;) {
      seen.push(...await plain.locator('#subjects tbody tr td:first-child').allTextContents());
      const more = plain.getByRole('link', { name: 'Load more' });
      if (await more.count() === 0) break;
      await more.click();
    }
    expect(seen).toEqual([...logins].sort().reverse());
    expect(await plain.locator('#subjects-count').textContent()).toBe('45 of 45');
    await noJs.close();
  });

  it('keeps the filters in the URL and in the form, and "Load more" keeps them', async () => {
    const tag = unique('flt');
    for (let i = 0; i < 22; i++) {
      const res = await mc.call('POST', '/api/subjects', { bearer: admin, body: { project: { id: 1, projectName: 'radar' }, externalId: `${tag}-${String(i).padStart(2, '0')}`, personName: 'Filter Person' } });
      expect(res.status).toBe(201);
    }
    await page.goto(`${t.base}/projects/radar`);
    const search = page.getByRole('search');
    await search.getByLabel('External ID').fill(tag);
    await search.getByLabel('Sort by').selectOption({ label: 'External ID (Z–A)' });
    await search.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/externalId=/);
    const url = new URL(page.url());
    expect(url.searchParams.get('externalId')).toBe(tag);
    expect(url.searchParams.get('sort')).toBe('externalId,desc');
    await page.reload();
    expect(await page.getByRole('search').getByLabel('External ID').inputValue()).toBe(tag);
    expect(await page.locator('#subjects-count').textContent()).toBe('20 of 22');
    const ids = await page.locator('#subjects tbody tr td:nth-child(2)').allTextContents();
    expect(ids[0]).toBe(`${tag}-21`);
    const more = new URL((await page.getByRole('link', { name: 'Load more' }).getAttribute('href'))!, t.origin);
    expect(more.searchParams.get('externalId')).toBe(tag);
    expect(more.searchParams.get('sort')).toBe('externalId,desc');
    await page.getByRole('link', { name: 'Load more' }).click();
    await expect.poll(() => page.locator('#subjects-count').textContent()).toBe('22 of 22');
    const all = await page.locator('#subjects tbody tr td:nth-child(2)').allTextContents();
    expect(all).toEqual(Array.from({ length: 22 }, (_, i) => `${tag}-${String(21 - i).padStart(2, '0')}`));
    await screenshot(page, 'project-filtered');
  });

  it('refuses a project admin another project\'s pages (403 page), shows its own', async () => {
    const db = t.app.db.db;
    const own = await aProjectIn(db, await mainOrganization(db));
    const user = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: own.projectName });
    const other = await browser.newContext();
    const p = await other.newPage();
    await signIn(p, t.base, user.login, 'Passw0rd');
    expect((await p.goto(`${t.base}/projects/${own.projectName}`))!.status()).toBe(200);
    for (const path of ['', '/groups', '/sources', '/admins', '/subjects/new']) {
      const res = await p.goto(`${t.base}/projects/radar${path}`);
      expect(res!.status()).toBe(403);
      expect(await p.getByRole('alert').textContent()).toContain('permission');
    }
    await screenshot(p, 'project-denied');
    await other.close();
  });

  it('works with JavaScript off: sign in, create a subject, pair an app', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const p = await noJs.newPage();
    await signIn(p, t.base);
    const externalId = unique('nojs');
    await createSubject(p, { externalId, personName: 'No Script', group: GROUP });
    await p.waitForURL(/created=/);
    expect(await apiSubject(externalId)).toMatchObject({ personName: 'No Script', group: GROUP });
    const tokenUrl = await pair(p, externalId, 'project-pair-app-nojs');
    // Printing needs the script: without it there is no "Print" button, and times stay in UTC.
    expect(await p.getByRole('button', { name: 'Print' }).count()).toBe(0);
    expect(await p.locator('main time').textContent()).toMatch(/ UTC$/);
    expect((await readToken(tokenUrl)).status).toBe(200);
    expect((await readToken(tokenUrl)).status).toBe(410);
    await noJs.close();
  });
});
