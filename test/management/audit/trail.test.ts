/**
 * The audit trail (issue 31 item 8) over HTTP: sign-ins (failures, lock-out, success) with actor
 * and address, sign-out and session expiry, entity changes with their changed fields and no
 * secret, no event of a rolled-back change, the filters with keyset paging and CSV, retention, and
 * nothing lost on a clean shutdown. The management domain's clock is moved instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { buildTestApp, testDatabase, type TestApp } from '../../helpers/build-test-app.js';
import { leasePglite } from '../../helpers/pglite-pool.js';
import { managementClient, unique, type Json } from '../../helpers/management-api.js';
import { uiClient } from '../../helpers/ui-client.js';
import { startSmtpServer, type SmtpStub } from '../../helpers/smtp.js';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { recordInTx } from '../../../src/management/audit/audit-log.js';
import { diffFields } from '../../../src/management/audit/changes.js';
import { auditRetentionJob, retentionCutoff } from '../../../src/management/audit/retention.js';
import { auditEvents, users } from '../../../src/management/schema.js';

const MINUTE = 60_000;
const ADDRESS = '203.0.113.7';
let offset = 0;
let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let smtp: SmtpStub;

beforeAll(async () => {
  // A mail server: ACTIVATION_MAIL_SENT is recorded only when a mail goes.
  smtp = await startSmtpServer();
  t = await buildTestApp(
    { MANAGEMENTPORTAL_OAUTH_FAILED_ATTEMPTS_PER_MINUTE: '3', TRUST_PROXY: 'true', SMTP_URL: smtp.url },
    { managementNow: () => Date.now() + offset },
  );
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** The stored events of a principal or target, oldest first (after the batched writer's flush, which the API read does). */
async function eventsOf(where: { principal?: string; targetType?: string; targetId?: string }) {
  await mp.call('GET', '/management/audits?size=1', { bearer: admin });
  return t.app.db.db.select().from(auditEvents).where(and(
    where.principal ? eq(auditEvents.principal, where.principal) : undefined,
    where.targetType ? eq(auditEvents.targetType, where.targetType) : undefined,
    where.targetId ? eq(auditEvents.targetId, where.targetId) : undefined,
  )).orderBy(asc(auditEvents.id));
}

/** Not the events of the token `userWithRole` gets (a password grant). */
const signInPages = (e: typeof auditEvents.$inferSelect) => e.eventType !== 'GRANT_ACCESS_TOKEN' && e.data.via !== 'password grant';

describe('sign-ins', () => {
  it('records failures, the lock-out and the success with actor and address, then sign-out', async () => {
    offset = 0;
    const { login } = await mp.userWithRole('ROLE_SYS_ADMIN');
    const ui = uiClient(t.app, '/managementportal', { 'x-forwarded-for': ADDRESS });
    for (let i = 0; i < 3; i++) expect((await ui.signIn(login, 'wrong')).status).toBe(400);
    expect((await ui.signIn(login, 'Passw0rd')).status).toBe(429);
    offset = 2 * MINUTE; // the limiter's minute is over
    expect((await ui.signIn(login, 'Passw0rd')).status).toBe(303);
    const page = await ui.get('/');
    expect((await ui.post('/logout', { _csrf: /name="_csrf" value="([^"]*)"/.exec(page.body)![1]! })).status).toBe(303);

    const events = (await eventsOf({ principal: login })).filter(signInPages);
    expect(events.map((e) => [e.eventType, e.actorAddress, e.targetType, e.targetId])).toEqual([
      ...Array.from({ length: 3 }, () => ['AUTHENTICATION_FAILURE', ADDRESS, 'user', login]),
      ['AUTHENTICATION_LOCKED', ADDRESS, 'user', login],
      ['AUTHENTICATION_SUCCESS', ADDRESS, 'user', login],
      ['LOGOUT', ADDRESS, 'user', login],
    ]);
    expect(events[0]!.data).toEqual({ remoteAddress: ADDRESS, via: 'admin UI', message: 'Bad credentials' });
    // The management endpoint answers in the reference's shape.
    const api = await mp.call('GET', `/management/audits?principal=${login}&type=AUTHENTICATION_FAILURE&size=100&sort=id,asc`, { bearer: admin });
    expect(api.status).toBe(200);
    expect(api.body).toEqual(events.slice(0, 3).map((e) => ({ timestamp: e.eventDate.toISOString(), principal: login, type: 'AUTHENTICATION_FAILURE', data: e.data })));
  });

  it('records password grants as sign-ins', async () => {
    offset = 0;
    const { login } = await mp.userWithRole('ROLE_SYS_ADMIN'); // its token: one success
    expect((await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'nope' })).status).toBe(400);
    const events = await eventsOf({ principal: login });
    expect(events.filter((e) => e.eventType.startsWith('AUTHENTICATION')).map((e) => [e.eventType, e.data.via, e.data.clientId])).toEqual([
      ['AUTHENTICATION_SUCCESS', 'password grant', 'ManagementPortalapp'],
      ['AUTHENTICATION_FAILURE', 'password grant', 'ManagementPortalapp'],
    ]);
  });

  it('records an expired session once, when its cookie comes back', async () => {
    offset = 0;
    const { login } = await mp.userWithRole('ROLE_SYS_ADMIN');
    const ui = uiClient(t.app);
    expect((await ui.signIn(login, 'Passw0rd')).status).toBe(303);
    const cookie = ui.jar.get('mp_oauth_session')!;
    offset = 31 * MINUTE; // idle past MANAGEMENTPORTAL_UI_SESSION_TIMEOUT (PT30M)
    expect((await ui.get('/')).status).toBe(303);
    ui.jar.set('mp_oauth_session', cookie);
    expect((await ui.get('/')).status).toBe(303);
    expect((await eventsOf({ principal: login })).filter(signInPages).map((e) => e.eventType)).toEqual(['AUTHENTICATION_SUCCESS', 'SESSION_EXPIRED']);
  });
});

