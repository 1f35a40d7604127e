/**
 * The dev profile's demo data (managementportal.md §9): what is stored, that the demo accounts
 * sign in with the password grant, and that loading it again (another start on the same
 * database) changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { managementClient } from '../helpers/management-api.js';
import { buildApp } from '../../src/app.js';
import { seedManagementDemoData } from '../../src/management/demo-data.js';
import {
  groups, organizations, projects, projectSourceTypes, roles, roleUsers, sourceData, sources, sourceTypes, subjects, users,
} from '../../src/management/schema.js';
import { executedRows, type Database } from '../../src/platform/database.js';
import { postgresProject, requires } from '../helpers/requires.js';

let t: TestApp;
let db: Database;
let mp: ReturnType<typeof managementClient>;

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  db = t.app.db.db;
  mp = managementClient(t.app);
});
afterAll(async () => { await t.close(); });

/** Every user's roles as `referent:AUTHORITY` (bare for global roles). */
async function rolesByLogin(): Promise<Map<string, string[]>> {
  const rows = await db.select({ login: users.login, authority: roles.authorityName, project: projects.projectName, organization: organizations.name })
    .from(roleUsers)
    .innerJoin(users, eq(users.id, roleUsers.userId))
    .innerJoin(roles, eq(roles.id, roleUsers.roleId))
    .leftJoin(projects, eq(projects.id, roles.projectId))
    .leftJoin(organizations, eq(organizations.id, roles.organizationId))
    .orderBy(asc(users.login), asc(roles.authorityName));
  const map = new Map<string, string[]>();
  for (const r of rows) {
    const referent = r.project ?? r.organization;
    map.set(r.login, [...(map.get(r.login) ?? []), referent ? `${referent}:${r.authority}` : r.authority]);
  }
  return map;
}

/** What the demo data consists of, ids resolved to names, for comparing two loads. */
async function snapshot() {
  const [u, r, p, g, s, st, sd, pst, so, ru] = await Promise.all([
    db.select().from(users).orderBy(users.id),
    db.select().from(roles).orderBy(roles.id),
    db.select().from(projects).orderBy(projects.id),
    db.select().from(groups).orderBy(groups.id),
    db.select().from(subjects).orderBy(subjects.id),
    db.select().from(sourceTypes).orderBy(sourceTypes.id),
    db.select().from(sourceData).orderBy(sourceData.id),
    db.select().from(projectSourceTypes).orderBy(projectSourceTypes.projectId, projectSourceTypes.sourceTypeId),
    db.select().from(sources).orderBy(sources.id),
    db.select().from(roleUsers).orderBy(roleUsers.userId, roleUsers.roleId),
  ]);
  // Sequences too: inserts that conflict would still use up ids.
  const seq = await db.execute(sql`select (select last_value from management.users_id_seq) as users,
    (select last_value from management.roles_id_seq) as roles, (select last_value from management.projects_id_seq) as projects,
    (select last_value from management.subjects_id_seq) as subjects, (select last_value from management.source_types_id_seq) as types,
    (select last_value from management.source_data_id_seq) as data, (select last_value from management.groups_id_seq) as groups`);
  return JSON.parse(JSON.stringify({ u, r, p, g, s, st, sd, pst, so, ru, seq: executedRows(seq) })) as unknown;
}

const RADAR_SUBJECTS = [1, 2, 3, ...Array.from({ length: 25 }, (_, i) => i + 5)]; // sub-1..3, sub-5..29
const PILOT_SUBJECTS = [4, ...Array.from({ length: 22 }, (_, i) => i + 30)]; // sub-4, sub-30..51

