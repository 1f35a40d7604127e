/**
 * Issue 22 item 3: the permission matrix over EVERY route of both domains, enumerated from the
 * app's route table (so a new route is checked the day it is added), and the list endpoints
 * checked for leaked rows.
 *
 * Who may call what is one table per domain: the management API's rows (endpoint × principal,
 * written out from managementportal.md §4) are in test/management/authz/permission-matrix.test.ts,
 * the app server's (appserver.md §1 and §1.13) in test/appserver/security/routes.test.ts. This
 * file adds what holds for every route at once:
 *
 * - every route is either in OPEN below (answers without credentials) or refuses a request with
 *   no token, an expired token (signed by the app's own key) and a token signed by another key
 *   with the same key id, each with the domain's 401 (or, for the admin pages, a way to the login);
 * - every GET route of the two bearer APIs, called by the PROJECT_ADMIN of project B with B's
 *   names in the path and by the other participant of project A with its own subject in the path,
 *   holds none of project A's rows (resp. none of the first participant's) in what it answers.
 *
 * The app signs with the fixture keystore, so the test signs the expired token the app would have.
 */
import { generateKeyPairSync, sign as signBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { appserverTokens, callAs, securedEnv } from '../helpers/appserver-auth.js';
import { managementClient, type Json } from '../helpers/management-api.js';
import { aNotification, aDataMessage, aUserBody, expectStatus } from '../fixtures/appserver.js';
import { setPassword } from '../fixtures/management.js';
import { loadKeySet } from '../../src/management/oauth/keystore.js';
import { createTokenSigning } from '../../src/management/oauth/token-signing.js';

const KEYSTORE = fileURLToPath(new URL('../fixtures/keystores/keytool-ec.p12', import.meta.url));
const MP = '/managementportal';

/**
 * Routes that answer without credentials, by method and path as registered: the OAuth endpoints
 * (they authenticate the client themselves), the public part of `/api` (managementportal.md
 * §1.1), the sign-in, activation and password-reset pages and their assets, health and info, the
 * API docs, and the admin endpoints behind their own basic auth (checked in their own tests).
 */
const OPEN = new Set([
  // OAuth 2.0 server (§3): client authentication, not a bearer token.
  `POST ${MP}/oauth/token`, `GET ${MP}/oauth/token`, `POST ${MP}/oauth/check_token`, `POST ${MP}/oauth/introspect`,
  `POST ${MP}/oauth/revoke`, `GET ${MP}/oauth/token_key`, `GET ${MP}/.well-known/jwks.json`,
  `GET ${MP}/.well-known/oauth-authorization-server`, `GET ${MP}/oauth/authorize`, `POST ${MP}/oauth/login`, `POST ${MP}/oauth/authorize`,
  // Admin UI: sign-in, assets, activation and password reset.
  `GET ${MP}/content/:file`, `GET ${MP}/content/images/:file`, `GET ${MP}/login`, `POST ${MP}/login`, `POST ${MP}/logout`,
  `GET ${MP}/account/reset/request`, `POST ${MP}/account/reset/request`, `GET ${MP}/account/reset/finish`,
  `POST ${MP}/account/reset/finish`, `GET ${MP}/account/reset/done`, `GET ${MP}/activate`, `POST ${MP}/activate`, `GET ${MP}/activate/done`,
  // Management API without authentication (§1.1).
  `GET ${MP}/api/profile-info`, `GET ${MP}/api/sitesettings`, `GET ${MP}/api/public/projects`, `GET ${MP}/api/meta-token/:tokenName`,
  `GET ${MP}/api/activate`, `POST ${MP}/api/account/reset_password/init`, `POST ${MP}/api/account/reset_password/finish`,
  `POST ${MP}/api/logout`,
  // Platform: health, info, API docs, Java docs page.
  'GET /actuator/health', 'GET /actuator/health/liveness', 'GET /actuator/health/readiness', 'GET /actuator/info',
  'GET /v3/api-docs', 'GET /v3/api-docs.yaml', 'GET /swagger-ui', 'GET /swagger-ui/static/index.html', 'GET /swagger-ui/static/swagger-initializer.js',
  'GET /swagger-ui/json', 'GET /swagger-ui/yaml', 'GET /swagger-ui/static/*', 'GET /java-docs/*', 'GET /java-docs/',
]);

/** Admin endpoints behind the admin basic auth: 401 to any bearer token as to none. */
const ADMIN_BASIC = new Set(['GET /actuator', 'GET /actuator/prometheus', 'GET /actuator/metrics', 'GET /actuator/metrics/:name']);

type Domain = 'management' | 'appserver' | 'admin-ui' | 'platform';
const domainOf = (url: string): Domain =>
  url.startsWith(`${MP}/api/`) || url.startsWith(`${MP}/management/`) ? 'management'
    : url === MP || url.startsWith(`${MP}/`) ? 'admin-ui'
      : /^\/(actuator|v3|swagger-ui|java-docs)(\/|$)/.test(url) ? 'platform' : 'appserver';

interface Route { method: string; url: string }
const routes: Route[] = [];

let t: TestApp;
/** Project A (`radar`, demo data) and B (`Radar-Pilot-01`, same organization), their subjects. */
const A = 'radar';
const B = 'Radar-Pilot-01';
let subB: string;
/** Values for the path parameters: A's and sub-1's (A2: sub-2's, B: B's) names, ids that exist. */
const params: Record<'A' | 'A2' | 'B', Record<string, string>> = { A: {}, A2: {}, B: {} };
const tokens = {} as Record<'mpSys' | 'mpOtherAdmin' | 'mpOtherSubject' | 'asSys' | 'asOtherAdmin' | 'asOtherSubject' | 'mpNarrowClient' | 'asNarrowClient' | 'expired' | 'otherKey', string>;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;

/** The route's path with its parameters filled in from `values` (unknown ones: `x`). */
const pathOf = (url: string, values: Record<string, string>) =>
  url.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x')).replace(/\*$/, 'x');

beforeAll(async () => {
  t = await buildTestApp(securedEnv({ MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE }), {
    demoData: true,
    onRoute: (route) => { for (const method of [route.method].flat()) routes.push({ method, url: route.url }); },
  });
  const mp = managementClient(t.app);
  const as = appserverTokens(t.app);
  const db = t.app.db.db;
  await setPassword(db, 'sub-1', 'Participant1');
  await setPassword(db, 'sub-2', 'Participant1');
  tokens.mpSys = await mp.tokenOf('admin', 'admin');
  tokens.mpOtherAdmin = await mp.tokenOf('padmin2', 'padmin');
  tokens.mpOtherSubject = await mp.tokenOf('sub-2', 'Participant1');
  tokens.asSys = (await as.password('admin', 'admin')).access;
  tokens.asOtherAdmin = (await as.password('padmin2', 'padmin')).access;
  tokens.asOtherSubject = (await as.password('sub-2', 'Participant1')).access;
  tokens.mpNarrowClient = await mp.clientCredentials(['MEASUREMENT.READ', 'MEASUREMENT.CREATE'], tokens.mpSys);
  tokens.asNarrowClient = await as.client('appserver_noscope');

  // Expired: the sys admin's own token, signed again by the app's key with `exp` in the past.
  const keys = await loadKeySet({ profile: 'dev', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} });
  const signing = createTokenSigning(keys);
  const claims = claimsOf(tokens.asSys);
  const past = Math.floor(Date.now() / 1000) - 3600;
  tokens.expired = await signing.sign({ ...claims, iat: past - 60, exp: past });
  await signing.close();
  // Another key: the same header (key id) and live claims, signed by a key the app never had.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = `${b64(headerOf(tokens.asSys))}.${b64(claims)}`;
  tokens.otherKey = `${input}.${signBytes('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;

  // App-server rows: A with sub-1 and sub-2, B with a subject of its own; a notification and a
  // data message each for sub-1 and for B's subject.
  const pilot = (await mp.call('GET', `/api/projects/${B}`, { bearer: tokens.mpSys })).body as Json;
  subB = (await mp.subjectIn(pilot, tokens.mpSys)).login;
  // The demo data may hold the projects and users already (417 "already exists").
  for (const projectId of [A, B]) expect([201, 417]).toContain((await callAs(t.app, tokens.asSys, 'POST', '/projects', { projectId })).statusCode);
  const ids: Record<string, { id: string; userId: string; dataId: string }> = {};
  for (const [projectId, subjectId] of [[A, 'sub-1'], [A, 'sub-2'], [B, subB]] as const) {
    const created = await callAs(t.app, tokens.asSys, 'POST', `/projects/${projectId}/users`, aUserBody({ subjectId }));
    const user = created.statusCode === 417 ? expectStatus(await callAs(t.app, tokens.asSys, 'GET', `/projects/${projectId}/users/${subjectId}`), 200) : expectStatus(created, 201);
    const base = `/projects/${projectId}/users/${subjectId}/messaging`;
    const notification = expectStatus(await callAs(t.app, tokens.asSys, 'POST', `${base}/notifications`, aNotification()), 201);
    const data = expectStatus(await callAs(t.app, tokens.asSys, 'POST', `${base}/data`, aDataMessage()), 201);
    ids[subjectId] = { id: String(notification.id), userId: String(user.id), dataId: String(data.id) };
  }
  const sys = async (path: string) => (await mp.call('GET', path, { bearer: tokens.mpSys })).body as Json;
  const sourceOf = async (project: string) => ((await sys(`/api/projects/${project}/sources`)) as Json[])[0]?.sourceName ?? 'x';
  const revisionOf = async (login: string) => String(((await sys(`/api/subjects/${login}/revisions`)) as Json[])[0]?.id ?? 1);
  const values = async (project: string, subject: string) => ({
    projectId: project, projectName: project, name: project, subjectId: subject, login: subject,
    id: ids[subject]!.id, notificationId: ids[subject]!.id, taskId: '1', revisionNb: await revisionOf(subject),
    sourceName: await sourceOf(project), groupName: 'x', clientId: 'aRMT', producer: 'Empatica', model: 'E4', version: 'v1',
    sourceDataName: 'EMPATICA_E4_v1_ACCELEROMETER', authorityName: 'ROLE_PARTICIPANT', tokenName: 'x', file: 'x',
  });
  params.A = await values(A, 'sub-1');
  params.A2 = await values(A, 'sub-2');
  params.B = await values(B, subB);
}, 120_000);
afterAll(async () => t?.close());

const key = (r: Route) => `${r.method} ${r.url}`;
/** The routes a request may reach (HEAD follows GET; OPTIONS is the CORS preflight, open by design). */
const callable = () => routes.filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');

const inject = (method: string, url: string, bearer?: string) => t.app.inject({
  method: method as 'GET', url,
  headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), 'content-type': 'application/json' },
  ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{}' }),
});

/** Refused without valid credentials, in the domain's way. */
function refused(domain: Domain, res: { statusCode: number; headers: Record<string, unknown>; json(): Json }): string | null {
  if (domain === 'admin-ui') {
    // The admin pages work on the signed-in session: no session, no page (a way to the login).
    return [302, 303, 401, 403].includes(res.statusCode) ? null : `admin page answered ${res.statusCode}`;
  }
  if (res.statusCode !== 401) return `status ${res.statusCode}`;
  if (domain === 'management') {
    const body = res.json();
    return body?.message === 'error.unauthorized' ? null : `401 body ${JSON.stringify(body)}`;
  }
  if (domain === 'appserver') {
    const body = res.json();
    return body?.status === 401 && typeof body.message === 'string' ? null : `401 body ${JSON.stringify(body)}`;
  }
  return null; // the admin endpoints: 401 from their own basic auth
}

const figures = { routes: 0, open: 0, cells: 0, listCalls: 0, answered: 0, leaks: 0 };

describe('every route of both domains', () => {
  it('the route table was read, and OPEN names only routes that exist', () => {
    const all = new Set(routes.map(key));
    expect([...OPEN, ...ADMIN_BASIC].filter((k) => !all.has(k))).toEqual([]);
    expect(callable().length).toBeGreaterThan(200);
  });

  it('refuses no token, an expired token and a token signed by another key, unless it is OPEN', async () => {
    const wrong: string[] = [];
    const credentials: [string, string | undefined][] = [['no token', undefined], ['expired', tokens.expired], ['another key', tokens.otherKey]];
    for (const route of callable()) {
      figures.routes++;
      if (OPEN.has(key(route))) { figures.open++; continue; }
      const domain = ADMIN_BASIC.has(key(route)) ? 'platform' : domainOf(route.url);
      const url = pathOf(route.url, params.A);
      for (const [name, bearer] of credentials) {
        figures.cells++;
        const problem = refused(domain, await inject(route.method, url, bearer));
        if (problem) wrong.push(`${key(route)} (${name}): ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('no list or read leaks rows of project A', () => {
  /** A's rows as they appear in the two APIs' JSON: its name, its subjects' logins. */
  const markersOf = (subjects: string[], project?: string) => [
    ...(project ? [new RegExp(`"(projectName|projectId|project)":"${project}"`)] : []),
    ...subjects.map((s) => new RegExp(`"(login|subjectId|subjectLogin|userLogin|user)":"${s}"`)),
  ];

  const sweep = async (domain: 'management' | 'appserver', bearer: string, values: Record<string, string>, markers: RegExp[]) => {
    const leaks: string[] = [];
    for (const route of callable()) {
      if (route.method !== 'GET' || domainOf(route.url) !== domain || OPEN.has(key(route))) continue;
      const url = pathOf(route.url, values);
      const res = await inject('GET', url, bearer);
      figures.listCalls++;
      if (res.statusCode < 200 || res.statusCode >= 300) continue;
      figures.answered++;
      const hit = markers.find((m) => m.test(res.body));
      if (hit) { figures.leaks++; leaks.push(`${url}: ${hit}`); }
    }
    return leaks;
  };

  it('the PROJECT_ADMIN of B sees none of A\'s rows (management API)', async () => {
    expect(await sweep('management', tokens.mpOtherAdmin, params.B, markersOf(['sub-1', 'sub-2'], A))).toEqual([]);
  });

  it('the PROJECT_ADMIN of B sees none of A\'s rows (app server)', async () => {
    expect(await sweep('appserver', tokens.asOtherAdmin, params.B, markersOf(['sub-1', 'sub-2'], A))).toEqual([]);
  });

  it('participant sub-2 of A sees none of sub-1\'s rows, in either API', async () => {
    expect(await sweep('management', tokens.mpOtherSubject, params.A2, markersOf(['sub-1']))).toEqual([]);
    expect(await sweep('appserver', tokens.asOtherSubject, params.A2, markersOf(['sub-1']))).toEqual([]);
  });

  it('a client without the read scopes sees no subject of A, in either API', async () => {
    expect(await sweep('management', tokens.mpNarrowClient, params.A, markersOf(['sub-1', 'sub-2']))).toEqual([]);
    expect(await sweep('appserver', tokens.asNarrowClient, params.A, markersOf(['sub-1', 'sub-2']))).toEqual([]);
  });

  it('the sweep can see a leak: the sys admin sees A\'s rows', async () => {
    // Guards the markers: if they never matched, the sweeps above could not fail.
    const before = { ...figures };
    expect((await sweep('management', tokens.mpSys, params.A, markersOf(['sub-1'], A))).length).toBeGreaterThan(5);
    expect((await sweep('appserver', tokens.asSys, params.A, markersOf(['sub-1'], A))).length).toBeGreaterThan(5);
    Object.assign(figures, { listCalls: before.listCalls, answered: before.answered, leaks: before.leaks });
  });
});

afterAll(() => {
  console.log(`route matrix: ${figures.routes} routes (${figures.open} open), ${figures.cells} credential cells, ${figures.listCalls} read calls swept (${figures.answered} answered 2xx and were searched), ${figures.leaks} leaks`);
});
