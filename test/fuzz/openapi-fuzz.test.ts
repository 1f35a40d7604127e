/**
 * The OpenAPI-driven fuzzer (issue 22 item 1): every operation of `/v3/api-docs`, as an admin, as
 * a participant and with no credentials, with valid, boundary and malformed requests (see
 * arbitraries.ts). Every reply must hold the oracle (oracle.ts): no 5xx, a documented status and
 * body, the domain's error body on a 4xx. The document is held against the app's route table: every
 * route is an operation and was reached by a fuzz request, but for test/helpers/route-table.ts's
 * NOT_IN_DOCUMENT list.
 *
 * A fixed seed in CI. `FUZZ_RUNS` (requests per operation and principal, default 12) runs longer,
 * `FUZZ_SEED` replays a run, `FUZZ_ONLY` (a substring of `METHOD /path`) narrows it. Deletes run
 * last, so the seeded rows are there for the other operations. A failure prints the seed, the
 * fast-check path and the exact request; tokens show as `<admin>`/`<participant>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { documentCoverage, documentKey, NOT_IN_DOCUMENT, routeTable } from '../helpers/route-table.js';
import { appserverTokens, callAs, securedEnv } from '../helpers/appserver-auth.js';
import { basic, managementClient } from '../helpers/management-api.js';
import { startGithubStub, type GithubStub } from '../helpers/github-stub.js';
import { startSmtpServer, type SmtpStub } from '../helpers/smtp.js';
import { aParticipant, aProject } from '../fixtures/management.js';
import { aDataMessage, aNotification, aUserBody, expectStatus, unique } from '../fixtures/appserver.js';
import { aProtocolText } from '../fixtures/protocols.js';
import { oneIn, requestFor, Schemas, type FuzzRequest, type Operation, type Schema } from './arbitraries.js';
import { Oracle } from './oracle.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_126);
const ONLY = process.env.FUZZ_ONLY;

type Principal = 'admin' | 'participant' | 'none';
const PRINCIPALS: readonly Principal[] = ['admin', 'participant', 'none'];

let t: TestApp;
let github: GithubStub;
let smtp: SmtpStub;
let doc: Schema;
let uploads: string | undefined;
/** The app's route table, and per route the requests it answered (the fuzzer's only: cleared after the seeding). */
const table = routeTable({ countRequests: true });
/** Per principal: a bearer for the management API (every scope its roles allow), one for the app server, client and actuator credentials. */
const credentials = {} as Record<Principal, { management?: string; appserver?: string; client?: string; actuator?: string }>;
/** Values the seed data holds, by parameter name, so that requests reach past the 404s. */
const known: Record<string, string[]> = {};

