/**
 * The lists coordinators use (issue 31 item 7): the subject list shows each subject's sources
 * (name and source type) and its status as a badge whose text names it and whose colour repeats
 * it; a project's admins tab has "Remove" on each role row, a form post that takes the role away
 * through the users service (the API's role change: its checks, revision and audit event) and
 * lands back on the tab naming who lost which role. Over HTTP (no script): the API's refusals are
 * alerts on the tab with nothing changed, and a project admin of another project gets 403. In
 * Chromium: the badges' colours and a removal with JavaScript off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, like } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, chromiumInstalled, launchBrowser, screenshot, signIn, startUiApp, type UiTestApp } from '../../helpers/browser.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { requires } from '../../helpers/requires.js';
import { csrfOf, uiClient } from '../../helpers/ui-client.js';
import { auditEvents } from '../../../src/management/schema.js';

let t: UiTestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let radar: { id: number; projectName: string };
let sourceType: Json;
const path = '/managementportal/projects/radar';

beforeAll(async () => {
  t = await startUiApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const project = (await mc.call('GET', '/api/projects/radar', { bearer: admin })).body as Json;
  radar = { id: project.id, projectName: 'radar' };
  const types = (await mc.call('GET', '/api/projects/radar/source-types', { bearer: admin })).body as Json[];
  sourceType = types[0];
  expect(sourceType).toBeDefined();
}, 120_000);
afterAll(async () => { await t?.close(); });

const api = async (to: string) => mc.call('GET', to, { bearer: admin });
const typeLabel = (type: Json) => `${type.producer} ${type.model} ${type.catalogVersion}`;

/** A new subject of radar with `status`, holding the new sources named `sources`. */
async function subjectWith(status: string, sources: string[] = []): Promise<string> {
  const ids: string[] = [];
  for (const sourceName of sources) {
    const res = await mc.call('POST', '/api/sources', { bearer: admin, body: { sourceName, assigned: false, sourceType: { id: sourceType.id }, project: { id: radar.id } } });
    expect(res.status).toBe(201);
    ids.push(res.body.sourceId as string);
  }
  const res = await mc.call('POST', '/api/subjects', {
    bearer: admin, body: { externalId: unique('ext'), status, project: radar, sources: ids.map((sourceId) => ({ sourceId })) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // A new subject is always activated (as the reference's create): other statuses come with an update.
  if (status !== 'ACTIVATED') {
    const updated = await mc.call('PUT', '/api/subjects', { bearer: admin, body: { ...res.body, status } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  }
  expect((await api(`/api/subjects/${res.body.login}`)).body.status).toBe(status);
  return res.body.login as string;
}

/** The authorities `login` holds in `project`, as the API lists them. */
async function rolesIn(login: string, project = 'radar'): Promise<string[]> {
  const res = await api(`/api/users/${login}/roles`);
  expect(res.status).toBe(200);
  return (res.body as Json[]).filter((r) => r.projectName === project).map((r) => r.authorityName as string).sort();
}

/** A user with `authorities` in radar (and `elsewhere` roles as given), made through the API. */
async function userWith(authorities: string[], elsewhere: { authorityName: string; projectName?: string; organizationName?: string }[] = []): Promise<string> {
  const { login } = await mc.userWithRole(authorities[0]!, { project: 'radar' }, 'Passw0rd!');
  const roles = [...authorities.map((authorityName) => ({ authorityName, projectName: 'radar' })), ...elsewhere];
  expect((await mc.call('PUT', `/api/users/${login}/roles`, { bearer: admin, body: roles })).status).toBe(204);
  return login;
}

async function signedIn(login = 'admin', password = 'admin') {
  const ui = uiClient(t.app);
  expect((await ui.signIn(login, password)).status).toBe(303);
  const csrf = csrfOf((await ui.get('/managementportal/')).body);
  return { ui, post: (to: string, form: Record<string, string>) => ui.post(to, { _csrf: csrf, ...form }) };
}

/** The `<tr>` of the subject list holding `login`. */
function rowOf(html: string, login: string): string {
  const rows = html.split('<tr>').filter((row) => row.includes(`>${login}</a>`));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** The changes of the user in the audit trail, as the service wrote them (in the change's transaction). */
async function userEvents(login: string) {
  return t.app.db.db.select().from(auditEvents)
    .where(and(eq(auditEvents.targetType, 'user'), eq(auditEvents.targetId, login), like(auditEvents.eventType, 'ENTITY_%'))).orderBy(auditEvents.id);
}

describe('subject list', () => {
  it('shows each subject\'s sources with their type, and its status as a badge naming it', async () => {
    const [first, second] = [unique('dev'), unique('dev')];
    const paired = await subjectWith('ACTIVATED', [first, second]);
    const bare = await subjectWith('DEACTIVATED');
    const discontinued = await subjectWith('DISCONTINUED');
    const invalid = await subjectWith('INVALID');
    const { ui } = await signedIn();
    const page = await ui.get(`${path}?sort=id,desc`);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<th scope="col">Sources<\/th>\s*<th scope="col">Status<\/th>/);
    const row = rowOf(page.body, paired);
    expect(row).toContain(`<li>${first} <span class="source-type">(${typeLabel(sourceType)})</span></li>`);
    expect(row).toContain(`<li>${second} <span class="source-type">(${typeLabel(sourceType)})</span></li>`);
    expect(row).toContain('<span class="badge badge-activated">Activated</span>');
    expect(rowOf(page.body, bare)).not.toContain('<li>');
    expect(rowOf(page.body, bare)).toContain('<span class="badge badge-deactivated">Deactivated</span>');
    expect(rowOf(page.body, discontinued)).toContain('<span class="badge badge-discontinued">Discontinued</span>');
    expect(rowOf(page.body, invalid)).toContain('<span class="badge badge-invalid">Invalid</span>');
    // The same sources the API gives the subject.
    expect(((await api(`/api/subjects/${paired}`)).body.sources as Json[]).map((s) => s.sourceName).sort()).toEqual([first, second].sort());
  });

  it('shows a source the subject no longer holds no more, and the status in Dutch', async () => {
    const name = unique('dev');
    const login = await subjectWith('ACTIVATED', [name]);
    const { ui, post } = await signedIn();
    expect((await post(`${path}/subjects/${login}/sources/unassign`, { sourceName: name })).status).toBe(303);
    expect(rowOf((await ui.get(`${path}?login=${login}`)).body, login)).not.toContain(name);
    ui.jar.set('lang', 'nl');
    const dutch = await ui.get(`${path}?login=${login}`);
    expect(rowOf(dutch.body, login)).toContain('<span class="badge badge-activated">Actief</span>');
  });
});

describe('admins tab: Remove', () => {
  it('lists a row per role with Remove; a post takes that role only, lands on the tab naming it, and is audited', async () => {
    const login = await userWith(['ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']);
    const { ui, post } = await signedIn();
    const tab = await ui.get(`${path}/admins`);
    expect(tab.status).toBe(200);
    for (const role of ['ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']) {
      expect(tab.body).toContain(`<td>${login}</td>`);
      expect(tab.body).toContain(`aria-label="Remove role ${role} of ${login}"`);
    }
    const res = await post(`${path}/admins/remove`, { login, authority: 'ROLE_PROJECT_ANALYST' });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${path}/admins?removed=${login}&role=ROLE_PROJECT_ANALYST`);
    const landed = await ui.get(res.location!);
    expect(landed.status).toBe(200);
    expect(landed.body).toContain(`<p role="status" class="notice">${login} no longer has the role ROLE_PROJECT_ANALYST in project radar.</p>`);
    expect(landed.body).not.toContain(`aria-label="Remove role ROLE_PROJECT_ANALYST of ${login}"`);
    expect(landed.body).toContain(`aria-label="Remove role ROLE_PROJECT_AFFILIATE of ${login}"`);
    expect(await rolesIn(login)).toEqual(['ROLE_PROJECT_AFFILIATE']);
    // A link naming a role the user still holds shows no notice.
    const stale = await ui.get(`${path}/admins?removed=${login}&role=ROLE_PROJECT_AFFILIATE`);
    expect(stale.status).toBe(200);
    expect(stale.body).not.toContain('no longer has the role');
    // The audit event the API's role change writes: the user updated, its roles old → new, by the admin.
    const events = await userEvents(login);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ eventType: 'ENTITY_UPDATED', principal: 'admin', targetType: 'user', targetId: login });
    const roles = (last.changes as Json).roles;
    expect((roles.old as Json[]).map((r) => r.authorityName).sort()).toEqual(['ROLE_PROJECT_AFFILIATE', 'ROLE_PROJECT_ANALYST']);
    expect((roles.new as Json[]).map((r) => r.authorityName)).toEqual(['ROLE_PROJECT_AFFILIATE']);
  });

  it('refuses what the API refuses as an alert on the tab, nothing changed', async () => {
    const other = await mc.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('other'), description: 'd', location: 'l', organizationName: 'main' } });
    expect(other.status).toBe(201);
    // A radar admin may not take roles from a user who also holds one where it is no admin.
    const both = await userWith(['ROLE_PROJECT_AFFILIATE'], [{ authorityName: 'ROLE_PROJECT_ANALYST', projectName: other.body.projectName }]);
    const radarAdmin = await userWith(['ROLE_PROJECT_ADMIN']);
    const { post } = await signedIn(radarAdmin, 'Passw0rd!');
    const eventsBefore = (await userEvents(both)).length;
    const denied = await post(`${path}/admins/remove`, { login: both, authority: 'ROLE_PROJECT_AFFILIATE' });
    expect(denied.status).toBe(403);
    expect(denied.body).toContain(`<p role="alert" class="alert">You may not take the role ROLE_PROJECT_AFFILIATE from ${both}:`);
    expect(denied.body).toContain(`<td>${both}</td>`);
    expect(await rolesIn(both)).toEqual(['ROLE_PROJECT_AFFILIATE']);
    expect(await rolesIn(both, other.body.projectName)).toEqual(['ROLE_PROJECT_ANALYST']);
    expect(await userEvents(both)).toHaveLength(eventsBefore);
    // The API says the same to that admin.
    const token = await mc.tokenOf(radarAdmin, 'Passw0rd!');
    expect((await mc.call('PUT', `/api/users/${both}/roles`, { bearer: token, body: [{ authorityName: 'ROLE_PROJECT_ANALYST', projectName: other.body.projectName }] })).status).toBe(403);

    // A role the user does not hold, an unknown user, a participant's role: refused, nothing changed.
    const affiliate = await userWith(['ROLE_PROJECT_AFFILIATE']);
    const { post: adminPost } = await signedIn();
    const notHeld = await adminPost(`${path}/admins/remove`, { login: affiliate, authority: 'ROLE_PROJECT_OWNER' });
    expect(notHeld.status).toBe(404);
    expect(notHeld.body).toContain(`<p role="alert" class="alert">${affiliate} has no role ROLE_PROJECT_OWNER in this project.</p>`);
    expect((await adminPost(`${path}/admins/remove`, { login: unique('nobody'), authority: 'ROLE_PROJECT_ADMIN' })).status).toBe(404);
    const subject = await subjectWith('ACTIVATED');
    const participant = await adminPost(`${path}/admins/remove`, { login: subject, authority: 'ROLE_PARTICIPANT' });
    expect(participant.status).toBe(400);
    expect((await api(`/api/subjects/${subject}`)).body.status).toBe('ACTIVATED');
    expect((await api(`/api/users/${subject}/roles`)).body.map((r: Json) => r.authorityName)).toContain('ROLE_PARTICIPANT');
    expect(await rolesIn(affiliate)).toEqual(['ROLE_PROJECT_AFFILIATE']);
    // Without the form's CSRF token: refused.
    const { ui } = await signedIn();
    expect((await ui.post(`${path}/admins/remove`, { login: affiliate, authority: 'ROLE_PROJECT_AFFILIATE' })).status).toBe(403);
    expect(await rolesIn(affiliate)).toEqual(['ROLE_PROJECT_AFFILIATE']);
  });

  it('offers Remove only to who may change roles in the project', async () => {
    const analyst = await userWith(['ROLE_PROJECT_ANALYST']);
    const { ui } = await signedIn(analyst, 'Passw0rd!');
    const tab = await ui.get(`${path}/admins`);
    expect(tab.status).toBe(200);
    expect(tab.body).toContain(`<td>${analyst}</td>`);
    expect(tab.body).not.toContain('admins/remove');
    const { post } = await signedIn(analyst, 'Passw0rd!');
    expect((await post(`${path}/admins/remove`, { login: analyst, authority: 'ROLE_PROJECT_ANALYST' })).status).toBe(403);
    expect(await rolesIn(analyst)).toEqual(['ROLE_PROJECT_ANALYST']);
  });

  it('denies a project admin of another project: 403 page, nothing changed', async () => {
    const other = await mc.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('other'), description: 'd', location: 'l', organizationName: 'main' } });
    expect(other.status).toBe(201);
    const outsider = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: other.body.projectName }, 'Passw0rd!');
    const target = await userWith(['ROLE_PROJECT_AFFILIATE']);
    const eventsBefore = (await userEvents(target)).length;
    const { post } = await signedIn(outsider.login, 'Passw0rd!');
    for (const form of [{ login: target, authority: 'ROLE_PROJECT_AFFILIATE' }, { login: target, authority: 'ROLE_PROJECT_OWNER' }, { login: 'admin', authority: 'ROLE_PROJECT_ADMIN' }]) {
      const res = await post(`${path}/admins/remove`, form);
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toContain('text/html');
    }
    expect(await rolesIn(target)).toEqual(['ROLE_PROJECT_AFFILIATE']);
    expect(await userEvents(target)).toHaveLength(eventsBefore);
  });
});

describe('in the browser', requires(chromiumInstalled), () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!browserAvailable) return;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => browser?.close());

  it('shows the sources and the status badges, each status its own colour', async () => {
    const name = unique('dev');
    const active = await subjectWith('ACTIVATED', [name]);
    const stopped = await subjectWith('DISCONTINUED');
    const page: Page = await browser.newPage();
    await signIn(page, t.base);
    await page.goto(`${t.base}/projects/radar?sort=id,desc`);
    const table = page.getByRole('table', { name: 'Subjects' });
    const activeRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: active, exact: true }) });
    const stoppedRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: stopped, exact: true }) });
    expect(await activeRow.getByRole('listitem').textContent()).toBe(`${name} (${typeLabel(sourceType)})`);
    const activeBadge = activeRow.getByText('Activated', { exact: true });
    const stoppedBadge = stoppedRow.getByText('Discontinued', { exact: true });
    // No DOM types in this project: the browser's getComputedStyle, typed by hand.
    type Style = (el: unknown) => { backgroundColor: string; color: string };
    const colours = async (badge: typeof activeBadge) => badge.evaluate((el) => {
      const style = (globalThis as unknown as { getComputedStyle: Style }).getComputedStyle(el);
      return [style.backgroundColor, style.color];
    });
    const [activeBg] = await colours(activeBadge);
    const [stoppedBg] = await colours(stoppedBadge);
    expect(activeBg).not.toBe(stoppedBg);
    expect(activeBg).not.toBe('rgba(0, 0, 0, 0)');
    await screenshot(page, 'project-subjects-sources-status');
    await page.close();
  });

  it('removes a role from the admins tab with JavaScript off; the API no longer lists it', async () => {
    const login = await userWith(['ROLE_PROJECT_OWNER', 'ROLE_PROJECT_ANALYST']);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page, t.base);
    await page.goto(`${t.base}/projects/radar/admins`);
    await page.getByRole('button', { name: `Remove role ROLE_PROJECT_OWNER of ${login}`, exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('removed') === login);
    expect(await page.getByRole('status').first().textContent()).toBe(`${login} no longer has the role ROLE_PROJECT_OWNER in project radar.`);
    expect(await page.getByRole('button', { name: `Remove role ROLE_PROJECT_OWNER of ${login}`, exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Remove role ROLE_PROJECT_ANALYST of ${login}`, exact: true }).count()).toBe(1);
    expect(await rolesIn(login)).toEqual(['ROLE_PROJECT_ANALYST']);
    await screenshot(page, 'project-admins-removed');
    await context.close();
  });
});
