/**
 * The project pages over plain HTTP, where a browser adds nothing: bad filters and form values
 * are 400 pages (never 5xx, nothing written), a missing CSRF token is 403, unknown projects and
 * subjects of another project are 404 pages, a client without dynamic registration cannot be
 * paired, and the subjects page stays under 150 KB with its stylesheet and script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { aProjectIn, aSubjectIn, mainOrganization } from '../../fixtures/management.js';
import { isLoopback } from '../../../src/management/ui/projects/pairing.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let cookie: string;
const BASE = '/managementportal';

/** The session cookie of `admin` signed in at `/login` of `app`. */
async function signedIn(app: TestApp['app']): Promise<string> {
  const login = await app.inject({ method: 'GET', url: `${BASE}/login` });
  const res = await app.inject({
    method: 'POST', url: `${BASE}/login`, headers: { cookie: cookieOf(login.headers['set-cookie']), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrfOf(login.body), username: 'admin', password: 'admin' }).toString(),
  });
  expect(res.statusCode).toBe(303);
  return cookieOf(res.headers['set-cookie']);
}

const cookieOf = (setCookie: string | string[] | undefined) => String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

async function get(path: string) {
  return t.app.inject({ method: 'GET', url: `${BASE}${path}`, headers: { cookie } });
}

async function post(path: string, form: Record<string, string>, withCsrf = true) {
  const csrf = csrfOf((await get('/')).body);
  return t.app.inject({
    method: 'POST', url: `${BASE}${path}`,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(withCsrf ? { _csrf: csrf, ...form } : form).toString(),
  });
}

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  cookie = await signedIn(t.app);
});
afterAll(async () => { await t?.close(); });

const countOf = async (projectName: string) =>
  Number((await mc.call('GET', `/api/projects/${projectName}/subjects?size=1`, { bearer: admin })).headers['x-total-count']);

