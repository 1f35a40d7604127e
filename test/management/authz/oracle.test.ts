/**
 * The permission oracle (src/management/authz/oracle.ts) without Fastify: radar-auth's
 * RadarAuthorizationTest cases (managementportal.md §14) and a matrix of the 8 roles × the 40
 * permissions × entity levels. The expectations are written out here from §4 (and the fixes of
 * quirks 7 and 9), not computed with the oracle's own tables.
 */
import { describe, expect, it } from 'vitest';
import { hasPermission, hasScope, referentsInclude, referentsOf, type EntityDetails, type Principal, type PrincipalRole } from '../../../src/management/authz/oracle.js';

// ---------------------------------------------------------------------------------------------
// The model of §4, written out.

const ENTITIES = ['SOURCETYPE', 'SOURCEDATA', 'SOURCE', 'SUBJECT', 'USER', 'ROLE', 'PROJECT', 'ORGANIZATION', 'OAUTHCLIENTS'] as const;
const OPS = { C: 'CREATE', R: 'READ', U: 'UPDATE', D: 'DELETE' } as const;
const ALL_PERMISSIONS: readonly string[] = [
  ...ENTITIES.flatMap((e) => ['CREATE', 'READ', 'UPDATE', 'DELETE'].map((op) => `${e}.${op}`)),
  'AUDIT.READ', 'AUTHORITY.READ', 'MEASUREMENT.READ', 'MEASUREMENT.CREATE',
];

/** Per role: entity → the operations it may be granted (C, R, U, D), from the table of §4. */
const GRANTS: Record<string, Record<string, string>> = {
  ROLE_SYS_ADMIN: {
    SOURCETYPE: 'CRUD', SOURCEDATA: 'CRUD', SOURCE: 'CRUD', SUBJECT: 'CRUD', USER: 'CRUD', ROLE: 'CRUD', PROJECT: 'CRUD',
    ORGANIZATION: 'CRUD', OAUTHCLIENTS: 'CRUD', AUDIT: 'R', AUTHORITY: 'R', MEASUREMENT: 'CR',
  },
  ROLE_ORGANIZATION_ADMIN: {
    SOURCETYPE: 'RUD', SOURCEDATA: 'RUD', SOURCE: 'CRUD', SUBJECT: 'CRUD', USER: 'CRUD', ROLE: 'CRUD', PROJECT: 'CRUD',
    ORGANIZATION: 'RUD', OAUTHCLIENTS: 'CRUD',
  },
  ROLE_PROJECT_ADMIN: {
    SOURCETYPE: 'CRUD', SOURCEDATA: 'CRUD', SOURCE: 'CRUD', SUBJECT: 'CRUD', USER: 'CRUD', ROLE: 'CRUD', PROJECT: 'RUD',
    ORGANIZATION: 'R', OAUTHCLIENTS: 'CRUD', MEASUREMENT: 'CR',
  },
  ROLE_PROJECT_OWNER: {
    SOURCETYPE: 'CRUD', SOURCEDATA: 'CRUD', SOURCE: 'CRUD', SUBJECT: 'CRUD', ROLE: 'CRUD', PROJECT: 'RUD',
    ORGANIZATION: 'R', OAUTHCLIENTS: 'CRUD', MEASUREMENT: 'CR',
  },
  ROLE_PROJECT_AFFILIATE: {
    SOURCETYPE: 'CRUD', SOURCEDATA: 'CRUD', SOURCE: 'CRUD', SUBJECT: 'CRU', ROLE: 'CRUD', PROJECT: 'R',
    ORGANIZATION: 'R', OAUTHCLIENTS: 'CRUD', MEASUREMENT: 'CR',
  },
  ROLE_PROJECT_ANALYST: {
    SOURCETYPE: 'R', SOURCEDATA: 'R', SOURCE: 'R', SUBJECT: 'RU', ROLE: 'R', PROJECT: 'R', ORGANIZATION: 'R', OAUTHCLIENTS: 'R', MEASUREMENT: 'R',
  },
  ROLE_PARTICIPANT: { SUBJECT: 'RU', MEASUREMENT: 'CR' },
  ROLE_INACTIVE_PARTICIPANT: {},
};

