/**
 * Dev-profile demo data of the management domain (managementportal.md §9): the reference's
 * Liquibase `dev,test` rows (project.csv, roles.csv, users.csv, subject.csv, role_users.csv,
 * group.csv, subject_group.csv, source_type.csv, source_data.csv, project_source_type.csv,
 * sources.csv, organization_user.csv, the 20230908 name/date-of-birth update) plus the source type
 * `RADAR/aRMT-App/1.5.0` that the questionnaire app registers (clients.md §1 E3).
 *
 * Idempotent: every row is looked up by its natural key and only missing rows are inserted, so a
 * second start writes nothing. Role memberships, subjects and group memberships are made only for
 * users created in the same run: a demo subject that was moved or discontinued since is left alone.
 * One transaction; runs under the start-up lock, so instances starting together seed once.
 *
 * Deliberate differences from the reference: participants have no password (the reference's
 * hashes were of unknown random passwords); ids are the sequences' (the reference fixed them).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../platform/database.js';
import { AUTHORITIES } from './authz/permissions.js';
import type { subjects, users } from './schema.js';
import { ensureOrganization, insertAuthorities } from './api/users/queries.js';
import { existingLogins } from './security/queries.js';
import {
  findGroupsOfProject, findOrganizationIdByName, findProjectsByName, findRolesOf, findSourceDataNames, findSourceTypes,
  findSubjectIdByLogin, insertGroups, insertProjects, insertRoleMemberships, insertRoles, insertSource, insertSourceData,
  insertSourceTypes, insertSubjects, insertUsers, linkSourceTypes, sourceExists,
} from './demo-data-queries.js';

const MAIN = { name: 'main', description: 'The main organization', location: '-' };
const RADAR = 'radar';
const PILOT = 'Radar-Pilot-01';

const PROJECTS = [
  { projectName: RADAR, description: 'RadarTest', organizationName: 'Radar-CNS', location: 'London', projectStatus: 'PLANNING' as const },
  { projectName: PILOT, description: 'RadarTest2', organizationName: 'Radar-CNS', location: 'Frieburg', projectStatus: 'PLANNING' as const },
];

/** A role by authority and referent (project name, organization name). */
interface RoleKey { authority: string; project?: string; organization?: string }
const PARTICIPANT_RADAR: RoleKey = { authority: 'ROLE_PARTICIPANT', project: RADAR };
const PARTICIPANT_PILOT: RoleKey = { authority: 'ROLE_PARTICIPANT', project: PILOT };
const ROLES: RoleKey[] = [
  PARTICIPANT_RADAR,
  { authority: 'ROLE_PROJECT_ADMIN', project: RADAR },
  { authority: 'ROLE_PROJECT_ADMIN', project: PILOT },
  PARTICIPANT_PILOT,
  { authority: 'ROLE_ORGANIZATION_ADMIN', organization: MAIN.name },
];

// bcrypt (cost 10) of the demo passwords `padmin` and `oadmin`, computed once so a start hashes nothing.
const PADMIN_HASH = '$2b$10$26F4K8/BntR7SnYrI5jixuoXGcbfzJdeCa1fnFZ.154zNqDNAtnSm';
const OADMIN_HASH = '$2b$10$iLuCsqqBGXoXxAlIc3pzdOmJt04cYWqWtta1Kua8hGidKf5aphq3K';

interface DemoUser {
  row: typeof users.$inferInsert & { login: string };
  role: RoleKey;
  subject?: Omit<typeof subjects.$inferInsert, 'userId'> & { group?: string };
}

const GROUP_A = 'Test Group A';
const GROUP_B = 'Test Group B';
const GROUP_OF: ReadonlyMap<number, string> = new Map([
  ...[11, 12, 13, 15, 17].map((n) => [n, GROUP_A] as const),
  ...[16, 18, 19, 20, 22].map((n) => [n, GROUP_B] as const),
]);

/** Subject `n` (user `sub-n`) as subject.csv, role_users.csv and the 20230908 update have it. */
function demoSubject(n: number): DemoUser {
  const k = n - 1; // subject.csv numbers its EXT_ patterns from the previous subject id
  return {
    row: { login: `sub-${n}`, email: `sub-${n}@localhost`, activated: true, langKey: 'en', createdBy: 'admin', lastModifiedBy: 'admin' },
    role: n === 4 || n >= 30 ? PARTICIPANT_PILOT : PARTICIPANT_RADAR,
    subject: {
      externalLink: k % 4 === 1 || k % 4 === 3 ? `EXT_LINK_${k}` : null,
      externalId: k % 4 === 1 || k % 4 === 2 ? `EXT_ID_${k}` : null,
      personName: n <= 8 ? 'John Doe' : null,
      dateOfBirth: n <= 4 || (n >= 9 && n <= 12) ? '1999-01-01' : null,
      group: GROUP_OF.get(n),
    },
  };
}