beforeAll(async () => {
  github = await startGithubStub();
  smtp = await startSmtpServer();
  uploads = mkdtempSync(join(tmpdir(), 'fuzz-uploads-'));
  // The file upload is served only when enabled: on, into a temporary folder, so it is fuzzed too.
  const upload = { RADAR_FILE_UPLOAD_ENABLED: 'true', RADAR_STORAGE_TYPE: 'local', RADAR_STORAGE_LOCAL_PATH: uploads, RADAR_FILE_UPLOAD_MAX_SIZE: '64KB' };
  t = await buildTestApp(securedEnv({ GITHUB_API_URL: github.url, SMTP_URL: smtp.url, ...upload }), { onRoute: table.onRoute });
  doc = (await t.app.inject('/v3/api-docs')).json();
  const db = t.app.db.db;
  const tokens = appserverTokens(t.app);
  const mp = managementClient(t.app);
  const project = await aProject(db, unique('fuzz'));
  github.setFiles({ [`${project.projectName}/protocol.json`]: aProtocolText(project.projectName) });
  // A system admin of its own: the fuzzer may change the built-in admin's roles and password.
  const admin = await tokens.user('ROLE_SYS_ADMIN');
  const participant = await tokens.participant(project);
  const other = await aParticipant(db, { project, password: 'Passw0rd' });
  const adminBearer = await mp.tokenOf(admin.login, 'Passw0rd');
  credentials.admin = { management: adminBearer, appserver: admin.access, client: basic('appserver_test', 'secret'), actuator: basic(t.config.adminUser, t.config.adminPassword) };
  credentials.participant = { management: await mp.tokenOf(participant.login, 'Passw0rd'), appserver: participant.access, client: basic('aRMT', '') };
  credentials.none = {};

  // The app server's side of the project: users, a notification, a data message, a schedule.
  expectStatus(await callAs(t.app, admin.access, 'POST', '/projects', { projectId: project.projectName }), 201);
  for (const subjectId of [participant.login, other.login]) {
    expectStatus(await callAs(t.app, admin.access, 'POST', `/projects/${project.projectName}/users`, aUserBody({ subjectId })), 201);
  }
  const base = `/projects/${project.projectName}/users/${participant.login}`;
  const notification = expectStatus(await callAs(t.app, admin.access, 'POST', `${base}/messaging/notifications`, aNotification()), 201);
  const message = expectStatus(await callAs(t.app, admin.access, 'POST', `${base}/messaging/data`, aDataMessage()), 201);
  const schedule = await callAs(t.app, admin.access, 'GET', `${base}/questionnaire/schedule`);
  const taskIds = schedule.statusCode === 200 ? (schedule.json() as { id?: number }[]).map((task) => String(task.id)).slice(0, 2) : [];
  const group = await mp.call('POST', `/api/projects/${project.projectName}/groups`, { bearer: adminBearer, body: { name: 'fuzzgroup' } });
  const sources = await mp.call('GET', `/api/subjects/${other.login}/sources`, { bearer: adminBearer });
  const sourceType = (await mp.call('GET', '/api/source-types', { bearer: adminBearer })).body?.[0];
  const sourceData = (await mp.call('GET', '/api/source-data', { bearer: adminBearer })).body?.[0];
  const pair = await mp.call('GET', `/api/oauth-clients/pair?clientId=aRMT&login=${other.login}&persistent=true`, { bearer: adminBearer });
  Object.assign(known, {
    projectId: [project.projectName, String(project.id)],
    projectName: [project.projectName, 'radar'],
    subjectId: [participant.login, other.login],
    login: [participant.login, other.login, 'admin'],
    id: [String(notification.id), String(message.id), '1'],
    notificationId: [String(notification.id)],
    taskId: taskIds,
    name: ['main'],
    groupName: group.status === 201 ? ['fuzzgroup'] : [],
    clientId: ['aRMT', 'appserver_test', 'ManagementPortalapp'],
    sourceName: (sources.body ?? []).map((s: { sourceName: string }) => s.sourceName),
    producer: sourceType ? [sourceType.producer] : [],
    model: sourceType ? [sourceType.model] : [],
    version: sourceType ? [sourceType.catalogVersion] : [],
    sourceDataName: sourceData ? [sourceData.sourceDataName] : [],
    tokenName: pair.status === 200 ? [new URL(pair.body.tokenUrl).pathname.split('/').pop()!] : [],
    authorityName: ['ROLE_PROJECT_ADMIN', 'ROLE_PARTICIPANT'],
    revisionNb: ['1', '2'],
    client_id: ['aRMT', 'appserver_test'],
    repo: ['RADAR-base/RADAR-aRMT-protocols'],
    topicId: ['questionnaire_photo', 'audio_recording'],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await github?.close();
  await smtp?.close();
  if (uploads) rmSync(uploads, { recursive: true, force: true });
});

/** The document's operations; deletes last, so that the rows they remove serve the others first. */
function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const mediaTypes = Object.keys(content ?? {});
      ops.push({ method, path, parameters: op.parameters ?? [], body: content ? { schema: content[mediaTypes[0]!]!.schema, mediaTypes } : undefined });
    }
  }
  return ops.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
}

/** The principal's credentials in the form the path takes. */
function authorization(principal: Principal, path: string): string | undefined {
  const c = credentials[principal];
  if (path.startsWith('/actuator')) return c.actuator;
  if (/^\/managementportal\/oauth\/(token|check_token|introspect|revoke)$/.test(path)) return c.client;
  const bearer = path.startsWith('/managementportal/') ? c.management : c.appserver;
  return bearer === undefined ? undefined : `Bearer ${bearer}`;
}