describe('demo data', () => {
  it('has the two projects of organization main', async () => {
    const rows = await db.select({
      projectName: projects.projectName, description: projects.description, location: projects.location,
      projectStatus: projects.projectStatus, organizationName: projects.organizationName, organization: organizations.name,
    }).from(projects).innerJoin(organizations, eq(organizations.id, projects.organizationId)).orderBy(projects.id);
    expect(rows).toEqual([
      { projectName: 'radar', description: 'RadarTest', location: 'London', projectStatus: 'PLANNING', organizationName: 'Radar-CNS', organization: 'main' },
      { projectName: 'Radar-Pilot-01', description: 'RadarTest2', location: 'Frieburg', projectStatus: 'PLANNING', organizationName: 'Radar-CNS', organization: 'main' },
    ]);
    const [main] = await db.select().from(organizations).where(eq(organizations.name, 'main'));
    expect(main).toMatchObject({ description: 'The main organization', location: '-' });
  });

  it('has the admin accounts with their roles', async () => {
    const byLogin = await rolesByLogin();
    expect(byLogin.get('admin')).toEqual(['ROLE_SYS_ADMIN']);
    expect(byLogin.get('padmin')).toEqual(['radar:ROLE_PROJECT_ADMIN']);
    expect(byLogin.get('padmin2')).toEqual(['Radar-Pilot-01:ROLE_PROJECT_ADMIN']);
    expect(byLogin.get('oadmin')).toEqual(['main:ROLE_ORGANIZATION_ADMIN']);
    const admins = await db.select({ login: users.login, email: users.email, activated: users.activated, firstName: users.firstName, lastName: users.lastName })
      .from(users).where(sql`${users.login} in ('padmin', 'padmin2', 'oadmin')`).orderBy(users.login);
    expect(admins).toEqual([
      { login: 'oadmin', email: 'oadmin@localhost', activated: true, firstName: 'Org', lastName: 'Admin' },
      { login: 'padmin', email: 'padmin@localhost', activated: true, firstName: null, lastName: null },
      { login: 'padmin2', email: 'padmin2@localhost', activated: true, firstName: null, lastName: null },
    ]);
  });

  it('has the 51 subjects in their projects, activated, without a password', async () => {
    const byLogin = await rolesByLogin();
    for (const n of RADAR_SUBJECTS) expect(byLogin.get(`sub-${n}`), `sub-${n}`).toEqual(['radar:ROLE_PARTICIPANT']);
    for (const n of PILOT_SUBJECTS) expect(byLogin.get(`sub-${n}`), `sub-${n}`).toEqual(['Radar-Pilot-01:ROLE_PARTICIPANT']);
    expect(RADAR_SUBJECTS.length + PILOT_SUBJECTS.length).toBe(51);

    const rows = await db.select({
      login: users.login, email: users.email, activated: users.activated, passwordHash: users.passwordHash,
      externalId: subjects.externalId, externalLink: subjects.externalLink, personName: subjects.personName,
      dateOfBirth: subjects.dateOfBirth, removed: subjects.removed,
    }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).orderBy(subjects.id);
    expect(rows).toHaveLength(51);
    expect(rows.map((r) => r.login)).toEqual(Array.from({ length: 51 }, (_, i) => `sub-${i + 1}`));
    for (const r of rows) {
      expect(r).toMatchObject({ email: `${r.login}@localhost`, activated: true, passwordHash: null, removed: false });
    }
    // subject.csv: the EXT_ patterns cycle (both, id only, link only, none), numbered from the previous subject.
    const ext = (login: string) => rows.find((r) => r.login === login)!;
    expect(ext('sub-1')).toMatchObject({ externalId: null, externalLink: null });
    expect(ext('sub-2')).toMatchObject({ externalId: 'EXT_ID_1', externalLink: 'EXT_LINK_1' });
    expect(ext('sub-3')).toMatchObject({ externalId: 'EXT_ID_2', externalLink: null });
    expect(ext('sub-4')).toMatchObject({ externalId: null, externalLink: 'EXT_LINK_3' });
    expect(ext('sub-5')).toMatchObject({ externalId: null, externalLink: null });
    expect(ext('sub-50')).toMatchObject({ externalId: 'EXT_ID_49', externalLink: 'EXT_LINK_49' });
    expect(ext('sub-51')).toMatchObject({ externalId: 'EXT_ID_50', externalLink: null });
    expect(rows.filter((r) => r.externalId).length).toBe(26);
    expect(rows.filter((r) => r.externalLink).length).toBe(25);
    // The reference's 20230908 update: a name on subjects 1–8, a date of birth on 1–4 and 9–12.
    expect(rows.filter((r) => r.personName === 'John Doe').map((r) => r.login)).toEqual(['sub-1', 'sub-2', 'sub-3', 'sub-4', 'sub-5', 'sub-6', 'sub-7', 'sub-8']);
    expect(rows.filter((r) => r.personName !== null)).toHaveLength(8);
    expect(rows.filter((r) => r.dateOfBirth === '1999-01-01').map((r) => r.login))
      .toEqual(['sub-1', 'sub-2', 'sub-3', 'sub-4', 'sub-9', 'sub-10', 'sub-11', 'sub-12']);
    expect(rows.filter((r) => r.dateOfBirth !== null)).toHaveLength(8);
  });

  it('has the groups of radar with their members', async () => {
    const rows = await db.select({ group: groups.name, project: projects.projectName, login: users.login })
      .from(subjects).innerJoin(users, eq(users.id, subjects.userId))
      .innerJoin(groups, eq(groups.id, subjects.groupId)).innerJoin(projects, eq(projects.id, groups.projectId))
      .orderBy(groups.name, subjects.id);
    expect(rows.filter((r) => r.group === 'Test Group A').map((r) => r.login)).toEqual(['sub-11', 'sub-12', 'sub-13', 'sub-15', 'sub-17']);
    expect(rows.filter((r) => r.group === 'Test Group B').map((r) => r.login)).toEqual(['sub-16', 'sub-18', 'sub-19', 'sub-20', 'sub-22']);
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => r.project))).toEqual(new Set(['radar']));
  });

  it('has the source types with their source data, linked to radar', async () => {
    const types = await db.select().from(sourceTypes).orderBy(sourceTypes.id);
    expect(types.map((st) => ({ producer: st.producer, model: st.model, catalogVersion: st.catalogVersion, scope: st.sourceTypeScope, dynamic: st.canRegisterDynamically })))
      .toEqual([
        { producer: 'Empatica', model: 'E4', catalogVersion: 'v1', scope: 'PASSIVE', dynamic: false },
        { producer: 'THINC-IT App', model: 'App', catalogVersion: 'v1', scope: 'ACTIVE', dynamic: true },
        { producer: 'RADAR', model: 'aRMT-App', catalogVersion: '1.5.0', scope: 'ACTIVE', dynamic: true },
      ]);
    const data = await db.select({ model: sourceTypes.model, name: sourceData.sourceDataName, type: sourceData.sourceDataType, topic: sourceData.topic, frequency: sourceData.frequency, unit: sourceData.unit })
      .from(sourceData).innerJoin(sourceTypes, eq(sourceTypes.id, sourceData.sourceTypeId)).orderBy(sourceData.id);
    expect(data.filter((d) => d.model === 'E4').map((d) => d.name)).toEqual([
      'EMPATICA_E4_v1_ACCELEROMETER', 'EMPATICA_E4_v1_BATTERY', 'EMPATICA_E4_v1_BLOOD_VOLUME_PULSE',
      'EMPATICA_E4_v1_ELECTRODERMAL_ACTIVITY', 'EMPATICA_E4_v1_INTER_BEAT_INTERVAL', 'EMPATICA_E4_v1_THERMOMETER',
    ]);
    expect(data.find((d) => d.name === 'EMPATICA_E4_v1_ACCELEROMETER')).toMatchObject({ type: 'ACCELEROMETER', topic: 'android_empatica_e4_acceleration', frequency: '32.0', unit: 'G' });
    expect(data.filter((d) => d.model === 'App')).toEqual([{ model: 'App', name: 'Thinc IT App QUESTIONNAIRE', type: 'QUESTIONNAIRE', topic: null, frequency: null, unit: null }]);
    expect(data).toHaveLength(7);

    const linked = await db.select({ project: projects.projectName, model: sourceTypes.model }).from(projectSourceTypes)
      .innerJoin(projects, eq(projects.id, projectSourceTypes.projectId)).innerJoin(sourceTypes, eq(sourceTypes.id, projectSourceTypes.sourceTypeId))
      .orderBy(sourceTypes.id);
    expect(linked).toEqual([{ project: 'radar', model: 'E4' }, { project: 'radar', model: 'App' }, { project: 'radar', model: 'aRMT-App' }]);
  });

  it('has source-1 of sub-1', async () => {
    const rows = await db.select({
      sourceId: sources.sourceId, sourceName: sources.sourceName, assigned: sources.assigned, deleted: sources.deleted,
      model: sourceTypes.model, project: projects.projectName, login: users.login,
    }).from(sources)
      .innerJoin(sourceTypes, eq(sourceTypes.id, sources.sourceTypeId)).innerJoin(projects, eq(projects.id, sources.projectId))
      .innerJoin(subjects, eq(subjects.id, sources.subjectId)).innerJoin(users, eq(users.id, subjects.userId));
    expect(rows).toEqual([{
      sourceId: '03d28e5c-e005-46d4-a9b3-279c27fbbc83', sourceName: 'source-1', assigned: true, deleted: false, model: 'E4', project: 'radar', login: 'sub-1',
    }]);
  });

  it('lets the demo admins sign in with the password grant of the admin UI client', async () => {
    const claims = async (login: string, password: string) => decodeJwt(await mp.tokenOf(login, password));
    expect((await claims('padmin', 'padmin'))).toMatchObject({ user_name: 'padmin', roles: ['radar:ROLE_PROJECT_ADMIN'], authorities: ['ROLE_PROJECT_ADMIN'] });
    expect((await claims('padmin2', 'padmin'))).toMatchObject({ user_name: 'padmin2', roles: ['Radar-Pilot-01:ROLE_PROJECT_ADMIN'] });
    const oadmin = await claims('oadmin', 'oadmin');
    expect(oadmin).toMatchObject({ user_name: 'oadmin', roles: ['main:ROLE_ORGANIZATION_ADMIN'] });
    expect(oadmin.scope).toContain('PROJECT.CREATE');
    expect(oadmin.scope).not.toContain('MEASUREMENT.CREATE');
    expect((await claims('admin', 'admin'))).toMatchObject({ user_name: 'admin', roles: ['ROLE_SYS_ADMIN'] });

    const wrong = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'padmin', password: 'oadmin' });
    expect(wrong).toMatchObject({ status: 400, error: 'invalid_grant' });
    // Participants have no password: they pair through a meta-token.
    const participant = await mp.token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: 'sub-1', password: '' });
    expect(participant).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('the demo tokens pass the API authentication', async () => {
    const res = await mp.call('GET', '/api/oauth-clients', { bearer: await mp.tokenOf('padmin', 'padmin') });
    expect(res.status).toBe(200);
  });

  it('loading it again changes nothing (another start on the same database)', async () => {
    const before = await snapshot();
    await seedManagementDemoData(db, t.app.log);
    expect(await snapshot()).toEqual(before);
  });

  it('a second app started on the same PostgreSQL database changes nothing', requires(postgresProject), async () => {
    const before = await snapshot();
    const second = await buildApp(t.config, { logger: false, demoData: true });
    try {
      await second.ready();
      expect(await snapshot()).toEqual(before);
    } finally {
      await second.close();
    }
  });

  it('does not put back roles of demo subjects that changed since, but recreates deleted demo rows', async () => {
    // sub-5 moved away from radar (its participant role made inactive), sub-51 and source-1 deleted.
    const [sub5] = await db.select().from(users).where(eq(users.login, 'sub-5'));
    await db.delete(roleUsers).where(eq(roleUsers.userId, sub5!.id));
    await db.delete(users).where(eq(users.login, 'sub-51'));
    await db.delete(sources).where(eq(sources.sourceName, 'source-1'));

    await seedManagementDemoData(db, t.app.log);
    const byLogin = await rolesByLogin();
    expect(byLogin.get('sub-5')).toBeUndefined();
    expect(byLogin.get('sub-51')).toEqual(['Radar-Pilot-01:ROLE_PARTICIPANT']);
    const [sub51] = await db.select({ externalId: subjects.externalId }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).where(eq(users.login, 'sub-51'));
    expect(sub51).toEqual({ externalId: 'EXT_ID_50' });
    const [source] = await db.select({ subjectId: sources.subjectId, assigned: sources.assigned }).from(sources).where(eq(sources.sourceName, 'source-1'));
    const [sub1] = await db.select({ id: subjects.id }).from(subjects).innerJoin(users, eq(users.id, subjects.userId)).where(eq(users.login, 'sub-1'));
    expect(source).toEqual({ subjectId: sub1!.id, assigned: true });
  });
});