const DEMO_USERS: readonly DemoUser[] = [
  { row: { login: 'padmin', passwordHash: PADMIN_HASH, email: 'padmin@localhost', activated: true, langKey: 'en' }, role: { authority: 'ROLE_PROJECT_ADMIN', project: RADAR } },
  { row: { login: 'padmin2', passwordHash: PADMIN_HASH, email: 'padmin2@localhost', activated: true, langKey: 'en' }, role: { authority: 'ROLE_PROJECT_ADMIN', project: PILOT } },
  {
    row: { login: 'oadmin', passwordHash: OADMIN_HASH, firstName: 'Org', lastName: 'Admin', email: 'oadmin@localhost', activated: true, langKey: 'en' },
    role: { authority: 'ROLE_ORGANIZATION_ADMIN', organization: MAIN.name },
  },
  ...Array.from({ length: 51 }, (_, i) => demoSubject(i + 1)),
];

const EMPATICA = { producer: 'Empatica', model: 'E4', catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', canRegisterDynamically: false };
const THINC_IT = { producer: 'THINC-IT App', model: 'App', catalogVersion: 'v1', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true };
const ARMT = {
  producer: 'RADAR', model: 'aRMT-App', catalogVersion: '1.5.0', sourceTypeScope: 'ACTIVE', canRegisterDynamically: true,
  description: 'RADAR active remote monitoring app (questionnaires)',
};
const SOURCE_TYPES = [EMPATICA, THINC_IT, ARMT];
const typeKey = (t: { producer: string; model: string; catalogVersion: string }) => `${t.producer}/${t.model}/${t.catalogVersion}`;

const e4 = (type: string, frequency: string, unit: string, processingState: string, valueSchema: string, topic: string) => ({
  type: EMPATICA, sourceDataType: type, sourceDataName: `EMPATICA_E4_v1_${type}`, frequency, unit, processingState,
  keySchema: 'org.radarbase.kafka.ObservationKey', valueSchema: `org.radarbase.passive.empatica.${valueSchema}`, topic: `android_empatica_e4_${topic}`,
});
const SOURCE_DATA = [
  e4('ACCELEROMETER', '32.0', 'G', 'RAW', 'EmpaticaE4Acceleration', 'acceleration'),
  e4('BATTERY', '32.0', 'PERCENTAGE', 'RAW', 'EmpaticaE4BatteryLevel', 'battery_level'),
  { type: THINC_IT, sourceDataType: 'QUESTIONNAIRE', sourceDataName: 'Thinc IT App QUESTIONNAIRE', processingState: 'RAW' },
  e4('BLOOD_VOLUME_PULSE', '32.0', 'NANO_WATT', 'RAW', 'EmpaticaE4BloodVolumePulse', 'blood_volume_pulse'),
  e4('ELECTRODERMAL_ACTIVITY', '4.0', 'MICRO_SIEMENS', 'RAW', 'EmpaticaE4ElectroDermalActivity', 'electrodermal_activity'),
  e4('INTER_BEAT_INTERVAL', '1.0', 'BEATS_PER_MIN', 'VENDOR', 'EmpaticaE4InterBeatInterval', 'inter_beat_interval'),
  e4('THERMOMETER', '4.0', 'CELSIUS', 'RAW', 'EmpaticaE4Temperature', 'temperature'),
];

const SOURCE_1 = { sourceId: '03d28e5c-e005-46d4-a9b3-279c27fbbc83', sourceName: 'source-1', owner: 'sub-1' };

/** What one run created (for the log line). */
interface Created { users: number; subjects: number; sourceTypes: number; sourceData: number; sources: number }

/**
 * Loads the demo data where missing (see the module comment). Safe to call at every start, also
 * before the built-in accounts exist: it creates the authorities and organization `main` itself.
 */
export async function seedManagementDemoData(db: Database, log: FastifyBaseLogger): Promise<void> {
  const created = await db.transaction((tx) => seed(tx));
  if (Object.values(created).some((n) => n > 0)) log.info(created, 'management demo data loaded');
}

async function seed(tx: Executor): Promise<Created> {
  await insertAuthorities(tx, AUTHORITIES);
  await ensureOrganization(tx, MAIN);
  const organizationId = (await findOrganizationIdByName(tx, MAIN.name))!;

  const projectIds = await ensureProjects(tx, organizationId);
  const roleIds = await ensureRoles(tx, projectIds, organizationId);
  const groupIds = await ensureGroups(tx, projectIds.get(RADAR)!);
  const createdUsers = await ensureUsers(tx, roleIds, groupIds);
  const types = await ensureSourceTypes(tx, projectIds.get(RADAR)!);
  const sourceDataCount = await ensureSourceData(tx, types.ids);
  const sourceCount = await ensureSource(tx, types.ids.get(typeKey(EMPATICA))!, projectIds.get(RADAR)!);
  return { ...createdUsers, sourceTypes: types.created, sourceData: sourceDataCount, sources: sourceCount };
}

async function ensureProjects(tx: Executor, organizationId: number): Promise<Map<string, number>> {
  const names = PROJECTS.map((p) => p.projectName);
  const existing = new Set((await findProjectsByName(tx, names)).map((r) => r.name));
  const missing = PROJECTS.filter((p) => !existing.has(p.projectName));
  if (missing.length) await insertProjects(tx, missing.map((p) => ({ ...p, organizationId })));
  const rows = await findProjectsByName(tx, names);
  return new Map(rows.map((r) => [r.name, r.id]));
}

const roleKey = (authority: string, projectId: number | null, organizationId: number | null) => `${authority}|${projectId}|${organizationId}`;

async function ensureRoles(tx: Executor, projectIds: Map<string, number>, organizationId: number) {
  const wanted = ROLES.map((r) => ({
    authorityName: r.authority,
    projectId: r.project ? projectIds.get(r.project)! : null,
    organizationId: r.organization ? organizationId : null,
  }));
  const load = async () => findRolesOf(tx, [...projectIds.values()], organizationId);
  const existing = new Set((await load()).map((r) => roleKey(r.authority, r.projectId, r.organizationId)));
  const missing = wanted.filter((r) => !existing.has(roleKey(r.authorityName, r.projectId, r.organizationId)));
  if (missing.length) await insertRoles(tx, missing);
  const ids = new Map((await load()).map((r) => [roleKey(r.authority, r.projectId, r.organizationId), r.id]));
  return (role: RoleKey) => ids.get(roleKey(role.authority, role.project ? projectIds.get(role.project)! : null, role.organization ? organizationId : null))!;
}

async function ensureGroups(tx: Executor, radarId: number): Promise<Map<string, number>> {
  const load = async () => findGroupsOfProject(tx, radarId);
  const existing = new Set((await load()).map((g) => g.name));
  const missing = [GROUP_A, GROUP_B].filter((name) => !existing.has(name));
  if (missing.length) await insertGroups(tx, missing.map((name) => ({ projectId: radarId, name })));
  return new Map((await load()).map((g) => [g.name, g.id]));
}

/** Missing users with their role and, for participants, their subject; existing users are not touched. */
async function ensureUsers(tx: Executor, roleId: (role: RoleKey) => number, groupIds: Map<string, number>) {
  const existing = await existingLogins(tx, DEMO_USERS.map((u) => u.row.login));
  const missing = DEMO_USERS.filter((u) => !existing.has(u.row.login));
  if (!missing.length) return { users: 0, subjects: 0 };
  const inserted = await insertUsers(tx, missing.map((u) => u.row));
  const idOf = new Map(inserted.map((r) => [r.login, r.id]));
  const made = missing.filter((u) => idOf.has(u.row.login));
  if (made.length) await insertRoleMemberships(tx, made.map((u) => ({ userId: idOf.get(u.row.login)!, roleId: roleId(u.role) })));
  const subjectRows = made.filter((u) => u.subject).map((u) => {
    const { group, ...subject } = u.subject!;
    return { ...subject, userId: idOf.get(u.row.login)!, groupId: group ? groupIds.get(group) ?? null : null };
  });
  if (subjectRows.length) await insertSubjects(tx, subjectRows);
  return { users: made.length, subjects: subjectRows.length };
}

/** The demo source types by `producer/model/version`; those created now are linked to `radar`. */
async function ensureSourceTypes(tx: Executor, radarId: number): Promise<{ ids: Map<string, number>; created: number }> {
  const load = async () => findSourceTypes(tx, SOURCE_TYPES);
  const existing = new Set((await load()).map(typeKey));
  const missing = SOURCE_TYPES.filter((t) => !existing.has(typeKey(t)));
  if (missing.length) await insertSourceTypes(tx, missing);
  const ids = new Map((await load()).map((t) => [typeKey(t), t.id]));

  // Only types created now are linked: a link an admin removed since stays removed.
  const link = missing.map((t) => ids.get(typeKey(t))!);
  if (link.length) await linkSourceTypes(tx, radarId, link);
  return { ids, created: missing.length };
}

async function ensureSourceData(tx: Executor, typeIds: Map<string, number>): Promise<number> {
  const existing = new Set(await findSourceDataNames(tx, SOURCE_DATA.map((d) => d.sourceDataName)));
  const missing = SOURCE_DATA.filter((d) => !existing.has(d.sourceDataName));
  if (missing.length) {
    await insertSourceData(tx, missing.map(({ type, ...d }) => ({ ...d, sourceTypeId: typeIds.get(typeKey(type))! })));
  }
  return missing.length;
}

async function ensureSource(tx: Executor, empaticaId: number, radarId: number): Promise<number> {
  if (await sourceExists(tx, SOURCE_1.sourceName, SOURCE_1.sourceId)) return 0;
  const ownerId = await findSubjectIdByLogin(tx, SOURCE_1.owner);
  await insertSource(tx, {
    sourceId: SOURCE_1.sourceId, sourceName: SOURCE_1.sourceName, sourceTypeId: empaticaId, projectId: radarId,
    subjectId: ownerId ?? null, assigned: ownerId !== undefined,
  });
  return 1;
}
