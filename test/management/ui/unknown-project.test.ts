/**
 * An unknown project in a page's URL (`/projects/{name}`, its tabs and its forms) is the 404 page
 * "project not found" for a system admin and for a project admin of another project alike, on
 * PGlite and PostgreSQL: what `GET /api/projects/{name}` answers both (the API looks the project up
 * before it checks the caller's rights on it). The tabs read the project and their lists
 * together; the project's refusal wins whichever read fails first, so a list's 403 never stands in
 * for the project's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { uiClient } from '../../helpers/ui-client.js';
import { aProjectIn, aSubjectIn, mainOrganization } from '../../fixtures/management.js';
import { projectFirst } from '../../../src/management/ui/projects/project.js';

const HTML = { accept: 'text/html' };
/** Every GET page below a project's path that a link of the UI leads to. */
const PAGES = ['', '/groups', '/sources', '/admins', '/edit', '/delete', '/subjects/new', '/sources/new'];

let t: TestApp;
let mc: ReturnType<typeof managementClient>;

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
});
afterAll(async () => { await t?.close(); });

const alertOf = (body: string) => /role="alert" class="alert">([^<]*)</.exec(body)?.[1] ?? '';

describe('projectFirst', () => {
  it('throws the project\'s refusal even when another read fails sooner; else the first other refusal; else every value', async () => {
    const later = <T>(ms: number, outcome: () => T) => new Promise<T>((resolve, reject) => {
      setTimeout(() => { try { resolve(outcome()); } catch (error) { reject(error as Error); } }, ms);
    });
    const notFound = new Error('project not found');
    const denied = new Error('denied');
    await expect(projectFirst([later(20, () => { throw notFound; }), Promise.reject(denied)])).rejects.toBe(notFound);
    await expect(projectFirst([later(5, () => 'project'), Promise.reject(denied)])).rejects.toBe(denied);
    await expect(projectFirst([later(5, () => 'project'), Promise.resolve(2), 'plain'])).resolves.toEqual(['project', 2, 'plain']);
  });
});

describe('an unknown project', () => {
  it('is the 404 page "project not found" to a system admin and to a project admin of another project, as the API answers', async () => {
    const db = t.app.db.db;
    const own = await aProjectIn(db, await mainOrganization(db));
    const projectAdmin = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: own.projectName });
    const subject = await aSubjectIn(db, own.id);
    const adminToken = await mc.tokenOf('admin', 'admin');
    const missing = unique('no-such-project');

    for (const [login, password, token] of [['admin', 'admin', adminToken], [projectAdmin.login, 'Passw0rd', projectAdmin.token]] as const) {
      // The API: 404 to both.
      const api = await mc.call('GET', `/api/projects/${missing}`, { bearer: token });
      expect(api.status, login).toBe(404);
      expect((api.body as Json).message).toBe('Project not found with projectName ' + missing);

      const ui = uiClient(t.app, '/managementportal', HTML);
      expect((await ui.signIn(login, password)).status).toBe(303);
      // The paths read several things at once: ask each a few times, so a race would show.
      for (let round = 0; round < 3; round++) {
        for (const path of PAGES) {
          const page = await ui.get(`/projects/${missing}${path}`);
          expect(page.status, `${login} ${path}`).toBe(404);
          expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
          expect(alertOf(page.body), `${login} ${path}`).toBe(`Project not found with projectName ${missing}`);
          // A page of the UI, with the user's navbar.
          expect(page.body).toContain('<nav aria-label="Main">');
        }
      }
      // A subject's pages under the unknown project: 404 as well (the subject is not in that project).
      for (const path of ['/edit', '/pair', '/sources']) {
        const page = await ui.get(`/projects/${missing}/subjects/${subject.login}${path}`);
        expect(page.status, `${login} subject ${path}`).toBe(404);
      }
      expect((await ui.get(`/projects/${missing}/subjects/${subject.login}`)).status).toBe(404);
    }
  });

  it('while a project that exists stays 403 to a project admin of another project', async () => {
    const db = t.app.db.db;
    const own = await aProjectIn(db, await mainOrganization(db));
    const other = await aProjectIn(db, await mainOrganization(db));
    const projectAdmin = await mc.userWithRole('ROLE_PROJECT_ADMIN', { project: own.projectName });
    expect((await mc.call('GET', `/api/projects/${other.projectName}`, { bearer: projectAdmin.token })).status).toBe(403);
    const ui = uiClient(t.app, '/managementportal', HTML);
    expect((await ui.signIn(projectAdmin.login, 'Passw0rd')).status).toBe(303);
    for (const path of PAGES) expect((await ui.get(`/projects/${other.projectName}${path}`)).status, path).toBe(403);
    for (const path of PAGES.filter((p) => p !== '/delete')) expect((await ui.get(`/projects/${own.projectName}${path}`)).status, path).toBe(200);
  });
});