describe('project pages over HTTP', () => {
  it('redirects to the sign-in page without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/projects/radar?externalId=x` });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${BASE}/login?next=${encodeURIComponent(`${BASE}/projects/radar?externalId=x`)}`);
  });

  it.each([
    ['an unknown sort', 'sort=password,asc'],
    ['a date of birth that is no day', 'dateOfBirth=2020-02-30'],
    ['an enrolment date that is no date', 'enrolledFrom=yesterday'],
    ['a group id that is no number', 'groupId=abc'],
    ['a cursor id that is no number', 'last.id=1e3'],
    ['a filter too long', `externalId=${'x'.repeat(300)}`],
  ])('answers %s with a 400 page', async (_, query) => {
    const res = await get(`/projects/radar?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('role="alert"');
  });

  it('answers a reversed enrolment range with the list page: an alert, the filters kept, no subjects (400)', async () => {
    const res = await get('/projects/radar?enrolledFrom=2024-05-02&enrolledTo=2024-05-01&externalId=keep-me');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('role="alert" class="alert">The enrolment dates are reversed: &quot;Enrolled from&quot; is after &quot;Enrolled until&quot;');
    expect(res.body).toMatch(/name="enrolledFrom"[^>]*value="2024-05-02"|value="2024-05-02"[^>]*name="enrolledFrom"/);
    expect(res.body).toMatch(/name="externalId"[^>]*value="keep-me"|value="keep-me"[^>]*name="externalId"/);
    // The same day twice is a range of one day, not a reversed one.
    expect((await get('/projects/radar?enrolledFrom=2024-05-01&enrolledTo=2024-05-01')).statusCode).toBe(200);
  });

  it('answers an unknown project, and a subject of another project, with 404 pages', async () => {
    expect((await get(`/projects/${unique('nope')}`)).statusCode).toBe(404);
    expect((await get(`/projects/${unique('nope')}/groups`)).statusCode).toBe(404);
    const db = t.app.db.db;
    const other = await aProjectIn(db, await mainOrganization(db));
    const subject = await aSubjectIn(db, other.id);
    for (const action of ['edit', 'pair', 'discontinue', 'delete']) {
      expect((await get(`/projects/radar/subjects/${subject.login}/${action}`)).statusCode).toBe(404);
    }
    expect((await post(`/projects/radar/subjects/${subject.login}/delete`, {})).statusCode).toBe(404);
    expect((await mc.call('GET', `/api/subjects/${subject.login}`, { bearer: admin })).status).toBe(200);
  });

  it('refuses a POST without the CSRF token (403), writing nothing', async () => {
    const before = await countOf('radar');
    const res = await post('/projects/radar/subjects', { externalId: unique('ext') }, false);
    expect(res.statusCode).toBe(403);
    expect(await countOf('radar')).toBe(before);
  });

  it('shows the create form again with an alert (400) for bad values, keeping them; nothing is created', async () => {
    const before = await countOf('radar');
    const externalId = unique('ext');
    for (const [form, alert] of [
      [{ externalId, personName: 'Kept', dateOfBirth: '1999-02-31' }, 'real day'],
      [{ externalId, personName: 'Kept', attributes: '=no key' }, 'key=value'],
      [{ externalId, personName: 'Kept', group: 'no such group' }, 'not found'],
    ] as const) {
      const res = await post('/projects/radar/subjects', form);
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(new RegExp(`role="alert"[^>]*>[^<]*${alert}`));
      expect(res.body).toContain(`value="${externalId}"`);
      expect(res.body).toContain('value="Kept"');
    }
    expect(await countOf('radar')).toBe(before);
  });

  it('creates with a 303 to the project page', async () => {
    const externalId = unique('ext');
    const res = await post('/projects/radar/subjects', { externalId, personName: '', dateOfBirth: '', group: '', attributes: '' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${BASE}/projects/radar\\?created=`));
    const listed = (await mc.call('GET', `/api/projects/radar/subjects?externalId=${externalId}`, { bearer: admin })).body as Json[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ externalId, personName: null, dateOfBirth: null, group: null, attributes: {} });
  });

  it('pairs only with a client that allows dynamic registration (400 page otherwise, no token)', async () => {
    const subject = (await mc.subjectIn({ id: 1, projectName: 'radar' }, admin)).login as string;
    const page = await get(`/projects/radar/subjects/${subject}/pair`);
    expect(page.statusCode).toBe(200);
    const options = [...page.body.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
    expect(options).toEqual(expect.arrayContaining(['aRMT', 'pRMT']));
    expect(options).not.toContain('ManagementPortalapp');
    const refused = await post(`/projects/radar/subjects/${subject}/pair`, { clientId: 'ManagementPortalapp' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).not.toContain('<img src="data:image/png');
    const paired = await post(`/projects/radar/subjects/${subject}/pair`, { clientId: 'aRMT', persistent: 'true' });
    expect(paired.statusCode).toBe(200);
    expect(paired.headers['cache-control']).toBe('no-store');
    // A persistent token: the long name, readable until it expires.
    const url = /<code>(http[^<]+\/api\/meta-token\/([A-Za-z0-9.-]+))<\/code>/.exec(paired.body)!;
    expect(url[2]).toHaveLength(16);
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/api/meta-token/${url[2]}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/api/meta-token/${url[2]}` })).statusCode).toBe(200);
  });

  it('shows the base URL the app receives beside the expiry, and warns that the loopback defaults cannot reach a phone', async () => {
    const subject = (await mc.subjectIn({ id: 1, projectName: 'radar' }, admin)).login as string;
    const page = await get(`/projects/radar/subjects/${subject}/pair`);
    const alerts = [...page.body.matchAll(/<p role="alert" class="alert">([^<]+)<\/p>/g)].map((m) => m[1]);
    expect(alerts).toEqual([
      'MANAGEMENTPORTAL_COMMON_BASE_URL is http://localhost:8080, a loopback address: a phone cannot reach it. Set it to the address the platform has on the network before pairing.',
      'MANAGEMENTPORTAL_COMMON_MANAGEMENT_PORTAL_BASE_URL is http://localhost:8080/managementportal, a loopback address: a phone cannot reach it. Set it to the address the platform has on the network before pairing.',
    ]);
    const paired = await post(`/projects/radar/subjects/${subject}/pair`, { clientId: 'aRMT' });
    expect(paired.statusCode).toBe(200);
    expect(paired.body).toMatch(/<dt>Base URL<\/dt><dd><code>http:\/\/localhost:8080<\/code><\/dd>/);
  });

  it('offers a discontinued subject neither "Pair app" nor "Discontinue", and its pages say why', async () => {
    const subject = (await mc.subjectIn({ id: 1, projectName: 'radar' }, admin)).login as string;
    const listed = async () => (await get(`/projects/radar?login=${subject}`)).body;
    expect(await listed()).toContain(`/subjects/${subject}/pair"`);
    expect((await post(`/projects/radar/subjects/${subject}/discontinue`, {})).statusCode).toBe(303);

    const list = await listed();
    expect(list).not.toContain(`/subjects/${subject}/pair"`);
    expect(list).not.toContain(`/subjects/${subject}/discontinue"`);
    expect(list).toContain(`/subjects/${subject}/edit"`);
    const why = `Subject ${subject} is discontinued: it cannot be paired or discontinued again.`;
    for (const path of ['pair', 'discontinue']) {
      const page = await get(`/projects/radar/subjects/${subject}/${path}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(why);
      expect(page.body).not.toContain(`action="${BASE}/projects/radar/subjects/${subject}/${path}"`);
    }
    const pairing = await post(`/projects/radar/subjects/${subject}/pair`, { clientId: 'aRMT' });
    expect(pairing.statusCode).toBe(409);
    expect(pairing.body).toContain(why);
    expect(pairing.body).not.toContain('<img src="data:image/png');
    expect((await post(`/projects/radar/subjects/${subject}/discontinue`, {})).statusCode).toBe(409);
  });

  it('keeps the subjects page, its stylesheet and script under 150 KB, one h1, every image with alt', async () => {
    const res = await get('/projects/radar');
    const css = await t.app.inject({ method: 'GET', url: `${BASE}/content/ui.css` });
    const js = await t.app.inject({ method: 'GET', url: `${BASE}/content/ui.js` });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length + css.rawPayload.length + js.rawPayload.length).toBeLessThan(150 * 1024);
    expect(res.body.match(/<h1[ >]/g)).toHaveLength(1);
    for (const img of res.body.match(/<img [^>]*>/g) ?? []) expect(img).toMatch(/ alt="[^"]+"/);
  });

  it('leaves out the fields MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS hides; an edit keeps their stored values', async () => {
    const hiding = await buildTestApp({ MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS: 'person_name,date_of_birth' }, { demoData: true });
    try {
      const api = managementClient(hiding.app);
      const token = await api.tokenOf('admin', 'admin');
      const externalId = unique('ext');
      const created = await api.call('POST', '/api/subjects', { bearer: token, body: { project: { id: 1, projectName: 'radar' }, externalId, personName: 'Hidden Name', dateOfBirth: '1980-01-02' } });
      expect(created.status).toBe(201);
      const session = await signedIn(hiding.app);
      const list = await hiding.app.inject({ method: 'GET', url: `${BASE}/projects/radar?externalId=${externalId}&personName=nobody`, headers: { cookie: session } });
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain('Person name');
      expect(list.body).not.toContain('Date of birth');
      expect(list.body).toContain('>Group<');
      // The hidden filter does not filter either.
      expect(list.body).toContain(externalId);
      const edit = await hiding.app.inject({ method: 'GET', url: `${BASE}/projects/radar/subjects/${created.body.login}/edit`, headers: { cookie: session } });
      expect(edit.body).not.toContain('name="personName"');
      const saved = await hiding.app.inject({
        method: 'POST', url: `${BASE}/projects/radar/subjects/${created.body.login}/edit`,
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrfOf(edit.body), externalId, personName: 'Crafted', attributes: 'a=b' }).toString(),
      });
      expect(saved.statusCode).toBe(303);
      const after = await api.call('GET', `/api/subjects/${created.body.login}`, { bearer: token });
      expect(after.body).toMatchObject({ personName: 'Hidden Name', dateOfBirth: '1980-01-02', attributes: { a: 'b' } });
    } finally {
      await hiding.close();
    }
  });
});

describe('the pairing page\'s loopback warning', () => {
  it('names localhost, 127.0.0.0/8 and ::1, not the network\'s addresses', () => {
    for (const url of ['http://localhost:8080', 'https://app.localhost/x', 'http://127.1.2.3/managementportal', 'http://[::1]:8080']) expect(isLoopback(url), url).toBe(true);
    for (const url of ['https://radar.example.org', 'http://10.0.0.5:8080', 'http://192.168.1.20', 'not a url']) expect(isLoopback(url), url).toBe(false);
  });
});