const JUNK_AUTH = ['Bearer', 'Bearer ', 'Bearer x.y.z', 'Basic', 'Basic %%%', 'Basic Og==', 'Negotiate abc', `Bearer ${'a'.repeat(9000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.'];

/** The request as a reader can replay it: tokens by name, long texts shortened. */
function describeRequest(req: FuzzRequest): string {
  const secrets = Object.entries(credentials).flatMap(([name, c]) => Object.values(c).filter(Boolean).map((value) => [String(value), `<${name}>`] as const));
  let text = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.payload }, null, 1);
  for (const [value, name] of secrets) text = text.replaceAll(value.replace(/^(Bearer|Basic) /, ''), name);
  return text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text;
}

describe('fuzzing every operation of /v3/api-docs', () => {
  it('answers every request with a documented status and body, the domain\'s error body, and never a 5xx', async () => {
    const started = performance.now();
    table.answered.clear();
    const schemas = new Schemas(doc.components.schemas);
    const oracle = new Oracle(doc);
    const ops = operations().filter((op) => !ONLY || `${op.method.toUpperCase()} ${op.path}`.includes(ONLY));
    let sent = 0;
    let serverErrors = 0;
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const succeeded = new Set<string>();
    for (const op of ops) {
      for (const principal of PRINCIPALS) {
        const auth = authorization(principal, op.path);
        // One request in three is well-formed (known ids, values within the schemas), to get past the 400s and 404s.
        const clean = requestFor(op, schemas, known, true).map((req) => ({ req, junk: null }));
        const dirty = fc.tuple(requestFor(op, schemas, known), oneIn(12, fc.constantFrom(...JUNK_AUTH))).map(([req, junk]) => ({ req, junk }));
        const request = fc.oneof(clean, dirty, dirty).map(({ req, junk }): FuzzRequest => {
          const value = junk ?? auth;
          return { ...req, headers: { ...req.headers, ...(value === undefined ? {} : { authorization: value }) } };
        });
        let lastProblems: string[] = [];
        const seed = (SEED + hash(`${op.method} ${op.path} ${principal}`)) | 0;
        const result = await fc.check(fc.asyncProperty(request, async (req) => {
          const reply = await t.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });
          sent++;
          if (reply.statusCode >= 500) serverErrors++;
          statuses.set(reply.statusCode, (statuses.get(reply.statusCode) ?? 0) + 1);
          if (reply.statusCode < 300) succeeded.add(`${op.method.toUpperCase()} ${op.path}`);
          lastProblems = oracle.check(op.method, op.path, reply);
          return lastProblems.length === 0;
        }), { seed, numRuns: RUNS, endOnFailure: process.env.FUZZ_SHRINK !== '1' });
        if (result.failed) {
          failures.push([
            `${op.method.toUpperCase()} ${op.path} as ${principal}: ${lastProblems.join('; ')}`,
            `  replay: FUZZ_SEED=${SEED} FUZZ_ONLY='${op.method.toUpperCase()} ${op.path}' (property seed ${seed}, path ${result.counterexamplePath})`,
            `  request: ${describeRequest(result.counterexample![0] as FuzzRequest)}`,
            ...(lastProblems.length === 0 ? [`  error: ${String(result.errorInstance)}`] : []),
          ].join('\n'));
        }
      }
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`fuzz (${process.env.TEST_DB}): ${ops.length} operations × ${PRINCIPALS.length} principals, ${sent} requests, ${serverErrors} × 5xx, ${failures.length} failing, ${seconds.toFixed(1)} s (FUZZ_RUNS=${RUNS}, FUZZ_SEED=${SEED})\n`
      + `  statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(' ')}; ${succeeded.size} operations answered 2xx at least once\n`);
    if (process.env.FUZZ_VERBOSE) process.stdout.write(`  never 2xx: ${ops.map((op) => `${op.method.toUpperCase()} ${op.path}`).filter((key) => !succeeded.has(key)).join('\n    ')}\n`);
    if (failures.length > 0) process.stdout.write(`${failures.join('\n\n')}\n`);
    expect(failures.join('\n\n')).toBe('');
    expect(serverErrors).toBe(0);
  }, 600_000);

  /**
   * The document is what the fuzzer knows, so a route missing from it (hidden, or registered
   * without a schema) would never be fuzzed: hold the document against the app's route table.
   * Excused only: test/helpers/route-table.ts NOT_IN_DOCUMENT, each entry with its reason.
   */
  it.skipIf(ONLY)('fuzzed every route of the route table: each is an operation of the document, and each operation a route', () => {
    const coverage = documentCoverage(table.routes, doc);
    // Requests that reached the route itself (its hooks, validation or handler), not a 404 of the router.
    const reached = new Map<string, number>();
    for (const [route, n] of table.answered) reached.set(documentKey(route), (reached.get(documentKey(route)) ?? 0) + n);
    const notFuzzed = coverage.api.filter((key) => !reached.has(key));
    const fewest = Math.min(...coverage.api.map((key) => reached.get(key) ?? 0));
    process.stdout.write(`route table (${process.env.TEST_DB}): ${new Set(table.routes).size} routes, ${coverage.api.length} API routes (${coverage.notDocumented.length} missing from the document, ${notFuzzed.length} never reached, the fewest requests a route answered ${fewest}), `
      + `${coverage.excluded.length} left out by NOT_IN_DOCUMENT (${NOT_IN_DOCUMENT.map(({ route }) => `${route.source}: ${coverage.excluded.filter((key) => route.test(key)).length}`).join(', ')})\n`);
    expect(coverage.api.length).toBeGreaterThan(150);
    expect.soft(coverage.notDocumented, 'routes the app registers that are not operations of /v3/api-docs (never fuzzed)').toEqual([]);
    expect.soft(coverage.noRoute, 'operations of /v3/api-docs that no route serves').toEqual([]);
    expect.soft(coverage.documentedButExcluded, 'operations of /v3/api-docs on the NOT_IN_DOCUMENT list').toEqual([]);
    expect.soft(coverage.staleExclusions, 'NOT_IN_DOCUMENT entries that match no route').toEqual([]);
    expect.soft(notFuzzed, 'routes no fuzz request reached').toEqual([]);
  });
});

/** A stable 31-bit hash, so each property's seed depends on the run's seed and the operation only. */
function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h & 0x7fffffff;
}
