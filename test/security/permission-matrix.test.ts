/**
 * Issue 22 item 3: who may call what, over BOTH domains, in ONE table.
 *
 * Every bearer-API route of the app (the management API under `/managementportal/api` and
 * `/managementportal/management`, the app server's routes) has a row in ROWS below; the test reads
 * the app's route table and fails when a route has no row or a row names no route. Each row names
 * the radar-auth permission the reference checks (managementportal.md §2 guards, appserver.md §1
 * permission column) and the entity it is checked on; its cells are derived from the reference's
 * role → permission table (managementportal.md §4), written out once below (MODEL), and from who
 * reaches that entity (`reaches`). Where the reference (or a closed hole) differs, the row says so in
 * `over`, with the reason. Nothing here calls src/ authorization code.
 *
 * Columns, the same for every row:
 *   sys               SYS_ADMIN
 *   org               ORGANIZATION_ADMIN of `main`, the organization of project A (`radar`)
 *   padmin            PROJECT_ADMIN of A
 *   otherPadmin       PROJECT_ADMIN of project B, in another organization
 *   participant       PARTICIPANT of A: subject sub-1, the subject the rows are about (self)
 *   otherParticipant  PARTICIPANT of A: subject sub-2 (another subject)
 *   clientWith        a client-credentials token holding exactly the row's permission scope
 *                     (rows without a permission: only MEASUREMENT.READ)
 *   clientWithout     a client-credentials token holding every scope but that one
 *   expired           the sys admin's token, expired, signed by the app's key
 *   foreignKey        the sys admin's token, live, signed by a key the app never had
 *   none              no token
 * Letters: `y` 2xx (or a status the row lists in `ok`: past the permission check), `n` 403,
 * `u` 401, `x` 404, any other status as its number.
 *
 * Writes: a principal the row permits gets a fresh target where a write would change what the next
 * one meets (`fresh`); after every refused call, what the call would have written must be as it was:
 * `watch` (read back as the sys admin), `keeps` (read from the database: a create's table, a user's
 * schedule) or `after` (a check of the row's own). A write row with none of them fails the table.
 * Leaks: every 2xx answer to otherPadmin, otherParticipant and clientWithout is searched for A's rows
 * (sub-1's for otherParticipant), and every GET route of both APIs is swept once more with those
 * principals' own names in the path. Run: `npx vitest run test/security/permission-matrix.test.ts`.
 *
 * What a permitted call does is tested in the resource files. Routes that answer without a token
 * (OPEN) are left out; the admin pages and the admin endpoints (session, basic auth) are checked
 * only for what no, expired and foreign-key tokens get.
 */
import { generateKeyPairSync, sign as signBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { routeTable } from '../helpers/route-table.js';
import { multipartBody, multipartHeaders } from '../helpers/multipart.js';
import { appserverClientsFile, securedEnv } from '../helpers/appserver-auth.js';
import { basic, managementClient, unique, type Json } from '../helpers/management-api.js';
import { aDataMessage, aNotification, aUserBody } from '../fixtures/appserver.js';
import { anOrganization, aParticipant, aProjectIn, setPassword } from '../fixtures/management.js';
import { fixedProtocols } from '../fixtures/protocol-source.js';
import { anAssessment, aProtocol } from '../fixtures/protocols.js';
import { loadKeySet } from '../../src/management/oauth/keystore.js';
import { createTokenSigning } from '../../src/management/oauth/token-signing.js';
import {
  auditEvents, oauthClients, organizations, projects, roles, roleUsers, sourceData, sources, sourceTypes, subjects, users,
} from '../../src/management/schema.js';
import { messages, projects as appProjects, tasks, users as appUsers } from '../../src/appserver/schema.js';
import { ProtocolsUnavailable } from '../../src/appserver/protocols/service.js';
import type { ProtocolSource } from '../../src/appserver/schedules/protocol.js';

const KEYSTORE = fileURLToPath(new URL('../fixtures/keystores/keytool-ec.p12', import.meta.url));
/** Where the app stores uploaded files. */
const UPLOADS = mkdtempSync(join(tmpdir(), 'matrix-uploads-'));
const uploadedFiles = () => (readdirSync(UPLOADS, { recursive: true, withFileTypes: true }) as Dirent[])
  .filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name)).sort();
const MP = '/managementportal';

// ─── The reference's permission model (managementportal.md §4), written out ─────────────────────

const CRUD_ENTITIES = ['SOURCETYPE', 'SOURCEDATA', 'SOURCE', 'SUBJECT', 'USER', 'ROLE', 'PROJECT', 'ORGANIZATION', 'OAUTHCLIENTS'];
/** radar-auth `Permission.scopes()`: 9 entities × CRUD + 4 = 40. */
const SCOPES = [...CRUD_ENTITIES.flatMap((e) => ['CREATE', 'READ', 'UPDATE', 'DELETE'].map((op) => `${e}.${op}`)), 'AUDIT.READ', 'AUTHORITY.READ', 'MEASUREMENT.READ', 'MEASUREMENT.CREATE'];
const except = (...dropped: (string | RegExp)[]) => new Set(SCOPES.filter((s) => !dropped.some((d) => (typeof d === 'string' ? d === s : d.test(s)))));

/** `MPAuthorizationOracle.createPermissions` for the four roles the columns hold. */
const MODEL = {
  SYS_ADMIN: new Set(SCOPES),
  ORGANIZATION_ADMIN: except('ORGANIZATION.CREATE', 'SOURCEDATA.CREATE', 'SOURCETYPE.CREATE', /^(AUDIT|AUTHORITY|MEASUREMENT)\./),
  PROJECT_ADMIN: except('PROJECT.CREATE', /^(AUDIT|AUTHORITY)\./, /^ORGANIZATION\.(CREATE|UPDATE|DELETE)$/),
  PARTICIPANT: new Set(['SUBJECT.READ', 'SUBJECT.UPDATE', 'MEASUREMENT.CREATE', 'MEASUREMENT.READ']),
} as const;

type Who = 'sys' | 'org' | 'padmin' | 'otherPadmin' | 'participant' | 'otherParticipant' | 'clientWith' | 'clientWithout' | 'expired' | 'foreignKey' | 'none';
const WHO: readonly Who[] = ['sys', 'org', 'padmin', 'otherPadmin', 'participant', 'otherParticipant', 'clientWith', 'clientWithout', 'expired', 'foreignKey', 'none'];
type User = 'sys' | 'org' | 'padmin' | 'otherPadmin' | 'participant' | 'otherParticipant';
const ROLE_OF: Record<User, keyof typeof MODEL> = {
  sys: 'SYS_ADMIN', org: 'ORGANIZATION_ADMIN', padmin: 'PROJECT_ADMIN', otherPadmin: 'PROJECT_ADMIN', participant: 'PARTICIPANT', otherParticipant: 'PARTICIPANT',
};

/**
 * What a row's permission is checked on:
 *   global  no entity: only a global role (SYS_ADMIN) passes (§2 legend `global`)
 *   any     `hasScope`: any role that may hold the permission; the list is filtered to its referents
 *   org     organization `main`
 *   A, B    the project (in the app server with the caller's own subject: radar-spring-auth fills
 *           the missing subject from the token's `sub`)
 *   sub1, subB  a subject of A, of B
 *   userA   a user holding a role in A (USER.*: §15 fix 7, only within the admin's projects)
 *   userAC, userGA  a user holding a role in A and one in C (a third project, in a third
 *           organization, so B's admin never reads it); one holding ROLE_SYS_ADMIN and a role
 *           in A. Changing another user needs the permission on EVERY scope it holds a role in
 *           (issue 28 item 1), so of the columns only the system admin reaches them.
 *   self    the caller itself (its account)
 *   caller  app server, no project in the path: the project of the caller's first role, its own subject
 */
type On = 'global' | 'any' | 'org' | 'A' | 'B' | 'sub1' | 'subB' | 'userA' | 'userAC' | 'userGA' | 'self' | 'caller';
type Domain = 'management' | 'appserver';

/** Who reaches which entity, given that its role holds the permission (radar-auth `hasAuthority`). */
function reaches(who: User, on: On, domain: Domain, perm: string | null): boolean {
  if (who === 'sys' || on === 'any' || on === 'self') return true;
  if (on === 'global') return false;
  switch (who) {
    // radar-spring-auth gives every project the organization `main` (appserver.md §7).
    case 'org': return ['org', 'A', 'sub1', 'userA'].includes(on) || (domain === 'appserver' && ['B', 'subB', 'caller'].includes(on));
    // A project role reaches its organization only in ORGANIZATION checks (the project is in it);
    // PROJECT.x on an organization needs the project itself.
    case 'padmin': return ['A', 'sub1', 'userA', 'caller'].includes(on) || (on === 'org' && perm?.startsWith('ORGANIZATION.') === true);
    case 'otherPadmin': return ['B', 'subB', 'caller'].includes(on);
    // Personal roles: only their own subject.
    case 'participant': return on === 'sub1' || (domain === 'appserver' && ['A', 'caller'].includes(on));
    case 'otherParticipant': return domain === 'appserver' && ['A', 'caller'].includes(on);
  }
}

type Letter = string;
const letter = (status: number, ok: readonly number[] = []) =>
  (status >= 200 && status < 300) || ok.includes(status) ? 'y' : status === 403 ? 'n' : status === 401 ? 'u' : status === 404 ? 'x' : String(status);

// ─── Principals, fixtures, calls ──────────────────────────────────────────────────────────────