describe('changes', () => {
  it('records create, update and delete with the fields changed, in the change\'s transaction', async () => {
    offset = 0;
    const name = unique('org');
    const created = await mp.call('POST', '/api/organizations', { bearer: admin, body: { name, description: 'first', location: 'here' }, headers: { 'x-forwarded-for': ADDRESS } });
    expect(created.status).toBe(201);
    expect((await mp.call('PUT', '/api/organizations', { bearer: admin, body: { ...created.body, description: 'second' } })).status).toBe(200);
    // Refused (409): nothing recorded.
    expect((await mp.call('POST', '/api/organizations', { bearer: admin, body: { name, description: 'again', location: 'x' } })).status).toBe(409);
    const project = await mp.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('p'), description: 'd', location: 'l', organizationName: name } });
    expect(project.status).toBe(201);
    expect((await mp.call('DELETE', `/api/projects/${project.body.projectName}`, { bearer: admin })).status).toBe(200);

    const org = await eventsOf({ targetType: 'organization', targetId: name });
    expect(org.map((e) => ({ type: e.eventType, principal: e.principal, address: e.actorAddress, changes: e.changes, data: e.data }))).toEqual([
      {
        type: 'ENTITY_CREATED', principal: 'admin', address: ADDRESS, data: { entityType: 'organization', entityId: String(created.body.id), target: name },
        changes: { id: { new: created.body.id }, name: { new: name }, description: { new: 'first' }, location: { new: 'here' }, projects: { new: [] } },
      },
      {
        type: 'ENTITY_UPDATED', principal: 'admin', address: '127.0.0.1', data: { entityType: 'organization', entityId: String(created.body.id), target: name },
        changes: { description: { old: 'first', new: 'second' } },
      },
    ]);
    const projectEvents = await eventsOf({ targetType: 'project', targetId: project.body.projectName });
    expect(projectEvents.map((e) => e.eventType)).toEqual(['ENTITY_CREATED', 'ENTITY_DELETED']);
    expect(projectEvents[1]!.changes!.projectName).toEqual({ old: project.body.projectName });
  });

  it('records users and subjects without any secret', async () => {
    const login = unique('someone');
    const user = await mp.call('POST', '/api/users', { bearer: admin, body: { login, email: `${login}@example.org`, firstName: 'A', lastName: 'B', langKey: 'en', roles: [] } });
    expect(user.status).toBe(201);
    const events = await eventsOf({ targetType: 'user', targetId: login });
    expect(events.map((e) => e.eventType)).toEqual(['ENTITY_CREATED']);
    expect(events[0]!.changes!.login).toEqual({ new: login });
    expect(JSON.stringify(events)).not.toMatch(/password|resetKey|activationKey|\$2[aby]\$/i);
  });

  it('records OAuth clients and their new secrets, never the secret', async () => {
    const clientId = unique('client');
    const body = { clientId, clientSecret: 'first-s3cret', scope: ['SUBJECT.READ'], resourceIds: ['res_ManagementPortal'], authorizedGrantTypes: ['client_credentials'] };
    expect((await mp.call('POST', '/api/oauth-clients', { bearer: admin, body })).status).toBe(201);
    expect((await mp.call('PUT', '/api/oauth-clients', { bearer: admin, body: { ...body, clientSecret: 'second-s3cret', scope: ['SUBJECT.READ', 'PROJECT.READ'] } })).status).toBe(200);
    expect((await mp.call('DELETE', `/api/oauth-clients/${clientId}`, { bearer: admin })).status).toBe(200);
    const events = await eventsOf({ targetType: 'oauthClient', targetId: clientId });
    expect(events.map((e) => e.eventType)).toEqual(['ENTITY_CREATED', 'SECRET_GENERATED', 'ENTITY_UPDATED', 'SECRET_GENERATED', 'ENTITY_DELETED']);
    expect(events[2]!.changes!.scope).toEqual({ old: ['SUBJECT.READ'], new: ['SUBJECT.READ', 'PROJECT.READ'] });
    expect(JSON.stringify(events)).not.toMatch(/s3cret|\$2[aby]\$/);
  });

  it('records groups: create, subjects added, delete', async () => {
    const project = await mp.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('p'), description: 'd', location: 'l', organizationName: 'main' } });
    const projectName = project.body.projectName as string;
    const subject = await mp.subjectIn(project.body, admin);
    expect((await mp.call('POST', `/api/projects/${projectName}/groups`, { bearer: admin, body: { name: 'g1' } })).status).toBe(201);
    expect((await mp.call('PATCH', `/api/projects/${projectName}/groups/g1/subjects`, { bearer: admin, body: [{ op: 'add', value: [{ login: subject.login }] }] })).status).toBe(204);
    expect((await mp.call('DELETE', `/api/projects/${projectName}/groups/g1?unlinkSubjects=true`, { bearer: admin })).status).toBe(204);
    const events = await eventsOf({ targetType: 'group', targetId: `${projectName}/g1` });
    expect(events.map((e) => [e.eventType, e.changes?.name ?? e.changes?.subjectsAdded])).toEqual([
      ['ENTITY_CREATED', { new: 'g1' }], ['ENTITY_UPDATED', { new: [subject.login] }], ['ENTITY_DELETED', { old: 'g1' }],
    ]);
  });

  it('records a password change and an activation mail, without the password', async () => {
    const user = await mp.userWithRole('ROLE_SYS_ADMIN');
    expect((await mp.call('POST', '/api/account/change_password', { bearer: user.token, body: 'Zzzzzzz9x', headers: { 'x-forwarded-for': ADDRESS } })).status).toBe(204);
    const login = unique('new');
    expect((await mp.call('POST', '/api/users', { bearer: admin, body: { login, email: `${login}@example.org`, langKey: 'en', roles: [] } })).status).toBe(201);
    expect((await mp.call('POST', '/api/account/reset-activation/init', { bearer: admin, body: login })).status).toBe(204);
    expect((await eventsOf({ principal: user.login })).filter((e) => e.eventType === 'PASSWORD_CHANGED').map((e) => [e.actorAddress, e.targetId, e.data]))
      .toEqual([[ADDRESS, user.login, {}]]);
    const mails = (await eventsOf({ targetType: 'user', targetId: login })).filter((e) => e.eventType === 'ACTIVATION_MAIL_SENT');
    expect(mails.map((e) => [e.principal, e.data])).toEqual([['admin', { login }]]);
    expect(JSON.stringify(await eventsOf({ targetType: 'user', targetId: user.login }))).not.toContain('Zzzzzzz9x');
  });

  it('records source types and source data with the actor\'s address', async () => {
    const model = unique('model');
    const data = { sourceDataType: 'ACCELEROMETER', sourceDataName: unique('data'), processingState: 'RAW', keySchema: 'K', valueSchema: 'V', topic: unique('topic'), unit: 'G', frequency: '50' };
    const type = { producer: 'Acme', model, catalogVersion: '1.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: false, sourceData: [data] };
    const forwarded = { 'x-forwarded-for': ADDRESS };
    const created = await mp.call('POST', '/api/source-types', { bearer: admin, body: type, headers: forwarded });
    expect(created.status).toBe(201);
    const more = { ...data, sourceDataName: unique('data'), topic: unique('topic'), sourceType: { id: created.body.id } };
    expect((await mp.call('POST', '/api/source-data', { bearer: admin, body: more, headers: forwarded })).status).toBe(201);
    expect((await mp.call('DELETE', `/api/source-types/Acme/${model}/1.0`, { bearer: admin, headers: forwarded })).status).toBe(200);
    const events = await eventsOf({ targetType: 'sourceType' });
    const ours = events.filter((e) => e.data.entityId === String(created.body.id));
    expect(ours.map((e) => [e.eventType, e.principal, e.actorAddress])).toEqual([
      ['ENTITY_CREATED', 'admin', ADDRESS], ['ENTITY_UPDATED', 'admin', ADDRESS], ['ENTITY_DELETED', 'admin', ADDRESS],
    ]);
  });

  it('records a finished password reset with the address of the key\'s holder', async () => {
    const user = await mp.userWithRole('ROLE_SYS_ADMIN');
    expect((await mp.call('POST', '/api/account/reset_password/init', { body: `${user.login}@example.org` })).status).toBe(204);
    const [row] = await t.app.db.db.select({ resetKey: users.resetKey }).from(users).where(eq(users.login, user.login));
    const finished = await mp.call('POST', '/api/account/reset_password/finish', { body: { key: row!.resetKey, newPassword: 'Yyyyyyy8x' }, headers: { 'x-forwarded-for': ADDRESS } });
    expect(finished.status).toBe(204);
    const resets = (await eventsOf({ principal: user.login })).filter((e) => e.eventType === 'PASSWORD_RESET');
    expect(resets.map((e) => [e.actorAddress, e.targetId])).toEqual([[ADDRESS, user.login]]);
    expect(JSON.stringify(resets)).not.toContain('Yyyyyyy8x');
  });

  it('leaves secrets out of any diff, by name and at any depth', () => {
    expect(diffFields(
      { passwordHash: 'x', clientSecret: 'a', name: 'n', nested: { resetKey: 'k', ok: 1 } },
      { passwordHash: 'y', clientSecret: 'b', name: 'm', nested: { resetKey: 'l', ok: 2 }, sourceTypeId: 3 },
    )).toEqual({
      passwordHash: { redacted: true }, clientSecret: { redacted: true }, name: { old: 'n', new: 'm' },
      nested: { old: { ok: 1 }, new: { ok: 2 } }, sourceTypeId: { new: 3 },
    });
  });

  it('writes nothing of a change that rolls back', async () => {
    const principal = unique('rolled-back');
    await expect(t.app.db.db.transaction(async (tx) => {
      await recordInTx(tx, { principal, type: 'ENTITY_UPDATED', data: {} });
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    expect(await eventsOf({ principal })).toEqual([]);
  });
});

describe('/audits filters', () => {
  const target = unique('target');
  beforeAll(async () => {
    await t.app.db.db.insert(auditEvents).values(Array.from({ length: 25 }, (_, i) => ({
      principal: i % 2 ? 'alice' : 'bob', eventType: 'ENTITY_UPDATED', targetType: 'subject', targetId: target,
      data: { n: String(i) }, actorAddress: '198.51.100.1', changes: { name: { old: `=${i}`, new: `v"${i}` } },
    })));
  });

  it('filters a target\'s events by date (the dates compared as an expression when a target is named)', async () => {
    const dated = unique('dated');
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    await t.app.db.db.insert(auditEvents).values([10, 5, 1].map((n) => ({
      principal: 'carol', eventType: 'ENTITY_UPDATED', targetType: 'subject', targetId: dated, eventDate: daysAgo(n), data: { daysAgo: String(n) },
    })));
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const daysOf = async (query: string) => {
      const res = await mp.call('GET', `/management/audits?targetType=subject&target=${dated}${query}`, { bearer: admin });
      expect(res.status).toBe(200);
      return (res.body as Json[]).map((e) => e.data.daysAgo);
    };
    expect(await daysOf('')).toEqual(['10', '5', '1']);
    expect(await daysOf(`&fromDate=${day(daysAgo(6))}`)).toEqual(['5', '1']);
    expect(await daysOf(`&fromDate=${day(daysAgo(6))}&toDate=${day(daysAgo(3))}`)).toEqual(['5']);
  });

  it('filters the management endpoint by target, kind and actor', async () => {
    const res = await mp.call('GET', `/management/audits?targetType=subject&target=${target}&principal=alice&type=ENTITY_UPDATED&size=100`, { bearer: admin });
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('12');
    expect(new Set((res.body as Json[]).map((e) => e.principal))).toEqual(new Set(['alice']));
  });

  it('pages the admin page by keyset and exports the filtered events as CSV', async () => {
    const ui = uiClient(t.app);
    offset = 0;
    await ui.signIn();
    const first = await ui.get(`/audits?targetType=subject&target=${target}`);
    expect(first.status).toBe(200);
    expect(first.body.match(/<tr>/g)).toHaveLength(21); // header and 20
    const next = /href="([^"]*before=\d+[^"]*)"/.exec(first.body)![1]!.replaceAll('&amp;', '&');
    const second = await ui.get(next);
    expect(second.body.match(/<tr>/g)).toHaveLength(6);
    expect(second.body).toContain('name: &quot;=0&quot; → &quot;v\\&quot;0&quot;');

    const csv = await ui.get(`/audits.csv?targetType=subject&target=${target}&principal=bob`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,timestamp,principal,type,address,targetType,target,data,changes');
    expect(lines).toHaveLength(1 + 13);
    expect(lines[13]).toMatch(/^"\d+","[^"]+","bob","ENTITY_UPDATED","198.51.100.1","subject","[^"]+","{""n"":""0""}","{""name"":{""new"":""v\\""0"",""old"":""=0""}}"$/);
  });

  it('refuses the export to a user without AUDIT.READ', async () => {
    const { login } = await mp.userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' });
    const ui = uiClient(t.app);
    await ui.signIn(login, 'Passw0rd');
    expect((await ui.get('/audits.csv')).status).toBe(403);
  });
});

describe('MANAGEMENTPORTAL_AUDIT_RETENTION', () => {
  it('is an ISO-8601 period, unset by default', () => {
    expect(loadConfig({ PROFILE: 'dev' }, 'test').managementportalAuditRetention).toBeUndefined();
    expect(loadConfig({ PROFILE: 'dev', MANAGEMENTPORTAL_AUDIT_RETENTION: 'P1Y2M3W4DT5H' }, 'test').managementportalAuditRetention)
      .toEqual({ years: 1, months: 2, days: 25, seconds: 5 * 3600 });
    expect(() => loadConfig({ PROFILE: 'dev', MANAGEMENTPORTAL_AUDIT_RETENTION: '90 days' }, 'test')).toThrow(/MANAGEMENTPORTAL_AUDIT_RETENTION/);
    expect(retentionCutoff(new Date('2024-03-31T12:00:00Z'), { years: 0, months: 0, days: 90, seconds: 0 })).toEqual(new Date('2024-01-01T12:00:00Z'));
  });

  it('purges the events older than the period', async () => {
    const principal = unique('old');
    const now = new Date('2030-06-01T00:00:00Z');
    await t.app.db.db.insert(auditEvents).values(['2030-02-28T23:59:59Z', '2030-03-03T00:00:01Z', '2030-05-31T00:00:00Z']
      .map((d) => ({ principal, eventType: 'LOGOUT', eventDate: new Date(d), data: {} })));
    const removed = await auditRetentionJob({ years: 0, months: 3, days: 0, seconds: 0 }).run(t.app.db.db, now);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect((await eventsOf({ principal })).map((e) => e.eventDate.toISOString())).toEqual(['2030-03-03T00:00:01.000Z', '2030-05-31T00:00:00.000Z']);
  });
});

describe('shutdown', () => {
  it('writes the queued sign-in events when the app closes', async () => {
    const database = await testDatabase();
    const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', ...database.env }, '0.0.0-test');
    const login = unique('nobody');
    let read: () => Promise<string[]>;
    let done: () => Promise<void>;
    let pglite;
    if (config.database.kind === 'pglite') {
      const lease = await leasePglite(() => database.pgliteDataDir!);
      pglite = { client: lease.client, release: async () => {} }; // kept open to read after the close
      read = async () => (await lease.client.query<{ event_type: string }>('SELECT event_type FROM management.audit_events WHERE principal = $1', [login])).rows.map((r) => r.event_type);
      done = () => lease.release();
    } else {
      const { default: postgres } = await import('postgres');
      const sql = postgres(database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      read = async () => (await sql<{ event_type: string }[]>`SELECT event_type FROM management.audit_events WHERE principal = ${login}`).map((r) => r.event_type);
      done = async () => { await sql.end(); await database.drop(); };
    }
    const app = await buildApp(config, { logger: false, demoData: false, pgliteDataDir: database.pgliteDataDir, pglite });
    await app.ready();
    const res = await managementClient(app).token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password: 'x' });
    expect(res.status).toBe(400);
    await app.close();
    try {
      expect(await read()).toEqual(['AUTHENTICATION_FAILURE']);
    } finally {
      await done();
    }
  });
});