const granted = (authority: string, permission: string) => {
  const [entity, op] = permission.split('.') as [string, string];
  return [...(GRANTS[authority]![entity] ?? '')].some((letter) => OPS[letter as keyof typeof OPS] === op);
};

// ---------------------------------------------------------------------------------------------
// Principals.

const ALL_SCOPES = new Set(ALL_PERMISSIONS);

const projectRole = (authority: string, project: string, organization = 'main'): PrincipalRole =>
  ({ authority, projectName: project, organizationName: null, projectOrganization: organization });
const organizationRole = (authority: string, organization: string): PrincipalRole =>
  ({ authority, projectName: null, organizationName: organization, projectOrganization: null });
const globalRole = (authority: string): PrincipalRole =>
  ({ authority, projectName: null, organizationName: null, projectOrganization: null });

function user(login: string, roles: PrincipalRole[], scopes: ReadonlySet<string> = ALL_SCOPES): Principal {
  return { scopes, clientCredentials: false, subject: login, userName: login, roles };
}
function client(scopes: string[]): Principal {
  return { scopes: new Set(scopes), clientCredentials: true, subject: 'trusted-client', userName: undefined, roles: [] };
}

// ---------------------------------------------------------------------------------------------
// radar-auth RadarAuthorizationTest.

describe('radar-auth RadarAuthorizationTest cases', () => {
  // PROJECT_ADMIN_TOKEN: project admin of PROJECT1 and participant of PROJECT2 (sub = the login).
  const projectAdmin = user('admin', [projectRole('ROLE_PROJECT_ADMIN', 'PROJECT1'), projectRole('ROLE_PARTICIPANT', 'PROJECT2')]);
  const project1 = { organization: 'main', project: 'PROJECT1' };
  const project2 = { organization: 'main', project: 'PROJECT2' };

  it('a project admin has every PROJECT_ADMIN permission on its project and nothing else there', () => {
    const allowed = ALL_PERMISSIONS.filter((p) => hasPermission(projectAdmin, p, project1));
    expect(allowed.sort()).toEqual(ALL_PERMISSIONS.filter((p) => granted('ROLE_PROJECT_ADMIN', p)).sort());
    expect(allowed).toHaveLength(34);
  });

  it('a project admin has no permission on another project, in its organization or elsewhere', () => {
    const admin = user('padmin', [projectRole('ROLE_PROJECT_ADMIN', 'PROJECT1')]);
    for (const entity of [{ organization: 'main', project: 'PROJECT3' }, { organization: 'other', project: 'PROJECT4' }]) {
      expect(ALL_PERMISSIONS.filter((p) => hasPermission(admin, p, entity))).toEqual([]);
    }
  });

  it('an organization admin may create projects and subjects in its organization, not in another', () => {
    const orgAdmin = user('oadmin', [organizationRole('ROLE_ORGANIZATION_ADMIN', 'main')]);
    expect(hasPermission(orgAdmin, 'ORGANIZATION.CREATE', { organization: 'main' })).toBe(false);
    expect(hasPermission(orgAdmin, 'PROJECT.CREATE', { organization: 'main' })).toBe(true);
    expect(hasPermission(orgAdmin, 'SUBJECT.CREATE', { organization: 'main', project: 'PROJECT1' })).toBe(true);
    expect(hasPermission(orgAdmin, 'PROJECT.CREATE', { organization: 'otherOrg' })).toBe(false);
    expect(hasPermission(orgAdmin, 'SUBJECT.CREATE', { organization: 'otherOrg' })).toBe(false);
    expect(hasPermission(orgAdmin, 'SUBJECT.CREATE', { organization: 'otherOrg', project: 'PROJECT9' })).toBe(false);
  });

  it('a system admin has every permission globally', () => {
    const sysAdmin = user('admin', [globalRole('ROLE_SYS_ADMIN')]);
    expect(ALL_PERMISSIONS.filter((p) => !hasPermission(sysAdmin, p, {}))).toEqual([]);
    expect(ALL_PERMISSIONS.filter((p) => !hasPermission(sysAdmin, p, { organization: 'x', project: 'y', subject: 'z' }))).toEqual([]);
  });

  it('a participant reads and updates itself and creates and reads its measurements', () => {
    const self = { ...project2, subject: 'admin' };
    for (const p of ['MEASUREMENT.CREATE', 'MEASUREMENT.READ', 'SUBJECT.UPDATE', 'SUBJECT.READ']) {
      expect(hasPermission(projectAdmin, p, self), p).toBe(true);
    }
  });

  it('a participant has no permission on another subject of its project', () => {
    expect(ALL_PERMISSIONS.filter((p) => hasPermission(projectAdmin, p, { ...project2, subject: 'other-subject' }))).toEqual([]);
  });

  it('a project admin has every SUBJECT permission on a subject of its project', () => {
    for (const p of ['SUBJECT.CREATE', 'SUBJECT.READ', 'SUBJECT.UPDATE', 'SUBJECT.DELETE']) {
      expect(hasPermission(projectAdmin, p, { ...project1, subject: 'some-subject' }), p).toBe(true);
    }
  });

  it('with several roles in one project, the strongest decides', () => {
    const multiple = user('multi', [projectRole('ROLE_PROJECT_ADMIN', 'PROJECT2'), projectRole('ROLE_PARTICIPANT', 'PROJECT2')]);
    for (const p of ['SUBJECT.CREATE', 'SUBJECT.READ', 'SUBJECT.UPDATE', 'SUBJECT.DELETE']) {
      expect(hasPermission(multiple, p, { ...project2, subject: 'some-subject' }), p).toBe(true);
    }
    for (const p of ['MEASUREMENT.CREATE', 'MEASUREMENT.READ']) {
      expect(hasPermission(multiple, p, { ...project2, subject: 'multi', source: 'source-1' }), p).toBe(true);
    }
    // A participant and an analyst of different projects: each role only where it is held.
    const mixed = user('mixed', [projectRole('ROLE_PARTICIPANT', 'PROJECT1'), projectRole('ROLE_PROJECT_ANALYST', 'PROJECT2')]);
    expect(hasPermission(mixed, 'SUBJECT.READ', { ...project2, subject: 'someone' })).toBe(true);
    expect(hasPermission(mixed, 'SUBJECT.READ', { ...project1, subject: 'someone' })).toBe(false);
    expect(hasPermission(mixed, 'SUBJECT.UPDATE', { ...project1, subject: 'mixed' })).toBe(true);
    expect(hasPermission(mixed, 'MEASUREMENT.CREATE', { ...project2, subject: 'mixed' })).toBe(false);
  });

  it("a participant has no permission on another subject's source", () => {
    expect(ALL_PERMISSIONS.filter((p) => hasPermission(projectAdmin, p, { ...project2, subject: 'some-subject', source: 'source-1' }))).toEqual([]);
  });

  it('a client-credentials token passes everything its scopes allow, on any entity, and nothing else', () => {
    const scopes = ['SUBJECT.READ', 'SUBJECT.CREATE', 'PROJECT.READ', 'MEASUREMENT.CREATE'];
    const token = client(scopes);
    const entities: EntityDetails[] = [
      {}, { project: 'PROJECT1' }, { project: 'PROJECT1', subject: '' }, { project: 'PROJECT1', subject: '', source: '' },
      { organization: 'any', project: 'PROJECT9', subject: 'anyone', source: 'any-source' }, { user: 'someone' },
    ];
    for (const entity of entities) {
      expect(ALL_PERMISSIONS.filter((p) => hasPermission(token, p, entity)).sort(), JSON.stringify(entity)).toEqual([...scopes].sort());
    }
    expect(ALL_PERMISSIONS.filter((p) => hasScope(token, p)).sort()).toEqual([...scopes].sort());
  });

  it('a scope missing from the token denies, whatever the roles', () => {
    const withoutRead = new Set(ALL_PERMISSIONS.filter((p) => p !== 'SUBJECT.READ'));
    const sysAdmin = user('admin', [globalRole('ROLE_SYS_ADMIN')], withoutRead);
    expect(hasPermission(sysAdmin, 'SUBJECT.READ', {})).toBe(false);
    expect(hasPermission(sysAdmin, 'SUBJECT.READ', { organization: 'main', project: 'p', subject: 's' })).toBe(false);
    expect(hasScope(sysAdmin, 'SUBJECT.READ')).toBe(false);
    expect(hasPermission(sysAdmin, 'SUBJECT.UPDATE', {})).toBe(true);
    const participant = user('me', [projectRole('ROLE_PARTICIPANT', 'P1')], new Set(['SUBJECT.READ']));
    expect(hasPermission(participant, 'SUBJECT.READ', { organization: 'main', project: 'P1', subject: 'me' })).toBe(true);
    expect(hasPermission(participant, 'MEASUREMENT.CREATE', { organization: 'main', project: 'P1', subject: 'me' })).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// The matrix: every role × every permission × entity levels.

const MEASURED = ['SOURCE', 'SUBJECT', 'MEASUREMENT'];
/** Entities with no referent to match (only the most specific level of the entity is checked). */
const UNSCOPED = ['SOURCETYPE', 'SOURCEDATA', 'ROLE', 'OAUTHCLIENTS', 'AUDIT', 'AUTHORITY'];
const EVERY = [...UNSCOPED, ...MEASURED, 'USER', 'PROJECT', 'ORGANIZATION'];

/**
 * The principal holds its role on project P1 of organization O1 (organization roles: on O1), its
 * login and subject are `me`. Per level: which permission entities each kind of non-global role
 * reaches (the permission must still be granted to the role). Global roles reach every level.
 */
interface Level { name: string; entity: EntityDetails; project: string[]; participant: string[]; organization: string[] }
const inP1 = { organization: 'O1', project: 'P1' };
const LEVELS: Level[] = [
  { name: 'global', entity: {}, project: [], participant: [], organization: [] },
  // A project role reaches its organization only for the organization itself and unscoped entities.
  { name: 'own organization', entity: { organization: 'O1' }, project: ['ORGANIZATION', ...UNSCOPED], participant: [], organization: EVERY },
  { name: 'other organization', entity: { organization: 'O2' }, project: [], participant: [], organization: [] },
  // A participant's permissions are all on its own subject.
  { name: 'own project', entity: inP1, project: EVERY, participant: [], organization: EVERY },
  { name: 'other project, same organization', entity: { organization: 'O1', project: 'P2' }, project: [], participant: [], organization: EVERY },
  { name: 'project of another organization', entity: { organization: 'O2', project: 'P3' }, project: [], participant: [], organization: [] },
  { name: 'own subject', entity: { ...inP1, subject: 'me' }, project: EVERY, participant: EVERY, organization: EVERY },
  { name: 'other subject, own project', entity: { ...inP1, subject: 'other' }, project: EVERY, participant: [], organization: EVERY },
  { name: 'own login in another project', entity: { organization: 'O1', project: 'P2', subject: 'me' }, project: [], participant: [], organization: EVERY },
  { name: 'subject of another organization', entity: { organization: 'O2', project: 'P3', subject: 'other' }, project: [], participant: [], organization: [] },
  // Quirk 9 fixed: a participant's source is judged by the source's subject.
  { name: 'own source', entity: { ...inP1, subject: 'me', source: 'source-1' }, project: EVERY, participant: EVERY, organization: EVERY },
  { name: "other subject's source", entity: { ...inP1, subject: 'other', source: 'source-2' }, project: EVERY, participant: [], organization: EVERY },
  // Quirk 7 fixed: another user only through the projects and organizations of its roles.
  { name: 'user with a role in P1', entity: { user: 'u1', userReferents: { projects: ['P1'], organizations: ['O1'] } }, project: ['USER', ...UNSCOPED], participant: [], organization: ['USER', ...UNSCOPED] },
  { name: 'user with a role in P2 of O1', entity: { user: 'u2', userReferents: { projects: ['P2'], organizations: ['O1'] } }, project: [], participant: [], organization: ['USER', ...UNSCOPED] },
  { name: 'user of organization O1', entity: { user: 'u3', userReferents: { projects: [], organizations: ['O1'] } }, project: [], participant: [], organization: ['USER', ...UNSCOPED] },
  { name: 'user elsewhere', entity: { user: 'u4', userReferents: { projects: ['P3'], organizations: ['O2'] } }, project: [], participant: [], organization: [] },
  { name: 'user without roles', entity: { user: 'u5', userReferents: { projects: [], organizations: [] } }, project: [], participant: [], organization: [] },
  { name: 'user, referents unknown', entity: { user: 'u6' }, project: [], participant: [], organization: [] },
  { name: 'own user', entity: { user: 'me' }, project: ['USER', ...UNSCOPED], participant: ['USER', ...UNSCOPED], organization: ['USER', ...UNSCOPED] },
];

const ROLE_HOLDERS: Record<string, { role: PrincipalRole; kind: 'global' | 'organization' | 'project' | 'participant' }> = {
  ROLE_SYS_ADMIN: { role: globalRole('ROLE_SYS_ADMIN'), kind: 'global' },
  ROLE_ORGANIZATION_ADMIN: { role: organizationRole('ROLE_ORGANIZATION_ADMIN', 'O1'), kind: 'organization' },
  ROLE_PROJECT_ADMIN: { role: projectRole('ROLE_PROJECT_ADMIN', 'P1', 'O1'), kind: 'project' },
  ROLE_PROJECT_OWNER: { role: projectRole('ROLE_PROJECT_OWNER', 'P1', 'O1'), kind: 'project' },
  ROLE_PROJECT_AFFILIATE: { role: projectRole('ROLE_PROJECT_AFFILIATE', 'P1', 'O1'), kind: 'project' },
  ROLE_PROJECT_ANALYST: { role: projectRole('ROLE_PROJECT_ANALYST', 'P1', 'O1'), kind: 'project' },
  ROLE_PARTICIPANT: { role: projectRole('ROLE_PARTICIPANT', 'P1', 'O1'), kind: 'participant' },
  ROLE_INACTIVE_PARTICIPANT: { role: projectRole('ROLE_INACTIVE_PARTICIPANT', 'P1', 'O1'), kind: 'participant' },
};

describe('permission matrix: 8 roles × 40 permissions × entity levels', () => {
  it('writes out 40 permissions and 8 roles', () => {
    expect(new Set(ALL_PERMISSIONS).size).toBe(40);
    expect(Object.keys(ROLE_HOLDERS)).toHaveLength(8);
    expect(ALL_PERMISSIONS.filter((p) => granted('ROLE_ORGANIZATION_ADMIN', p))).toHaveLength(33);
  });

  it.each(Object.keys(ROLE_HOLDERS))('%s', (authority) => {
    const { role, kind } = ROLE_HOLDERS[authority]!;
    const principal = user('me', [role]);
    const wrong: string[] = [];
    for (const level of LEVELS) {
      for (const permission of ALL_PERMISSIONS) {
        const entity = permission.slice(0, permission.indexOf('.'));
        const reaches = kind === 'global' || level[kind].includes(entity);
        const expected = granted(authority, permission) && reaches;
        if (hasPermission(principal, permission, level.entity) !== expected) wrong.push(`${level.name}: ${permission} should be ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
    // hasScope: the scope is in the token and the role may be granted it, wherever.
    expect(ALL_PERMISSIONS.filter((p) => hasScope(principal, p)).sort()).toEqual(ALL_PERMISSIONS.filter((p) => granted(authority, p)).sort());
  });

  it('the matrix can fail: the expectations are not all-true or all-false', () => {
    const outcomes = new Set<boolean>();
    for (const level of LEVELS) {
      for (const permission of ALL_PERMISSIONS) outcomes.add(hasPermission(user('me', [ROLE_HOLDERS.ROLE_PROJECT_ADMIN!.role]), permission, level.entity));
    }
    expect([...outcomes].sort()).toEqual([false, true]);
  });
});

describe('USER permissions (quirk 7 fixed)', () => {
  const padmin = user('padmin', [projectRole('ROLE_PROJECT_ADMIN', 'P1', 'O1')]);
  const oadmin = user('oadmin', [organizationRole('ROLE_ORGANIZATION_ADMIN', 'O1')]);

  it('reach another user only through the projects and organizations of its roles', () => {
    expect(hasPermission(padmin, 'USER.UPDATE', { user: 'x', userReferents: { projects: ['P1'], organizations: ['O1'] } })).toBe(true);
    expect(hasPermission(padmin, 'USER.UPDATE', { user: 'x', userReferents: { projects: ['P2'], organizations: ['O1'] } })).toBe(false);
    expect(hasPermission(padmin, 'USER.UPDATE', { user: 'x' })).toBe(false);
    expect(hasPermission(oadmin, 'USER.DELETE', { user: 'x', userReferents: { projects: ['P2'], organizations: ['O1'] } })).toBe(true);
    expect(hasPermission(oadmin, 'USER.DELETE', { user: 'x', userReferents: { projects: ['P3'], organizations: ['O2'] } })).toBe(false);
  });

  it('without a particular user, are scoped to the role\'s project or organization', () => {
    expect(hasPermission(padmin, 'USER.CREATE', { organization: 'O1', project: 'P1' })).toBe(true);
    expect(hasPermission(padmin, 'USER.CREATE', { organization: 'O1', project: 'P2' })).toBe(false);
    // The reference let a project role through at the organization level; not here.
    expect(hasPermission(padmin, 'USER.CREATE', { organization: 'O1' })).toBe(false);
    expect(hasPermission(oadmin, 'USER.CREATE', { organization: 'O1' })).toBe(true);
    expect(hasPermission(oadmin, 'USER.CREATE', { organization: 'O2', project: 'P3' })).toBe(false);
  });

  it('a user may act on its own account with the USER permissions its roles hold', () => {
    expect(hasPermission(padmin, 'USER.READ', { user: 'padmin' })).toBe(true);
    const owner = user('owner', [projectRole('ROLE_PROJECT_OWNER', 'P1', 'O1')]);
    expect(hasPermission(owner, 'USER.READ', { user: 'owner' })).toBe(false);
  });
});

describe('referents of list endpoints', () => {
  it('collects where a permission is held, per kind of role', () => {
    const principal = user('me', [
      projectRole('ROLE_PROJECT_ADMIN', 'P1', 'O1'), projectRole('ROLE_PARTICIPANT', 'P2', 'O1'),
      organizationRole('ROLE_ORGANIZATION_ADMIN', 'O2'), projectRole('ROLE_PROJECT_ANALYST', 'P3', 'O2'),
    ]);
    const subjects = referentsOf(principal, 'SUBJECT.READ');
    expect(subjects).toEqual({ global: false, organizations: new Set(['O2']), projects: new Set(['P1', 'P3']), personalProjects: new Set(['P2']) });
    expect(referentsInclude(subjects, { projectName: 'P1', organizationName: 'O1' })).toBe(true);
    expect(referentsInclude(subjects, { projectName: 'P2', organizationName: 'O1' })).toBe(false);
    expect(referentsInclude(subjects, { projectName: 'P2', organizationName: 'O1' }, true)).toBe(true);
    expect(referentsInclude(subjects, { projectName: 'P9', organizationName: 'O2' })).toBe(true);
    expect(referentsInclude(subjects, { projectName: 'P9', organizationName: null })).toBe(false);
    expect(referentsOf(principal, 'AUDIT.READ')).toEqual({ global: false, organizations: new Set(), projects: new Set(), personalProjects: new Set() });
    expect(referentsOf(user('admin', [globalRole('ROLE_SYS_ADMIN')]), 'AUDIT.READ').global).toBe(true);
    expect(referentsOf(client(['SUBJECT.READ']), 'SUBJECT.READ').global).toBe(true);
    expect(referentsOf(client(['SUBJECT.READ']), 'PROJECT.READ').global).toBe(false);
  });
});