let t: TestApp;
/** The app's route table, HEAD and OPTIONS left out (`METHOD /url`). */
const table = routeTable();
const routes: string[] = [];
const tokens = {} as Record<Exclude<Who, 'clientWith' | 'clientWithout' | 'none'>, string>;
const logins = {} as Record<User, string>;
/** Client-credentials tokens per permission: holding only it, and holding all others. */
const clientTokens = new Map<string, { with: string; without: string }>();
/** The ids the rows' paths use ({name} in a path). */
const v: Record<string, string> = {};
let radar: Json;
let e4: Json;
let foreign: { id: number; projectName: string };
/** Project C, in a third organization: nobody in the columns but the system admin reaches it. */
let third: { id: number; projectName: string };
/** sub-1's SubjectDTO and A's PROJECT_ADMIN role, as the sys admin reads them. */
let sub1Dto: Json;
let roleOfA: Json;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked by the assertions
type Fresh = any;
interface Row {
  /** Method and path as the app registers it, without the management context path. */
  route: string;
  /** A variant of the route (which target), when the route has several rows. */
  variant?: string;
  /** The reference's permission; null where the reference asks for none (just a signed-in user). */
  perm: string | null;
  on: On;
  /** The path to call: `{name}` filled from `v`, or built from the fresh target. */
  path?: string | ((f: Fresh, who: Who) => string);
  body?: (f: Fresh, who: Who) => unknown;
  /** A new target for a principal the row permits (writes that would change what the next one meets). */
  fresh?: (who: Who) => Promise<Fresh>;
  /** Also a fresh target for each refused principal (by default they share one). */
  freshEach?: boolean;
  /** Read back as the sys admin: unchanged by a refused call. */
  watch?: string | ((f: Fresh) => string);
  /** Read from the database (where no GET shows what a refused call would write): unchanged by it. */
  keeps?: (f: Fresh) => Promise<unknown>;
  /** Checks after the call (where a read-back is no plain GET). */
  after?: (f: Fresh, permitted: boolean) => Promise<void>;
  /** Statuses that mean "past the permission check" besides 2xx. */
  ok?: number[];
  /** Cells where the reference (or a closed hole) differs from the derivation, with `why`. */
  over?: Partial<Record<Who, Letter>>;
  why?: string;
}

const domainOf = (route: string): Domain => (/^\w+ \/(api|management)\//.test(route) ? 'management' : 'appserver');
const urlOf = (route: string) => { const [m, p] = route.split(' '); return `${m} ${domainOf(route) === 'management' ? MP : ''}${p}`; };
const nameOf = (row: Row) => `${row.route}${row.variant ? ` (${row.variant})` : ''}`;
const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, k: string) => {
  if (v[k] === undefined) throw new Error(`no value for {${k}}`);
  return encodeURIComponent(v[k]);
});

/** The expected letter of one cell: derived from MODEL and REACH, unless the row overrides it. */
function expected(row: Row, who: Who): Letter {
  if (row.over?.[who] !== undefined) return row.over[who];
  if (who === 'expired' || who === 'foreignKey' || who === 'none') return 'u';
  if (who === 'clientWith') return row.perm === null ? 'n' : 'y';
  if (who === 'clientWithout') return 'n';
  const holds = row.perm === null || MODEL[ROLE_OF[who]].has(row.perm);
  return holds && reaches(who, row.on, domainOf(row.route), row.perm) ? 'y' : 'n';
}

async function inject(method: string, url: string, bearer: string | undefined, body?: unknown) {
  const raw = typeof body === 'string';
  // A Buffer is a multipart/form-data body (the file upload, test/helpers/multipart.ts).
  const multipart = Buffer.isBuffer(body);
  const res = await t.app.inject({
    method: method as 'GET', url,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body !== undefined ? (multipart ? multipartHeaders : { 'content-type': raw ? 'text/plain' : 'application/json' }) : {}),
    },
    ...(body !== undefined ? { payload: raw || multipart ? body as string | Buffer : JSON.stringify(body) } : {}),
  });
  let json: Json;
  try { json = res.body === '' ? undefined : res.json(); } catch { json = res.body; }
  return { status: res.statusCode, body: json, text: res.body };
}
/** A call as the sys admin; `path` under the management context path when it starts with /api or /management. */
const sys = async (method: string, path: string, body?: unknown) => {
  const res = await inject(method, /^\/(api|management)\//.test(path) ? `${MP}${path}` : path, tokens.sys, body);
  if (res.status >= 300 && res.status !== 417) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

function bearerOf(row: Row, who: Who, fresh: Fresh): string | undefined {
  if (who === 'none') return undefined;
  if (who === 'participant' && fresh?.self) return fresh.self as string;
  if (who === 'clientWith' || who === 'clientWithout') {
    const c = clientTokens.get(row.perm ?? 'none');
    if (!c) throw new Error(`no client for ${row.perm}`);
    return who === 'clientWith' ? c.with : c.without;
  }
  return tokens[who];
}

// ─── Targets ──────────────────────────────────────────────────────────────────────────────────

const db = () => t.app.db.db;
/** A new participant of A with its own token, for rows whose permitted call would change sub-1. */
async function freshParticipant() {
  const p = await aParticipant(db(), { project: radar, password: 'Passw0rd' });
  return { login: p.login, self: await passwordToken(p.login, 'Passw0rd') };
}
/** A management subject of A (the participant column: a new participant, called with its own token). */
const freshSubject = async (who: Who) => (who === 'participant' ? freshParticipant() : { login: (await sys('POST', '/api/subjects', { project: { id: radar.id, projectName: 'radar' } })).login as string });
/** A notification, a data message and a task (due tomorrow) of an app-server user. */
async function messagesOf(projectId: string, subjectId: string, userId: number) {
  const base = `/projects/${projectId}/users/${subjectId}/messaging`;
  const n = await sys('POST', `${base}/notifications`, aNotification());
  const d = await sys('POST', `${base}/data`, aDataMessage());
  const [task] = await db().insert(tasks).values({ userId, name: 'PHQ8', type: 'SCHEDULED', timestamp: new Date(Date.now() + 86_400_000), completionWindow: 3_600_000 }).returning();
  return { n: n.id as number, d: d.id as number, task: task!.id };
}
/** Whom a new app-server user is for: a new participant of A with its own token in the participant column, else a new subject id. */
const freshLogin = async (who: Who) => (who === 'participant' ? freshParticipant() : { login: unique('s'), self: undefined });
/** An app-server user of A with a notification, a data message and a task (a new participant for the participant column). */
async function freshAppUser(who: Who) {
  const base = await freshLogin(who);
  const user = await sys('POST', `/projects/radar/users`, aUserBody({ subjectId: base.login }));
  return { ...base, U: `/projects/radar/users/${base.login}`, ...(await messagesOf('radar', base.login, user.id)) };
}
/** Gives `login` a role (by authority) on a project. */
async function grant(login: string, authority: string, projectId: number) {
  const [user] = await db().select().from(users).where(eq(users.login, login));
  let role = (await db().select().from(roles).where(eq(roles.authorityName, authority))).find((r) => r.projectId === projectId);
  role ??= (await db().insert(roles).values({ authorityName: authority, projectId }).returning())[0];
  await db().insert(roleUsers).values({ userId: user!.id, roleId: role!.id });
}
/** A project of `main` that padmin administers (so "PROJECT_ADMIN of the project" holds for it too). */
async function freshProject() {
  const project = await aProjectIn(db(), { id: radar.organization.id });
  await grant(logins.padmin, 'ROLE_PROJECT_ADMIN', project.id);
  return project;
}
/** A user holding a role in A (PROJECT_ANALYST), not activated. */
const freshUserOfA = async () => sys('POST', '/api/users', { login: unique('user'), email: `${unique('u')}@example.org`, langKey: 'en', roles: [{ projectId: radar.id, projectName: 'radar', authorityName: 'ROLE_PROJECT_ANALYST' }] });
const analystOf = (project: { id: number; projectName: string }) => ({ projectId: project.id, projectName: project.projectName, authorityName: 'ROLE_PROJECT_ANALYST' });
/** Adding this role is in the gift of A's project admin: only the user's other roles stop it. */
const adminOfA = () => ({ projectId: radar.id, projectName: 'radar', authorityName: 'ROLE_PROJECT_ADMIN' });
const resetKeyOf = async (login: string) => (await db().select().from(users).where(eq(users.login, login)))[0]!.resetKey;
/** A user holding roles beyond A (not activated): in A and C, or ROLE_SYS_ADMIN and a role in A. */
const freshUserBeyondA = (on: 'userAC' | 'userGA') => async () => sys('POST', '/api/users', {
  login: unique('user'), email: `${unique('u')}@example.org`, langKey: 'en',
  roles: on === 'userAC' ? [analystOf(radar), analystOf(third)] : [{ authorityName: 'ROLE_SYS_ADMIN' }, analystOf(radar)],
});
const freshSourceData = async () => sys('POST', '/api/source-data', { sourceDataType: 'ACCELEROMETER', sourceDataName: unique('data'), processingState: 'RAW' });
const freshSourceType = async () => sys('POST', '/api/source-types', { producer: unique('p'), model: 'M', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false });
const freshSource = async () => sys('POST', '/api/sources', { sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, project: { id: radar.id } });
/** A new organization without projects: only a global role reaches it (the org admin's role is on `main`). */
const freshOrganization = async () => sys('POST', '/api/organizations', { name: unique('org'), description: 'd', location: 'l' });
const freshClient = async () => sys('POST', '/api/oauth-clients', { clientId: unique('client'), clientSecret: 'secret', scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'] });
const freshGroup = async () => sys('POST', '/api/projects/radar/groups', { name: unique('g') });
const typePath = (type: Json) => `/api/source-types/${encodeURIComponent(type.producer)}/${encodeURIComponent(type.model)}/${encodeURIComponent(type.catalogVersion)}`;
const later = () => new Date(Date.now() + 60_000).toISOString();
/** An app-server user of A with a notification not yet scheduled (ADDED: a schedule call makes it SCHEDULED). */
async function freshUnscheduled(who: Who) {
  const base = await freshLogin(who);
  const U = `/projects/radar/users/${base.login}`;
  const user = await sys('POST', '/projects/radar/users', aUserBody({ subjectId: base.login }));
  const n = await sys('POST', `${U}/messaging/notifications?schedule=false`, aNotification());
  return { ...base, U, user: user.id as number, n: n.id as number };
}
/** The attribute that gives a user of A the one-assessment daily protocol of `matrixProtocols`. */
const SCHEDULE_PROTOCOL = { matrix: 'schedule' };
/**
 * An app-server user of A following SCHEDULE_PROTOCOL, without a schedule: stored directly, so no
 * generation runs in the background for it and a schedule call is the only thing that writes its tasks.
 */
async function freshScheduleUser(who: Who) {
  const base = await freshLogin(who);
  const [user] = await db().insert(appUsers).values({
    projectId: Number(v.appA), subjectId: base.login, enrolmentDate: new Date(), timezone: 'Europe/London', language: 'en', attributes: SCHEDULE_PROTOCOL,
  }).returning();
  return { ...base, U: `/projects/radar/users/${base.login}`, user: user!.id };
}
/**
 * The schedules' protocols: users of A holding SCHEDULE_PROTOCOL follow one daily assessment (PHQ8),
 * so a schedule call writes their tasks; for everyone else the protocols are unavailable (502,
 * nothing written), as they are with GitHub unreachable.
 */
function matrixProtocols(): ProtocolSource {
  const fixed = fixedProtocols({ [`radar/${Object.entries(SCHEDULE_PROTOCOL).flat().join('/')}`]: aProtocol([anAssessment('PHQ8')]) });
  return {
    async forUser(projectId, subjectId, attributes) {
      const found = await fixed.forUser(projectId, subjectId, attributes);
      if (!found) throw new ProtocolsUnavailable();
      return found;
    },
    onChange: (listener) => fixed.onChange(listener),
  };
}

// ─── Read-backs from the database ─────────────────────────────────────────────────────────────

/** Every row of a table, in key order: a refused create adds none, a refused update changes none. */
const rowsOf = (table: PgTable, key: PgColumn) => () => db().select().from(table).orderBy(asc(key));
/** An app-server user's tasks and messages with their states: what a schedule call adds or moves. */
const scheduleOf = async (f: { user: number }) => ({
  tasks: await db().select({ id: tasks.id, status: tasks.status }).from(tasks).where(eq(tasks.userId, f.user)).orderBy(asc(tasks.id)),
  messages: await db().select({ id: messages.id, state: messages.state }).from(messages).where(eq(messages.userId, f.user)).orderBy(asc(messages.id)),
});

async function passwordToken(login: string, password: string): Promise<string> {
  const res = await managementClient(t.app).token({ grant_type: 'password', username: login, password }, basic('matrix', 'secret'));
  if (!res.access_token) throw new Error(`no token for ${login}: ${JSON.stringify(res)}`);
  return res.access_token as string;
}

// ─── THE TABLE ────────────────────────────────────────────────────────────────────────────────

const P = '/projects/{A}';
const U = `${P}/users/{sub1}`;
const N = `${U}/messaging/notifications`;
const D = `${U}/messaging/data`;
/** App-server writes on a fresh user of A (participant: a new participant with its own token). */
const onFreshUser = { fresh: freshAppUser } as const;

/** A log component of its own for each permitted call: a refused call leaves its level unset. */
const onFreshLogger: Pick<Row, 'fresh' | 'after'> = {
  fresh: async () => {
    const name = unique('matrix-logger');
    t.app.logLevels.component(name);
    return { name };
  },
  after: async (f, permitted) => { expect(t.app.logLevels.get(f.name)?.configuredLevel).toBe(permitted ? 'TRACE' : null); },
};
/** An app-server user created for a new subject of A: the users table must not grow on a refused call. */
const newAppUser = { fresh: freshLogin, body: (f: Fresh) => aUserBody({ subjectId: f.login }), keeps: rowsOf(appUsers, appUsers.id) } as const;
/** A questionnaire schedule generated for a fresh user following SCHEDULE_PROTOCOL. */
const onScheduleUser = { fresh: freshScheduleUser, path: (f: Fresh) => `${f.U}/questionnaire/schedule`, keeps: scheduleOf } as const;

const ROWS: Row[] = [
  // ── Management: account (managementportal.md §2.1)
  { route: 'GET /api/account', perm: null, on: 'self', why: 'needs a user: a client-credentials token is refused' },
  {
    route: 'POST /api/account', perm: 'USER.UPDATE', on: 'self',
    body: (_f, who) => ({ login: logins[who as User] ?? 'admin', firstName: 'F', lastName: 'L', email: `${unique('m')}@example.org`, langKey: 'en' }),
    keeps: rowsOf(users, users.id), over: { clientWith: 'n' },
    why: 'perm(USER_UPDATE, user=self): a participant holds no USER.UPDATE, so the reference refuses it too; a client has no account',
  },
  // A new hash each time (salted), so a refused change would show.
  { route: 'POST /api/account/change_password', perm: null, on: 'self', body: () => 'Matrix1Passw0rd', keeps: rowsOf(users, users.id) },
  {
    route: 'POST /api/account/reset-activation/init', perm: 'USER.UPDATE', on: 'userA', fresh: freshUserOfA, body: (u) => u.login, keeps: rowsOf(users, users.id),
    why: 'Reference bug fixed: any signed-in user could mail any user a new activation link (§2.1); now USER.UPDATE on that user',
  },
  { route: 'GET /api/oauth-clients/pair', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/api/oauth-clients/pair?login={sub1}&clientId=matrix', over: { clientWith: 'n' }, why: 'pairing needs a user (403 to a client, §2.10)' },
  {
    route: 'DELETE /api/meta-token/:tokenName', perm: 'SUBJECT.UPDATE', on: 'sub1',
    freshEach: true,
    fresh: async () => ({ tokenName: (await sys('GET', '/api/oauth-clients/pair?login=sub-1&clientId=matrix')).tokenName as string }),
    path: (f) => `/api/meta-token/${f.tokenName}`,
    // Fetching a meta-token spends it, so it is fetched once, after the call: refused, it still answers.
    after: async (f, permitted) => expect((await inject('GET', `${MP}/api/meta-token/${f.tokenName}`, undefined)).status).toBe(permitted ? 404 : 200),
  },

  // ── OAuth clients (§2.10): reads by scope, writes global
  { route: 'GET /api/oauth-clients', perm: 'OAUTHCLIENTS.READ', on: 'any' },
  { route: 'GET /api/oauth-clients/:clientId', perm: 'OAUTHCLIENTS.READ', on: 'any', path: '/api/oauth-clients/aRMT', why: '§15 fix 6: admins read the global lists' },
  {
    route: 'POST /api/oauth-clients', perm: 'OAUTHCLIENTS.CREATE', on: 'global',
    body: () => ({ clientId: unique('client'), clientSecret: 'secret', scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'] }),
    keeps: rowsOf(oauthClients, oauthClients.clientId),
  },
  { route: 'PUT /api/oauth-clients', perm: 'OAUTHCLIENTS.UPDATE', on: 'global', fresh: freshClient, body: (c) => ({ ...c, scope: ['SUBJECT.READ', 'PROJECT.READ'] }), watch: (c) => `/api/oauth-clients/${c.clientId}` },
  { route: 'DELETE /api/oauth-clients/:clientId', perm: 'OAUTHCLIENTS.DELETE', on: 'global', fresh: freshClient, path: (c) => `/api/oauth-clients/${c.clientId}`, watch: (c) => `/api/oauth-clients/${c.clientId}` },

  // ── Organizations (§2.4)
  { route: 'GET /api/organizations', perm: 'ORGANIZATION.READ', on: 'any' },
  { route: 'POST /api/organizations', perm: 'ORGANIZATION.CREATE', on: 'global', body: () => ({ name: unique('org'), description: 'd', location: 'l' }), keeps: rowsOf(organizations, organizations.id) },
  { route: 'PUT /api/organizations', perm: 'ORGANIZATION.UPDATE', on: 'org', body: () => ({ ...radar.organization, projects: undefined }), watch: '/api/organizations/main' },
  { route: 'GET /api/organizations/:name', perm: 'ORGANIZATION.READ', on: 'org', path: '/api/organizations/main' },
  {
    route: 'DELETE /api/organizations/:name', perm: 'ORGANIZATION.DELETE', on: 'global', fresh: freshOrganization,
    path: (o) => `/api/organizations/${o.name}`, watch: (o) => `/api/organizations/${o.name}`,
  },
  { route: 'GET /api/organizations/:name/projects', perm: 'PROJECT.READ', on: 'org', path: '/api/organizations/main/projects' },

  // ── Projects (§2.3)
  { route: 'GET /api/projects', perm: 'PROJECT.READ', on: 'any' },
  { route: 'POST /api/projects', perm: 'PROJECT.CREATE', on: 'org', body: () => ({ projectName: unique('proj'), description: 'd', location: 'l', organizationName: 'main' }), keeps: rowsOf(projects, projects.id) },
  { route: 'PUT /api/projects', perm: 'PROJECT.UPDATE', on: 'A', body: () => ({ ...radar, description: 'the demo project' }), watch: '/api/projects/radar' },
  { route: 'DELETE /api/projects/:projectName', perm: 'PROJECT.DELETE', on: 'A', fresh: freshProject, path: (p) => `/api/projects/${p.projectName}`, watch: (p) => `/api/projects/${p.projectName}` },
  { route: 'GET /api/projects/:projectName', perm: 'PROJECT.READ', on: 'A', path: '/api/projects/{A}' },
  { route: 'GET /api/projects/:projectName/source-types', perm: 'PROJECT.READ', on: 'A', path: '/api/projects/{A}/source-types' },
  { route: 'GET /api/projects/:projectName/roles', perm: 'ROLE.READ', on: 'A', path: '/api/projects/{A}/roles' },
  { route: 'GET /api/projects/:projectName/sources', perm: 'SOURCE.READ', on: 'A', path: '/api/projects/{A}/sources' },
  { route: 'GET /api/projects/:projectName/sources', variant: 'B', perm: 'SOURCE.READ', on: 'B', path: '/api/projects/{B}/sources' },
  { route: 'GET /api/projects/:projectName/subjects', perm: 'SUBJECT.READ', on: 'A', path: '/api/projects/{A}/subjects' },
  { route: 'GET /api/projects/:projectName/subjects', variant: 'B', perm: 'SUBJECT.READ', on: 'B', path: '/api/projects/{B}/subjects' },

  // ── Groups (§2.8)
  { route: 'GET /api/projects/:projectName/groups', perm: 'PROJECT.READ', on: 'A', path: '/api/projects/{A}/groups' },
  { route: 'POST /api/projects/:projectName/groups', perm: 'PROJECT.UPDATE', on: 'A', path: '/api/projects/{A}/groups', body: () => ({ name: unique('g') }), watch: '/api/projects/radar/groups' },
  { route: 'GET /api/projects/:projectName/groups/:groupName', perm: 'PROJECT.READ', on: 'A', path: '/api/projects/{A}/groups/{group}' },
  { route: 'PUT /api/projects/:projectName/groups/:groupName', perm: 'PROJECT.UPDATE', on: 'A', fresh: freshGroup, path: (g) => `/api/projects/radar/groups/${g.name}`, body: () => ({ name: unique('g') }), watch: '/api/projects/radar/groups' },
  { route: 'DELETE /api/projects/:projectName/groups/:groupName', perm: 'PROJECT.UPDATE', on: 'A', fresh: freshGroup, path: (g) => `/api/projects/radar/groups/${g.name}`, watch: (g) => `/api/projects/radar/groups/${g.name}` },
  { route: 'PATCH /api/projects/:projectName/groups/:groupName/subjects', perm: 'SUBJECT.UPDATE', on: 'A', fresh: freshGroup, path: (g) => `/api/projects/radar/groups/${g.name}/subjects`, body: () => [{ op: 'add', value: [{ login: 'sub-1' }] }], watch: '/api/subjects/sub-1' },

  // ── Roles and authorities (§2.9)
  { route: 'GET /api/roles', perm: 'ROLE.READ', on: 'any' },
  {
    route: 'POST /api/roles', perm: 'ROLE.CREATE', on: 'global', fresh: freshProject, body: (p) => ({ projectId: p.id, projectName: p.projectName, authorityName: 'ROLE_PROJECT_ANALYST' }),
    watch: (p) => `/api/projects/${p.projectName}/roles`, over: { clientWith: 'n' }, why: '@Secured ROLE_SYS_ADMIN: a client holds no role',
  },
  { route: 'PUT /api/roles', perm: 'ROLE.UPDATE', on: 'global', body: () => roleOfA, watch: '/api/projects/radar/roles', over: { clientWith: 'n' }, why: '@Secured ROLE_SYS_ADMIN' },
  { route: 'GET /api/roles/admin', perm: 'ROLE.READ', on: 'global', over: { clientWith: 'n' }, why: '@Secured ROLE_SYS_ADMIN' },
  { route: 'GET /api/roles/:projectName/:authorityName', perm: 'ROLE.READ', on: 'A', path: '/api/roles/{A}/ROLE_PROJECT_ADMIN' },
  { route: 'GET /api/authorities', perm: 'AUTHORITY.READ', on: 'any' },

  // ── Subjects (§2.5)
  { route: 'GET /api/subjects', perm: 'SUBJECT.READ', on: 'global', why: 'without projectName a global check' },
  { route: 'GET /api/subjects', variant: '?projectName=A', perm: 'SUBJECT.READ', on: 'A', path: '/api/subjects?projectName={A}' },
  { route: 'GET /api/subjects', variant: '?projectName=B', perm: 'SUBJECT.READ', on: 'B', path: '/api/subjects?projectName={B}' },
  { route: 'POST /api/subjects', perm: 'SUBJECT.CREATE', on: 'A', body: () => ({ externalId: unique('ext'), project: { id: radar.id, projectName: 'radar' } }), keeps: rowsOf(subjects, subjects.id) },
  { route: 'POST /api/subjects', variant: 'into B', perm: 'SUBJECT.CREATE', on: 'B', body: () => ({ project: { id: foreign.id, projectName: foreign.projectName } }), keeps: rowsOf(subjects, subjects.id) },
  { route: 'PUT /api/subjects', perm: 'SUBJECT.UPDATE', on: 'sub1', body: () => ({ ...sub1Dto, personName: 'Me' }), watch: '/api/subjects/sub-1' },
  {
    route: 'PUT /api/subjects', variant: 'subject of A into B', perm: 'SUBJECT.UPDATE', on: 'global', fresh: async () => sys('GET', `/api/subjects/${(await freshSubject('sys')).login}`),
    body: (s) => ({ ...s, project: { id: foreign.id, projectName: foreign.projectName } }),
    path: '/api/subjects', watch: (s) => `/api/subjects/${s.login}`,
    // A moved subject keeps its old role in A: deleted, so B's lists hold none of A's names.
    after: async (s, permitted) => { if (permitted) await sys('DELETE', `/api/subjects/${s.login}`); },
    why: 'moving a subject needs SUBJECT.UPDATE on both projects: only the sys admin has A and B',
  },
  { route: 'PUT /api/subjects/discontinue', perm: 'SUBJECT.UPDATE', on: 'A', fresh: async () => sys('GET', `/api/subjects/${(await freshSubject('sys')).login}`), body: (s) => s, watch: (s) => `/api/subjects/${s.login}` },
  { route: 'DELETE /api/subjects/:login', perm: 'SUBJECT.DELETE', on: 'sub1', fresh: freshSubject, path: (s) => `/api/subjects/${s.login}`, watch: (s) => `/api/subjects/${s.login}` },
  { route: 'GET /api/subjects/:login', perm: 'SUBJECT.READ', on: 'sub1', path: '/api/subjects/{sub1}' },
  { route: 'GET /api/subjects/:login', variant: 'subject of B', perm: 'SUBJECT.READ', on: 'subB', path: '/api/subjects/{subB}' },
  { route: 'GET /api/subjects/:login/revisions', perm: 'SUBJECT.READ', on: 'sub1', path: '/api/subjects/{sub1}/revisions' },
  { route: 'GET /api/subjects/:login/revisions/:revisionNb', perm: 'SUBJECT.READ', on: 'sub1', path: '/api/subjects/{sub1}/revisions/{sub1Revision}' },
  { route: 'GET /api/subjects/:login/sources', perm: 'SUBJECT.READ', on: 'sub1', path: '/api/subjects/{sub1}/sources' },
  {
    // By sourceId: sub-1's source gets new attributes (registering E4, not dynamic, would write nothing to read back).
    route: 'POST /api/subjects/:login/sources', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/api/subjects/{sub1}/sources',
    body: () => ({ sourceTypeId: e4.id, sourceId: v.sub1SourceId, attributes: { by: unique('matrix') } }), keeps: rowsOf(sources, sources.id),
  },
  {
    route: 'POST /api/subjects/:login/sources/:sourceName', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/api/subjects/{sub1}/sources/{sub1Source}',
    body: () => ({ by: unique('matrix') }), keeps: rowsOf(sources, sources.id),
  },

  // ── Sources (§2.6)
  { route: 'GET /api/sources', perm: 'SOURCE.READ', on: 'any', why: '§15 fix 6: the reference checked SUBJECT.READ globally' },
  { route: 'POST /api/sources', perm: 'SOURCE.CREATE', on: 'A', body: () => ({ sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, project: { id: radar.id } }), keeps: rowsOf(sources, sources.id) },
  { route: 'POST /api/sources', variant: 'no project', perm: 'SOURCE.CREATE', on: 'global', body: () => ({ sourceName: unique('device'), assigned: false, sourceType: { id: e4.id } }), keeps: rowsOf(sources, sources.id) },
  {
    route: 'PUT /api/sources', perm: 'SOURCE.UPDATE', on: 'A', fresh: freshSource,
    body: (s) => ({ id: s.id, sourceName: s.sourceName, assigned: false, sourceType: { id: e4.id }, project: { id: radar.id }, attributes: { by: 'matrix' } }),
    watch: (s) => `/api/sources/${s.sourceName}`,
  },
  { route: 'DELETE /api/sources/:sourceName', perm: 'SOURCE.DELETE', on: 'A', fresh: freshSource, path: (s) => `/api/sources/${s.sourceName}`, watch: (s) => `/api/sources/${s.sourceName}` },
  { route: 'GET /api/sources/:sourceName', perm: 'SOURCE.READ', on: 'A', path: '/api/sources/source-1' },
  { route: 'GET /api/sources/:sourceName', variant: 'source of B', perm: 'SOURCE.READ', on: 'B', path: '/api/sources/{sourceB}' },

  // ── Source types and source data (§2.7): global entities
  { route: 'GET /api/source-types', perm: 'SOURCETYPE.READ', on: 'any', why: '§15 fix 6' },
  { route: 'GET /api/source-types/:producer', perm: 'SOURCETYPE.READ', on: 'any', path: '/api/source-types/Empatica' },
  { route: 'GET /api/source-types/:producer/:model', perm: 'SOURCETYPE.READ', on: 'any', path: '/api/source-types/Empatica/E4' },
  { route: 'GET /api/source-types/:producer/:model/:version', perm: 'SOURCETYPE.READ', on: 'any', path: '/api/source-types/Empatica/E4/v1' },
  {
    route: 'POST /api/source-types', perm: 'SOURCETYPE.CREATE', on: 'global',
    body: () => ({ producer: unique('p'), model: 'M', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false }), keeps: rowsOf(sourceTypes, sourceTypes.id),
  },
  { route: 'PUT /api/source-types', perm: 'SOURCETYPE.UPDATE', on: 'global', fresh: freshSourceType, body: (s) => ({ ...s, name: 'renamed' }), watch: typePath },
  { route: 'DELETE /api/source-types/:producer/:model/:version', perm: 'SOURCETYPE.DELETE', on: 'global', fresh: freshSourceType, path: typePath, watch: typePath },
  { route: 'GET /api/source-data', perm: 'SOURCEDATA.READ', on: 'any' },
  { route: 'GET /api/source-data/:sourceDataName', perm: 'SOURCEDATA.READ', on: 'any', path: '/api/source-data/EMPATICA_E4_v1_ACCELEROMETER' },
  { route: 'POST /api/source-data', perm: 'SOURCEDATA.CREATE', on: 'global', body: () => ({ sourceDataType: 'ACCELEROMETER', sourceDataName: unique('data'), processingState: 'RAW' }), keeps: rowsOf(sourceData, sourceData.id) },
  { route: 'PUT /api/source-data', perm: 'SOURCEDATA.UPDATE', on: 'global', fresh: freshSourceData, body: (d) => ({ ...d, unit: 'g' }), watch: (d) => `/api/source-data/${d.sourceDataName}` },
  { route: 'DELETE /api/source-data/:sourceDataName', perm: 'SOURCEDATA.DELETE', on: 'global', fresh: freshSourceData, path: (d) => `/api/source-data/${d.sourceDataName}`, watch: (d) => `/api/source-data/${d.sourceDataName}` },

  // ── Users (§2.2; §15 fix 7: USER.* only on users within the admin's projects)
  { route: 'GET /api/users', perm: 'USER.READ', on: 'any' },
  {
    route: 'POST /api/users', perm: 'USER.CREATE', on: 'A',
    body: () => ({ login: unique('user'), email: `${unique('u')}@example.org`, langKey: 'en', roles: [{ projectId: radar.id, projectName: 'radar', authorityName: 'ROLE_PROJECT_ANALYST' }] }),
    keeps: rowsOf(users, users.id), over: { clientWith: 'n' }, why: 'a user with a role in A: USER.CREATE scoped like the project (fix 7), and ROLE.UPDATE on A, which a USER.CREATE-only client lacks',
  },
  { route: 'PUT /api/users', perm: 'USER.UPDATE', on: 'userA', fresh: freshUserOfA, body: (u) => ({ ...u, firstName: 'Renamed' }), watch: (u) => `/api/users/${u.login}` },
  { route: 'DELETE /api/users/:login', perm: 'USER.DELETE', on: 'userA', fresh: freshUserOfA, path: (u) => `/api/users/${u.login}`, watch: (u) => `/api/users/${u.login}` },
  { route: 'GET /api/users/:login', perm: 'USER.READ', on: 'userA', path: '/api/users/{padminLogin}' },
  { route: 'GET /api/users/:login/roles', perm: 'ROLE.READ', on: 'userA', path: '/api/users/{padminLogin}/roles' },
  { route: 'PUT /api/users/:login/roles', perm: 'ROLE.UPDATE', on: 'userA', fresh: freshUserOfA, path: (u) => `/api/users/${u.login}/roles`, body: (u) => u.roles, watch: (u) => `/api/users/${u.login}` },
  // Issue 28 item 1: every user write against a user holding a role beyond A as well.
  ...(['userAC', 'userGA'] as const).flatMap((on): Row[] => {
    const variant = on === 'userAC' ? 'user of A and C' : 'system admin with a role in A';
    const fresh = freshUserBeyondA(on);
    const watch = (u: Fresh) => `/api/users/${u.login}`;
    return [
      { route: 'PUT /api/users', variant, perm: 'USER.UPDATE', on, fresh, body: (u) => ({ ...u, email: `${unique('taken')}@example.org` }), watch },
      { route: 'PUT /api/users', variant: `${variant}, roles`, perm: 'USER.UPDATE', on, fresh, body: (u) => ({ ...u, roles: [...u.roles, adminOfA()] }), watch, over: { clientWith: 'n' }, why: 'a role change needs ROLE.UPDATE too, which a USER.UPDATE-only client lacks' },
      { route: 'DELETE /api/users/:login', variant, perm: 'USER.DELETE', on, fresh, path: (u) => `/api/users/${u.login}`, watch },
      { route: 'PUT /api/users/:login/roles', variant, perm: 'ROLE.UPDATE', on, fresh, path: (u) => `/api/users/${u.login}/roles`, body: (u) => [...u.roles, adminOfA()], watch },
      {
        route: 'POST /api/account/reset-activation/init', variant, perm: 'USER.UPDATE', on, body: (u) => u.login,
        fresh: async () => { const u = await fresh(); return { ...u, resetKey: await resetKeyOf(u.login) }; },
        // Refused: the pending activation link (the reset key) is the one the user was sent.
        after: async (u, permitted) => { if (!permitted) expect(await resetKeyOf(u.login)).toBe(u.resetKey); },
      },
    ];
  }),

  // ── Audits and revisions (§2.11)
  { route: 'GET /api/revisions', perm: null, on: 'global', over: { sys: 'y' }, why: '@Secured ROLE_SYS_ADMIN (no permission)' },
  { route: 'GET /api/revisions/:id', perm: null, on: 'global', path: '/api/revisions/{revision}', over: { sys: 'y' }, why: '@Secured ROLE_SYS_ADMIN' },
  { route: 'GET /management/audits', perm: 'AUDIT.READ', on: 'global' },
  { route: 'GET /management/audits/:id', perm: 'AUDIT.READ', on: 'global', path: '/management/audits/{audit}' },

  // ── Operational endpoints (issue 33: the reference's `management.endpoints` and LogsResource): `/management/**` needs ROLE_SYS_ADMIN
  ...['GET /management/info', 'GET /management/prometheus', 'GET /management/loggers', 'GET /management/logs'].map((route): Row => ({
    route, perm: null, on: 'global', over: { sys: 'y' }, why: '/management/** needs ROLE_SYS_ADMIN (no permission)',
  })),
  { route: 'GET /management/loggers/:name', perm: null, on: 'global', path: '/management/loggers/ROOT', over: { sys: 'y' }, why: 'ROLE_SYS_ADMIN' },
  {
    route: 'POST /management/loggers/:name', perm: null, on: 'global', ...onFreshLogger,
    path: (f) => `/management/loggers/${f.name}`, body: () => ({ configuredLevel: 'TRACE' }), over: { sys: 'y' }, why: 'ROLE_SYS_ADMIN',
  },
  { route: 'PUT /management/logs', perm: null, on: 'global', ...onFreshLogger, body: (f) => ({ name: f.name, level: 'TRACE' }), over: { sys: 'y' }, why: '@Secured ROLE_SYS_ADMIN' },

  // ── App server: projects (appserver.md §1.1)
  // A exists, so past the check a create writes nothing (417): the letters, not the read-back, show a hole here.
  {
    route: 'POST /projects', perm: 'SUBJECT.READ', on: 'A', body: () => ({ projectId: v.A }), keeps: rowsOf(appProjects, appProjects.id), ok: [417], over: { otherPadmin: 'u' },
    why: 'past the check: A exists (417); the body\'s project is checked in the route: 401 to B\'s admin',
  },
  { route: 'POST /projects/:projectId', perm: 'SUBJECT.READ', on: 'A', path: P, body: () => ({ projectId: v.A }), keeps: rowsOf(appProjects, appProjects.id), ok: [417] },
  {
    route: 'PUT /projects/:projectId', perm: 'PROJECT.UPDATE', on: 'A', path: P,
    // A real rename (a refused one must leave A as it was); a permitted one is renamed back at once.
    fresh: async () => ({ name: unique('Radar-Pilot') }), body: (f) => ({ id: Number(v.appA), projectId: f.name }), watch: `/projects/project?id={appA}`,
    after: async (f, permitted) => { if (permitted) await sys('PUT', `/projects/${f.name}`, { id: Number(v.appA), projectId: v.A }); },
    why: 'Reference bug fixed (issue 28): SUBJECT.UPDATE on (A, the token\'s sub) let a participant rename its project; now PROJECT.UPDATE',
  },
  { route: 'GET /projects', perm: 'PROJECT.READ', on: 'caller' },
  { route: 'GET /projects/project', perm: 'PROJECT.READ', on: 'A', path: '/projects/project?id={appA}', over: { otherPadmin: 'u' }, why: 'route check on the caller\'s project, then the found project (401)' },
  { route: 'GET /projects/:projectId', perm: 'SUBJECT.READ', on: 'A', path: P },

  // ── Users (§1.2)
  // Creates for a new subject of A (the participant column: a new participant, with its own token).
  {
    route: 'POST /projects/:projectId/users', perm: 'SUBJECT.UPDATE', on: 'A', path: `${P}/users`, ...newAppUser, over: { otherParticipant: 'u' },
    why: 'the body\'s subject is checked in the route: 401 to sub-2',
  },
  { route: 'POST /project/:projectId/users', perm: 'SUBJECT.UPDATE', on: 'A', path: '/project/{A}/users', ...newAppUser, over: { otherParticipant: 'u' }, why: 'as above' },
  { route: 'POST /projects/:projectId/users/:subjectId', perm: 'SUBJECT.UPDATE', on: 'sub1', ...newAppUser, path: (f) => `/projects/radar/users/${f.login}` },
  { route: 'PUT /projects/:projectId/users/:subjectId', perm: 'SUBJECT.UPDATE', on: 'sub1', path: U, body: () => aUserBody({ subjectId: 'sub-1' }), watch: U },
  { route: 'GET /users', perm: 'SUBJECT.READ', on: 'caller' },
  { route: 'GET /users/user', perm: 'SUBJECT.READ', on: 'sub1', path: '/users/user?id={appSub1}', over: { otherPadmin: 'u', otherParticipant: 'u' }, why: 'U4: route check on the caller, then the found user (401)' },
  { route: 'GET /users/:subjectId', perm: 'SUBJECT.READ', on: 'sub1', path: '/users/{sub1}', over: { otherPadmin: 'u' }, why: 'U5: route check on (caller\'s project, sub-1), then the found user (401)' },
  { route: 'GET /projects/:projectId/users', perm: 'SUBJECT.READ', on: 'A', path: `${P}/users` },
  { route: 'GET /projects/:projectId/users/:subjectId', perm: 'SUBJECT.READ', on: 'sub1', path: U },
  { route: 'DELETE /projects/:projectId/users/:subjectId', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => f.U, watch: (f) => f.U },

  // ── Notifications (§1.3) and their state events (§1.4)
  { route: 'GET /messaging/notifications', perm: 'PROJECT.READ', on: 'caller' },
  { route: 'GET /messaging/notifications/filtered', perm: 'PROJECT.READ', on: 'caller', why: 'N3: as N1, filtered to the token\'s projects' },
  { route: 'GET /messaging/notifications/:id', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/messaging/notifications/{n1}', why: 'N2: route check on the caller, then the notification\'s own project and subject (403)' },
  { route: 'GET /projects/:projectId/messaging/notifications', perm: 'SUBJECT.READ', on: 'A', path: `${P}/messaging/notifications` },
  { route: 'GET /projects/:projectId/users/:subjectId/messaging/notifications', perm: 'SUBJECT.READ', on: 'sub1', path: N },
  { route: 'POST /projects/:projectId/users/:subjectId/messaging/notifications', perm: 'SUBJECT.UPDATE', on: 'sub1', path: N, body: () => aNotification(), watch: N },
  { route: 'POST /project/:projectId/users/:subjectId/notifications', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/project/{A}/users/{sub1}/notifications', body: () => aNotification(), watch: N },
  { route: 'POST /projects/:projectId/users/:subjectId/messaging/notifications/batch', perm: 'SUBJECT.UPDATE', on: 'sub1', path: `${N}/batch`, body: () => ({ notifications: [aNotification()] }), watch: N },
  { route: 'PUT /projects/:projectId/users/:subjectId/messaging/notifications', perm: 'SUBJECT.UPDATE', on: 'sub1', path: N, body: () => ({ ...aNotification(), id: Number(v.n1), title: unique('t') }), watch: N },
  // On a user with a notification not yet scheduled (ADDED), which a refused call must leave so.
  { route: 'POST /projects/:projectId/users/:subjectId/messaging/notifications/schedule', perm: 'SUBJECT.UPDATE', on: 'sub1', fresh: freshUnscheduled, path: (f) => `${f.U}/messaging/notifications/schedule`, keeps: scheduleOf },
  {
    route: 'POST /projects/:projectId/users/:subjectId/messaging/notifications/:notificationId/schedule', perm: 'SUBJECT.UPDATE', on: 'sub1',
    fresh: freshUnscheduled, path: (f) => `${f.U}/messaging/notifications/${f.n}/schedule`, keeps: scheduleOf,
  },
  { route: 'DELETE /projects/:projectId/users/:subjectId/messaging/notifications/all', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/messaging/notifications/all`, watch: (f) => `${f.U}/messaging/notifications` },
  { route: 'DELETE /projects/:projectId/users/:subjectId/messaging/notifications/tasks/:id', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/messaging/notifications/tasks/${f.task}`, watch: (f) => `${f.U}/messaging/notifications` },
  { route: 'DELETE /projects/:projectId/users/:subjectId/messaging/notifications/:notificationId', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/messaging/notifications/${f.n}`, watch: (f) => `${f.U}/messaging/notifications` },
  { route: 'GET /messaging/notifications/:notificationId/state_events', perm: 'PROJECT.READ', on: 'sub1', path: '/messaging/notifications/{n1}/state_events', why: 'E1: then the notification\'s own project and subject' },
  { route: 'GET /projects/:projectId/users/:subjectId/messaging/notifications/:notificationId/state_events', perm: 'SUBJECT.READ', on: 'sub1', path: `${N}/{n1}/state_events` },
  {
    route: 'POST /projects/:projectId/users/:subjectId/messaging/notifications/:notificationId/state_events', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser,
    path: (f) => `${f.U}/messaging/notifications/${f.n}/state_events`, body: () => ({ state: 'OPENED', time: later(), associatedInfo: { by: 'matrix' } }),
    watch: (f) => `${f.U}/messaging/notifications/${f.n}/state_events`,
  },

  // ── Data messages (§1.5)
  { route: 'GET /messaging/data', perm: 'PROJECT.READ', on: 'caller' },
  { route: 'GET /messaging/data/filtered', perm: 'PROJECT.READ', on: 'caller', why: 'D3: as D1, filtered to the token\'s projects' },
  { route: 'GET /messaging/data/:id', perm: 'SUBJECT.READ', on: 'sub1', path: '/messaging/data/{d1}', why: 'D2: then the message\'s own project and subject' },
  { route: 'GET /projects/:projectId/messaging/data', perm: 'SUBJECT.READ', on: 'A', path: `${P}/messaging/data` },
  { route: 'GET /projects/:projectId/users/:subjectId/messaging/data', perm: 'SUBJECT.READ', on: 'sub1', path: D },
  { route: 'POST /projects/:projectId/users/:subjectId/messaging/data', perm: 'SUBJECT.UPDATE', on: 'sub1', path: D, body: () => aDataMessage(), watch: D },
  { route: 'POST /projects/:projectId/users/:subjectId/messaging/data/batch', perm: 'SUBJECT.UPDATE', on: 'sub1', path: `${D}/batch`, body: () => ({ dataMessages: [aDataMessage()] }), watch: D },
  { route: 'PUT /projects/:projectId/users/:subjectId/messaging/data', perm: 'SUBJECT.UPDATE', on: 'sub1', path: D, body: () => ({ ...aDataMessage(), id: Number(v.d1) }), watch: D },
  { route: 'DELETE /projects/:projectId/users/:subjectId/messaging/data/all', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/messaging/data/all`, watch: (f) => `${f.U}/messaging/data` },
  { route: 'DELETE /projects/:projectId/users/:subjectId/messaging/data/:id', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/messaging/data/${f.d}`, watch: (f) => `${f.U}/messaging/data` },

  // ── Protocols (§1.6) and the GitHub proxy (§1.7): GitHub is unreachable here, so past the check a 4xx/5xx of its own
  { route: 'GET /protocols', perm: 'PROJECT.READ', on: 'caller', ok: [502] },
  {
    route: 'GET /projects/:projectId/users/:subjectId/protocols', perm: 'SUBJECT.READ', on: 'sub1', path: `${U}/protocols`, ok: [404, 502, 503],
    why: 'Reference hole closed: R2 was checked on (P, token.sub), so any participant of P read another\'s protocol (§1.13); here on the path\'s subject',
  },
  { route: 'GET /projects/:projectId/protocols', perm: 'PROJECT.READ', on: 'A', path: `${P}/protocols`, ok: [404, 502, 503] },
  { route: 'GET /github/content', perm: 'SUBJECT.READ', on: 'caller', path: '/github/content?url=https%3A%2F%2Fexample.org%2Fx', ok: [400], why: 'past the check a URL outside api.github.com is 400' },

  // ── Questionnaire schedule (§1.8) and task state events (§1.9)
  // On a user with a protocol and no schedule yet: a permitted call writes its tasks, a refused one none.
  { route: 'POST /projects/:projectId/users/:subjectId/questionnaire/schedule', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onScheduleUser },
  { route: 'PUT /projects/:projectId/users/:subjectId/questionnaire/schedule', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onScheduleUser, body: () => anAssessment('PHQ8') },
  { route: 'GET /projects/:projectId/users/:subjectId/questionnaire/schedule', perm: 'SUBJECT.READ', on: 'sub1', path: `${U}/questionnaire/schedule` },
  { route: 'DELETE /projects/:projectId/users/:subjectId/questionnaire/schedule', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser, path: (f) => `${f.U}/questionnaire/schedule`, watch: (f) => `${f.U}/questionnaire/schedule` },
  { route: 'GET /questionnaire/schedule/:taskId/state_events', perm: 'SUBJECT.UPDATE', on: 'sub1', path: '/questionnaire/schedule/{task1}/state_events', why: 'T1: then the task\'s own project and subject' },
  { route: 'GET /projects/:projectId/users/:subjectId/questionnaire/schedule/:taskId/state_events', perm: 'SUBJECT.UPDATE', on: 'sub1', path: `${U}/questionnaire/schedule/{task1}/state_events` },
  {
    route: 'POST /projects/:projectId/users/:subjectId/questionnaire/schedule/:taskId/state_events', perm: 'SUBJECT.UPDATE', on: 'sub1', ...onFreshUser,
    path: (f) => `${f.U}/questionnaire/schedule/${f.task}/state_events`, body: () => ({ state: 'COMPLETED', time: later(), associatedInfo: { by: 'matrix' } }),
    watch: (f) => `${f.U}/questionnaire/schedule/${f.task}/state_events`,
  },

  // ── File upload (UploadController; this app stores into a temporary folder): the files there kept by a refused call
  {
    route: 'POST /projects/:projectId/users/:subjectId/files/topics/:topicId/upload', perm: 'MEASUREMENT.CREATE', on: 'sub1', path: `${U}/files/topics/matrix/upload`,
    body: () => multipartBody([{ name: 'file', filename: 'matrix.txt', content: 'matrix' }]), keeps: async () => uploadedFiles(),
  },
];

// ─── Routes that are no bearer-API route, and what the rest of the route table must do ───────

/**
 * Routes that answer without credentials, by method and path as registered: the OAuth endpoints
 * (they authenticate the client themselves), the public part of `/api` (managementportal.md
 * §1.1), the sign-in, activation and password-reset pages and their assets, health and info, the
 * API docs.
 */
const OPEN = new Set([
  `POST ${MP}/oauth/token`, `GET ${MP}/oauth/token`, `POST ${MP}/oauth/check_token`, `POST ${MP}/oauth/introspect`,
  `POST ${MP}/oauth/revoke`, `GET ${MP}/oauth/token_key`, `GET ${MP}/.well-known/jwks.json`,
  `GET ${MP}/.well-known/oauth-authorization-server`, `GET ${MP}/oauth/authorize`, `POST ${MP}/oauth/login`, `POST ${MP}/oauth/authorize`,
  `GET ${MP}/content/:file`, `GET ${MP}/content/images/:file`, `GET ${MP}/login`, `POST ${MP}/login`, `GET ${MP}/language`, `POST ${MP}/logout`,
  `GET ${MP}/account/reset/request`, `POST ${MP}/account/reset/request`, `GET ${MP}/account/reset/finish`,
  `POST ${MP}/account/reset/finish`, `GET ${MP}/account/reset/done`, `GET ${MP}/activate`, `POST ${MP}/activate`, `GET ${MP}/activate/done`,
  `GET ${MP}/api/profile-info`, `GET ${MP}/api/sitesettings`, `GET ${MP}/api/public/projects`, `GET ${MP}/api/meta-token/:tokenName`,
  `GET ${MP}/api/activate`, `POST ${MP}/api/account/reset_password/init`, `POST ${MP}/api/account/reset_password/finish`,
  `POST ${MP}/api/logout`,
  'GET /actuator/health', 'GET /actuator/health/liveness', 'GET /actuator/health/readiness', 'GET /actuator/info',
  `GET ${MP}/management/health`, `GET ${MP}/management/health/liveness`, `GET ${MP}/management/health/readiness`, 'GET /swagger-ui.html',
  'GET /v3/api-docs', 'GET /v3/api-docs.yaml', 'GET /swagger-ui', 'GET /swagger-ui/static/index.html', 'GET /swagger-ui/static/swagger-initializer.js',
  'GET /swagger-ui/json', 'GET /swagger-ui/yaml', 'GET /swagger-ui/static/*', 'GET /java-docs/*', 'GET /java-docs/',
]);
/** Admin endpoints behind the admin basic auth: 401 to any bearer token as to none (checked in their own tests). */
const ADMIN_BASIC = new Set([
  'GET /actuator', 'GET /actuator/prometheus', 'GET /actuator/metrics', 'GET /actuator/metrics/:name',
  'GET /actuator/loggers', 'GET /actuator/loggers/:name', 'POST /actuator/loggers/:name',
]);
/** The admin web pages: the signed-in session, not a bearer token. */
const isAdminPage = (key: string) => { const url = key.split(' ')[1]!; return (url === MP || url.startsWith(`${MP}/`)) && !/^\/managementportal\/(api|management)\//.test(url); };
/** Bearer-API routes: what is neither open, nor behind basic auth, nor an admin page. */
const isBearerApi = (key: string) => !OPEN.has(key) && !ADMIN_BASIC.has(key) && !isAdminPage(key) && !/^\w+ \/(actuator|v3|swagger-ui|java-docs)(\/|$)/.test(key);

// ─── Setup ────────────────────────────────────────────────────────────────────────────────────

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
const perms = [...new Set(ROWS.map((r) => r.perm ?? 'none'))];
const clientIdOf = (perm: string, has: boolean) => `${has ? 'with' : 'without'}-${perm}`;

beforeAll(async () => {
  // One client for every principal's password grant (both audiences, every scope), and per
  // permission a client holding only it and one holding all the others.
  const clients = appserverClientsFile();
  const line = (id: string, scopes: string[], grants: string) => `${id};res_ManagementPortal,res_AppServer;secret;${scopes.join(',')};${grants};;;43200;7948800;{};\n`;
  appendFileSync(clients, line('matrix', SCOPES, 'password,refresh_token,client_credentials').replace('{};', '{"dynamic_registration":true};'));
  for (const perm of perms) {
    appendFileSync(clients, line(clientIdOf(perm, true), perm === 'none' ? ['MEASUREMENT.READ'] : [perm], 'client_credentials'));
    appendFileSync(clients, line(clientIdOf(perm, false), SCOPES.filter((s) => s !== perm), 'client_credentials'));
  }
  // The file upload is served only when enabled: on, into a temporary folder.
  const upload = { RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_TYPE: 'local', RADAR_STORAGE_LOCAL_PATH: UPLOADS };
  t = await buildTestApp(securedEnv({ MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: clients, MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, GITHUB_API_URL: 'http://127.0.0.1:9', ...upload }), {
    demoData: true, protocolSource: matrixProtocols(),
    onRoute: table.onRoute,
  });
  routes.push(...table.routes.filter((key) => !/^(HEAD|OPTIONS) /.test(key)));
  const mp = managementClient(t.app);
  await setPassword(db(), 'sub-1', 'Participant1');
  await setPassword(db(), 'sub-2', 'Participant1');
  tokens.sys = await passwordToken('admin', 'admin');
  tokens.org = await passwordToken('oadmin', 'oadmin');
  tokens.padmin = await passwordToken('padmin', 'padmin');
  tokens.participant = await passwordToken('sub-1', 'Participant1');
  tokens.otherParticipant = await passwordToken('sub-2', 'Participant1');
  Object.assign(logins, { sys: 'admin', org: 'oadmin', padmin: 'padmin', participant: 'sub-1', otherParticipant: 'sub-2' });
  for (const perm of perms) {
    const grant = async (id: string) => (await mp.token({ grant_type: 'client_credentials' }, basic(id, 'secret'))).access_token as string;
    clientTokens.set(perm, { with: await grant(clientIdOf(perm, true)), without: await grant(clientIdOf(perm, false)) });
  }

  // Project B in another organization, its admin, a subject and a source.
  radar = await sys('GET', '/api/projects/radar');
  e4 = await sys('GET', '/api/source-types/Empatica/E4/v1');
  foreign = await aProjectIn(db(), await anOrganization(db()), [e4.id]);
  third = await aProjectIn(db(), await anOrganization(db()));
  const otherAdmin = await mp.userWithRole('ROLE_PROJECT_ADMIN', { project: foreign.projectName });
  logins.otherPadmin = otherAdmin.login;
  tokens.otherPadmin = await passwordToken(otherAdmin.login, 'Passw0rd');
  const subB = (await sys('POST', '/api/subjects', { project: { id: foreign.id, projectName: foreign.projectName } })).login as string;
  const sourceB = (await sys('POST', '/api/sources', { sourceName: unique('device'), assigned: false, sourceType: { id: e4.id }, project: { id: foreign.id } })).sourceName as string;

  // Expired: the sys admin's own token, signed again by the app's key with `exp` in the past.
  const keys = await loadKeySet({ profile: 'dev', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} });
  const signing = createTokenSigning(keys);
  const claims = claimsOf(tokens.sys);
  const past = Math.floor(Date.now() / 1000) - 3600;
  tokens.expired = await signing.sign({ ...claims, iat: past - 60, exp: past });
  await signing.close();
  // Another key: the same header (key id) and live claims, signed by a key the app never had.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = `${b64(headerOf(tokens.sys))}.${b64(claims)}`;
  tokens.foreignKey = `${input}.${signBytes('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;

  // App server: A with sub-1 and sub-2, B with its subject; for sub-1 and B's subject a
  // notification, a data message and a task. The demo data may hold some already (417).
  for (const projectId of ['radar', foreign.projectName]) await sys('POST', '/projects', { projectId });
  const app: Record<string, { user: number; n: number; d: number; task: number }> = {};
  for (const [projectId, subjectId] of [['radar', 'sub-1'], ['radar', 'sub-2'], [foreign.projectName, subB]] as const) {
    await sys('POST', `/projects/${projectId}/users`, aUserBody({ subjectId }));
    const user = await sys('GET', `/projects/${projectId}/users/${subjectId}`);
    app[subjectId] = { user: user.id, ...(await messagesOf(projectId, subjectId, user.id)) };
  }
  const [appSub1] = await db().select().from(appUsers).where(eq(appUsers.id, app['sub-1']!.user));

  await sys('POST', '/api/projects/radar/groups', { name: 'matrix-group' });
  // A revision of sub-1 (the demo data has none).
  await sys('PUT', '/api/subjects', await sys('GET', '/api/subjects/sub-1'));
  sub1Dto = await sys('GET', '/api/subjects/sub-1');
  Object.assign(v, {
    A: 'radar', B: foreign.projectName, otherPadminLogin: otherAdmin.login, sub1: 'sub-1', subB, sourceB, group: 'matrix-group', padminLogin: 'padmin',
    sub1Revision: String((await sys('GET', '/api/subjects/sub-1/revisions'))[0].id),
    sub1Source: (sub1Dto.sources as Json[])[0]?.sourceName ?? 'x', sub1SourceId: (sub1Dto.sources as Json[])[0]?.sourceId ?? 'x',
    revision: String((await sys('GET', '/api/revisions'))[0].id),
    audit: String((await db().select().from(auditEvents).limit(1))[0]!.id),
    appA: String((await sys('GET', '/projects/radar')).id), appSub1: String(appSub1!.id),
    n1: String(app['sub-1']!.n), d1: String(app['sub-1']!.d), task1: String(app['sub-1']!.task),
  });
  roleOfA = await sys('GET', '/api/roles/radar/ROLE_PROJECT_ADMIN');
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(UPLOADS, { recursive: true, force: true });
});

// ─── The checks ───────────────────────────────────────────────────────────────────────────────

/** A's rows as the two APIs write them: its name, its subjects' logins. */
const markersOf = (subjects: string[], project?: string) => [
  ...(project ? [new RegExp(`"(projectName|projectId|project)":"${project}"`)] : []),
  ...subjects.map((s) => new RegExp(`"(login|subjectId|subjectLogin|userLogin|user)":"${s}"`)),
];
/** What each outsider must never see. */
const outsiders: Partial<Record<Who, () => RegExp[]>> = {
  otherPadmin: () => markersOf(['sub-1', 'sub-2'], 'radar'),
  otherParticipant: () => markersOf(['sub-1']),
  clientWithout: () => markersOf(['sub-1', 'sub-2']),
};
const figures = { cells: 0, refusedWrites: 0, leakCalls: 0, leaks: 0, sweepCalls: 0, sweepAnswered: 0 };
const leaks: string[] = [];
const refusals: string[] = [];

/**
 * A 401 or 403 in its domain's shape (managementportal.md §1, appserver.md §0): the management
 * API's `error.unauthorized` / `error.accessDenied` (ErrorVM, or the RadarWebApplicationException
 * body of a caller without an account), the app server's ErrorDetails with its status.
 */
function refusalProblem(domain: Domain, res: { status: number; body: Json }): string | null {
  if (res.status !== 401 && res.status !== 403) return null;
  const body = res.body ?? {};
  if (domain === 'appserver') return body.status === res.status && typeof body.message === 'string' && typeof body.path === 'string' ? null : `${res.status} body ${JSON.stringify(body)}`;
  const code = res.status === 401 ? 'error.unauthorized' : 'error.accessDenied';
  return body.message === code || body.errorCode === code ? null : `${res.status} body ${JSON.stringify(body)}`;
}

function checkLeak(who: Who, url: string, text: string) {
  const markers = outsiders[who]?.();
  if (!markers) return;
  figures.leakCalls++;
  const hit = markers.find((m) => m.test(text));
  if (hit) { figures.leaks++; leaks.push(`${who} ${url}: ${hit}`); }
}

describe('the table covers the route table', () => {
  it('every bearer-API route has a row, and every row names a route', () => {
    expect(routes.length).toBeGreaterThan(200);
    const all = new Set(routes);
    expect([...OPEN, ...ADMIN_BASIC].filter((k) => !all.has(k)), 'OPEN names a route that does not exist').toEqual([]);
    const rowed = new Set(ROWS.map((r) => urlOf(r.route)));
    expect(routes.filter((k) => isBearerApi(k) && !rowed.has(k)), 'routes without a row').toEqual([]);
    expect([...rowed].filter((k) => !all.has(k) || !isBearerApi(k)), 'rows without a route').toEqual([]);
  });

  it('every write row reads back what a refused call would have written', () => {
    const bare = ROWS.filter((r) => !r.route.startsWith('GET ') && r.watch === undefined && r.keeps === undefined && r.after === undefined);
    expect(bare.map(nameOf), 'write rows with no read-back (watch, keeps or after): a refused call there could write unseen').toEqual([]);
  });
});

describe('permission matrix: one row per route (and target), one column per principal', () => {
  it.each(ROWS.map((row) => [nameOf(row), row] as const))('%s', async (_name, row) => {
    const domain = domainOf(row.route);
    const base = domain === 'management' ? MP : '';
    const method = row.route.split(' ')[0]!;
    const got: Record<string, Letter> = {};
    const want: Record<string, Letter> = {};
    let shared: Fresh;
    for (const who of WHO) {
      want[who] = expected(row, who);
      // A permitted write gets its own target; the refused ones share one and must leave it as it was.
      const fresh = row.fresh ? (want[who] === 'y' || row.freshEach || shared === undefined ? await row.fresh(who) : shared) : undefined;
      if (row.fresh && want[who] !== 'y' && shared === undefined) shared = fresh;
      const path = typeof row.path === 'function' ? row.path(fresh, who) : fill(row.path ?? row.route.split(' ')[1]!);
      const watch = row.watch === undefined ? undefined : base + (typeof row.watch === 'function' ? row.watch(fresh) : fill(row.watch));
      // Read back around the calls the row refuses (a permitted call may change what it reads).
      const before = watch && want[who] !== 'y' ? (await inject('GET', watch, tokens.sys)).text : undefined;
      const kept = row.keeps && want[who] !== 'y' ? await row.keeps(fresh) : undefined;
      const res = await inject(method, base + path, bearerOf(row, who, fresh), row.body?.(fresh, who));
      figures.cells++;
      got[who] = letter(res.status, row.ok);
      await row.after?.(fresh, got[who] === 'y');
      if (got[who] !== 'y') {
        if (method !== 'GET') figures.refusedWrites++;
        if (before !== undefined) expect((await inject('GET', watch!, tokens.sys)).text, `${who}: a refused call changed ${watch}`).toBe(before);
        if (kept !== undefined) expect(await row.keeps!(fresh), `${who}: a refused call changed what ${nameOf(row)} writes`).toEqual(kept);
      }
      const refusal = refusalProblem(domain, res);
      if (refusal) refusals.push(`${nameOf(row)} ${who}: ${refusal}`);
      if (method === 'GET' && got[who] === 'y') checkLeak(who, path, res.text);
    }
    // One line per row, so a failure shows every cell.
    const line = (cells: Record<string, Letter>) => WHO.map((who) => `${who}:${cells[who]}`).join(' ');
    expect(line(got)).toBe(line(want));
  });

  it('0 leaks in what the outsiders were answered', () => {
    expect(leaks).toEqual([]);
  });

  it('every refusal carries its domain\'s body', () => {
    expect(refusals).toEqual([]);
  });
});

describe('no GET route leaks A\'s rows to an outsider calling with its own names', () => {
  /** The route's path with its parameters filled from `values` (unknown ones: `x`). */
  const pathOf = (url: string, values: Record<string, string>) => url.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));
  const sweep = async (who: Who, values: Record<string, string>, markers: RegExp[], bearer = tokens[who as 'sys']) => {
    const found: string[] = [];
    for (const key of routes) {
      const [method, url] = key.split(' ') as [string, string];
      if (method !== 'GET' || !isBearerApi(key)) continue;
      const res = await inject('GET', pathOf(url, values), bearer);
      figures.sweepCalls++;
      if (res.status < 200 || res.status >= 300) continue;
      figures.sweepAnswered++;
      const hit = markers.find((m) => m.test(res.text));
      if (hit) found.push(`${pathOf(url, values)}: ${hit}`);
    }
    return found;
  };
  const valuesOf = (project: string, subject: string) => ({
    projectId: project, projectName: project, name: project === 'radar' ? 'main' : 'x', subjectId: subject, login: subject,
    producer: 'Empatica', model: 'E4', version: 'v1', sourceDataName: 'EMPATICA_E4_v1_ACCELEROMETER', clientId: 'aRMT', authorityName: 'ROLE_PROJECT_ADMIN',
  });

  it('B\'s admin, with B\'s names; sub-2, with its own; a client holding only MEASUREMENT.READ, with A\'s', async () => {
    const found = [
      ...await sweep('otherPadmin', valuesOf(v.B!, v.subB!), outsiders.otherPadmin!()),
      ...await sweep('otherParticipant', valuesOf('radar', 'sub-2'), outsiders.otherParticipant!()),
      ...await sweep('clientWithout', valuesOf('radar', 'sub-1'), outsiders.clientWithout!(), clientTokens.get('none')!.with),
    ];
    figures.leaks += found.length;
    expect(found).toEqual([]);
  });

  it('the sweep can see a leak: the sys admin sees A\'s rows', async () => {
    // Guards the markers: if they never matched, the sweeps above could not fail.
    const before = { ...figures };
    expect((await sweep('sys', valuesOf('radar', 'sub-1'), markersOf(['sub-1'], 'radar'))).length).toBeGreaterThan(10);
    Object.assign(figures, { sweepCalls: before.sweepCalls, sweepAnswered: before.sweepAnswered });
  });
});

describe('every other route refuses no, expired and foreign-key tokens', () => {
  it('admin pages and admin endpoints: no page or answer without a session or basic auth', async () => {
    const wrong: string[] = [];
    for (const key of routes) {
      if (OPEN.has(key) || isBearerApi(key)) continue;
      const [method, url] = key.split(' ') as [string, string];
      for (const bearer of [undefined, tokens.expired, tokens.foreignKey]) {
        const res = await inject(method, url.replace(/:([A-Za-z]+)/g, 'x').replace(/\*$/, 'x'), bearer, method === 'GET' || method === 'DELETE' ? undefined : {});
        figures.cells++;
        const fine = ADMIN_BASIC.has(key) ? res.status === 401 : [302, 303, 401, 403].includes(res.status);
        if (!fine) wrong.push(`${key}: ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

afterAll(() => {
  const writes = ROWS.filter((r) => !r.route.startsWith('GET ')).length;
  console.log(`permission matrix: ${ROWS.length} rows over ${new Set(ROWS.map((r) => r.route)).size} bearer-API routes × ${WHO.length} principals, ${figures.cells} cells; `
    + `${writes} write rows read back after every refused call (${figures.refusedWrites}); `
    + `${figures.leakCalls} outsider reads answered in the table and ${figures.sweepCalls} swept (${figures.sweepAnswered} answered 2xx), ${figures.leaks} leaks`);
});
