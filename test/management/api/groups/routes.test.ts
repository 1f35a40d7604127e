/**
 * `/api/projects/{projectName}/groups` (managementportal.md §2.8, §14 GroupResourceIntTest):
 * create, list, read, rename (not in the reference), delete (with `unlinkSubjects`), and PATCH of a group's subjects, with whole
 * bodies, what is stored, and who may and who may not. Subjects are inserted with the fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { aParticipant } from '../../../fixtures/management.js';
import { groups, roles, roleUsers, subjects } from '../../../../src/management/schema.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;
let P: Json;
let Q: Json;
let otherOrg: string;
const tokens: Record<'orgAdmin' | 'projectAdmin' | 'otherAdmin' | 'affiliate' | 'participant' | 'client' | 'clientNoRead', string> = {} as never;

const timestamp = expect.stringMatching(radarTimestamp);
const accessDenied = { message: 'error.accessDenied', description: expect.stringContaining('does not have permission'), fieldErrors: null };
const db = () => t.app.db.db;
const groupsOf = (p: Json) => `/api/projects/${p.projectName}/groups`;

async function post(path: string, body: Json, bearer = admin) {
  const res = await mp.call('POST', path, { bearer, body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
/** A participant of `project` (a subject); its subject id and login. */
async function aSubject(project: Json) {
  const participant = await aParticipant(db(), { project: { id: project.id } });
  return { id: participant.subjectId, login: participant.login, userId: participant.user.id };
}
const groupIdsOf = async (ids: number[]) =>
  (await db().select({ id: subjects.id, groupId: subjects.groupId }).from(subjects).where(inArray(subjects.id, ids)).orderBy(subjects.id)).map((s) => s.groupId);
const patch = (p: Json, group: string, body: Json, bearer = admin) =>
  mp.call('PATCH', `${groupsOf(p)}/${group}/subjects`, { bearer, body, headers: { 'content-type': 'application/json-patch+json' } });

beforeAll(async () => {
  t = await buildTestApp();
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
  otherOrg = unique('org');
  await post('/api/organizations', { name: otherOrg, description: 'Other', location: 'Elsewhere' });
  P = await post('/api/projects', { projectName: unique('project'), description: 'd', location: 'l', organizationName: 'main' });
  Q = await post('/api/projects', { projectName: unique('project'), description: 'd', location: 'l', organizationName: otherOrg });
  Object.assign(tokens, await mp.principals(P, Q, ['PROJECT.READ', 'PROJECT.UPDATE', 'SUBJECT.UPDATE'], admin));
  tokens.affiliate = (await mp.userWithRole('ROLE_PROJECT_AFFILIATE', { project: P.projectName })).token;
});
afterAll(async () => { await t.close(); });

describe('POST groups', () => {
  it('creates: 201 {id, projectId, name}, Location; stored', async () => {
    const res = await mp.call('POST', groupsOf(P), { bearer: admin, body: { name: 'group1', id: 12345 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), projectId: P.id, name: 'group1' });
    expect(res.headers.location).toBe(`/api/projects/${P.projectName}/groups/group1`);
    expect(await db().select().from(groups).where(eq(groups.id, res.body.id))).toEqual([{ id: res.body.id, projectId: P.id, name: 'group1' }]);
  });

  it('the name is required, 1–50 characters of the id alphabet: 400 with a field error', async () => {
    const missing = await mp.call('POST', groupsOf(P), { bearer: admin, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'error.validation', description: expect.any(String), fieldErrors: [{ objectName: 'groupDTO', field: 'name', message: 'NotNull: must not be null' }] });
    const long = await mp.call('POST', groupsOf(P), { bearer: admin, body: { name: 'x'.repeat(51) } });
    expect(long.body.fieldErrors).toEqual([{ objectName: 'groupDTO', field: 'name', message: 'Size: size must be between 1 and 50' }]);
    const pattern = await mp.call('POST', groupsOf(P), { bearer: admin, body: { name: 'a/b' } });
    expect(pattern.body.fieldErrors[0]).toMatchObject({ field: 'name', message: expect.stringMatching(/^Pattern: /) });
    expect((await db().select().from(groups).where(eq(groups.projectId, P.id))).map((g) => g.name)).not.toContain('a/b');
  });

  it('the same name twice in a project: 409 error.groupExists; in another project: fine', async () => {
    await post(groupsOf(P), { name: 'dup' });
    const again = await mp.call('POST', groupsOf(P), { bearer: admin, body: { name: 'dup' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: `Group dup already exists in project ${P.projectName}`, entityName: 'group', errorCode: 'error.groupExists', params: { timestamp } });
    const elsewhere = await mp.call('POST', groupsOf(Q), { bearer: admin, body: { name: 'dup' } });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body).toMatchObject({ projectId: Q.id, name: 'dup' });
  });

  it('unknown project: 404 error.projectNameNotFound', async () => {
    const res = await mp.call('POST', '/api/projects/no-such-project/groups', { bearer: admin, body: { name: 'g' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Project with name no-such-project not found', entityName: 'project', errorCode: 'error.projectNameNotFound', params: { timestamp, projectName: 'no-such-project' } });
    expect((await mp.call('POST', '/api/projects/no-such-project/groups', { bearer: tokens.projectAdmin, body: { name: 'g' } })).status).toBe(403);
  });

  it('who may create: PROJECT.UPDATE on the project (its admin, the organization admin, clients)', async () => {
    expect((await mp.call('POST', groupsOf(P), { bearer: tokens.projectAdmin, body: { name: unique('g') } })).status).toBe(201);
    expect((await mp.call('POST', groupsOf(P), { bearer: tokens.orgAdmin, body: { name: unique('g') } })).status).toBe(201);
    expect((await mp.call('POST', groupsOf(P), { bearer: tokens.client, body: { name: unique('g') } })).status).toBe(201);
    for (const who of ['otherAdmin', 'affiliate', 'participant', 'clientNoRead'] as const) {
      const res = await mp.call('POST', groupsOf(P), { bearer: tokens[who], body: { name: unique('g') } });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
    expect((await mp.call('POST', groupsOf(P), { body: { name: 'g' } })).status).toBe(401);
  });
});

describe('GET groups', () => {
  it('lists {id, projectId, name} of the project\'s groups and reads one; unknown group or project: 404', async () => {
    const project = await post('/api/projects', { projectName: unique('project'), description: 'd', location: 'l', organizationName: 'main' });
    const a = await post(groupsOf(project), { name: 'A' });
    const b = await post(groupsOf(project), { name: 'B' });
    const list = await mp.call('GET', groupsOf(project), { bearer: admin });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([a, b]);
    expect((await mp.call('GET', `${groupsOf(project)}/B`, { bearer: admin })).body).toEqual(b);
    const missing = await mp.call('GET', `${groupsOf(project)}/C`, { bearer: admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: `Group C not found in project ${project.projectName}`, entityName: 'group', errorCode: 'error.groupNotFound', params: { timestamp } });
    expect((await mp.call('GET', '/api/projects/no-such-project/groups', { bearer: admin })).status).toBe(404);
    // The project DTO lists its groups by name.
    expect((await mp.call('GET', `/api/projects/${project.projectName}`, { bearer: admin })).body.groups).toEqual([{ name: 'A' }, { name: 'B' }]);
  });

  it('who may read: PROJECT.READ on the project', async () => {
    await post(groupsOf(P), { name: 'readable' });
    for (const who of ['orgAdmin', 'projectAdmin', 'affiliate', 'client'] as const) {
      expect((await mp.call('GET', groupsOf(P), { bearer: tokens[who] })).status, who).toBe(200);
      expect((await mp.call('GET', `${groupsOf(P)}/readable`, { bearer: tokens[who] })).status, who).toBe(200);
    }
    for (const who of ['otherAdmin', 'participant', 'clientNoRead'] as const) {
      expect((await mp.call('GET', groupsOf(P), { bearer: tokens[who] })).status, who).toBe(403);
      expect((await mp.call('GET', `${groupsOf(P)}/readable`, { bearer: tokens[who] })).status, who).toBe(403);
    }
  });
});

describe('PUT groups/{groupName} (rename)', () => {
  it('renames: 200 {id, projectId, name}, Location; its subjects stay in it', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const subject = await aSubject(P);
    await db().update(subjects).set({ groupId: g.id }).where(eq(subjects.id, subject.id));
    const name = unique('renamed');
    const res = await mp.call('PUT', `${groupsOf(P)}/${g.name}`, { bearer: tokens.projectAdmin, body: { name, id: 999 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: g.id, projectId: P.id, name });
    expect(res.headers.location).toBe(`/api/projects/${P.projectName}/groups/${name}`);
    expect((await mp.call('GET', `${groupsOf(P)}/${name}`, { bearer: admin })).body).toEqual({ id: g.id, projectId: P.id, name });
    expect((await mp.call('GET', `${groupsOf(P)}/${g.name}`, { bearer: admin })).status).toBe(404);
    expect(await groupIdsOf([subject.id])).toEqual([g.id]);
    expect((await mp.call('GET', `/api/subjects/${subject.login}`, { bearer: admin })).body.group).toBe(name);
    // The same name again changes nothing.
    expect((await mp.call('PUT', `${groupsOf(P)}/${name}`, { bearer: admin, body: { name } })).body).toEqual({ id: g.id, projectId: P.id, name });
  });

  it('a name taken in the project: 409 error.groupExists; a bad name: 400; unknown group or project: 404; nothing changes', async () => {
    const a = await post(groupsOf(P), { name: unique('g') });
    const b = await post(groupsOf(P), { name: unique('g') });
    const taken = await mp.call('PUT', `${groupsOf(P)}/${a.name}`, { bearer: admin, body: { name: b.name } });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ message: `Group ${b.name} already exists in project ${P.projectName}`, entityName: 'group', errorCode: 'error.groupExists', params: { timestamp } });
    const bad = await mp.call('PUT', `${groupsOf(P)}/${a.name}`, { bearer: admin, body: { name: 'a/b' } });
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors[0]).toMatchObject({ objectName: 'groupDTO', field: 'name', message: expect.stringMatching(/^Pattern: /) });
    expect((await mp.call('PUT', `${groupsOf(P)}/${a.name}`, { bearer: admin, body: {} })).status).toBe(400);
    expect((await mp.call('PUT', `${groupsOf(P)}/no-such-group`, { bearer: admin, body: { name: unique('g') } })).status).toBe(404);
    expect((await mp.call('PUT', `/api/projects/no-such-project/groups/${a.name}`, { bearer: admin, body: { name: unique('g') } })).status).toBe(404);
    expect((await db().select().from(groups).where(eq(groups.id, a.id)))[0]!.name).toBe(a.name);
  });

  it('who may rename: PROJECT.UPDATE on the project', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    for (const who of ['otherAdmin', 'affiliate', 'participant', 'clientNoRead'] as const) {
      const res = await mp.call('PUT', `${groupsOf(P)}/${g.name}`, { bearer: tokens[who], body: { name: unique('g') } });
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
    expect((await db().select().from(groups).where(eq(groups.id, g.id)))[0]!.name).toBe(g.name);
    expect((await mp.call('PUT', `${groupsOf(P)}/${g.name}`, { bearer: tokens.orgAdmin, body: { name: unique('g') } })).status).toBe(200);
  });
});

describe('DELETE groups', () => {
  it('deletes an empty group: 204; unknown group or project: 404', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const res = await mp.call('DELETE', `${groupsOf(P)}/${g.name}`, { bearer: tokens.projectAdmin });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await db().select().from(groups).where(eq(groups.id, g.id))).toEqual([]);
    expect((await mp.call('DELETE', `${groupsOf(P)}/${g.name}`, { bearer: admin })).status).toBe(404);
    expect((await mp.call('DELETE', `/api/projects/no-such-project/groups/${g.name}`, { bearer: admin })).status).toBe(404);
  });

  it('a group with subjects: 409 unless unlinkSubjects=true, which keeps the subjects outside any group', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const subject = await aSubject(P);
    await db().update(subjects).set({ groupId: g.id }).where(eq(subjects.id, subject.id));
    const refused = await mp.call('DELETE', `${groupsOf(P)}/${g.name}`, { bearer: admin });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      message: `Group ${g.name} has subjects. Add \`unlinkSubjects=true\` query param to confirm deletion`,
      entityName: 'group', errorCode: 'error.validation', params: { timestamp },
    });
    expect(await db().select().from(groups).where(eq(groups.id, g.id))).toHaveLength(1);
    expect((await mp.call('DELETE', `${groupsOf(P)}/${g.name}?unlinkSubjects=false`, { bearer: admin })).status).toBe(409);
    expect((await mp.call('DELETE', `${groupsOf(P)}/${g.name}?unlinkSubjects=true`, { bearer: admin })).status).toBe(204);
    expect(await db().select().from(groups).where(eq(groups.id, g.id))).toEqual([]);
    expect(await groupIdsOf([subject.id])).toEqual([null]);
  });

  it('who may delete: PROJECT.UPDATE on the project', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    for (const who of ['otherAdmin', 'affiliate', 'participant', 'clientNoRead'] as const) {
      expect((await mp.call('DELETE', `${groupsOf(P)}/${g.name}`, { bearer: tokens[who] })).status, who).toBe(403);
    }
    expect((await mp.call('DELETE', `${groupsOf(P)}/${g.name}`, { bearer: tokens.orgAdmin })).status).toBe(204);
  });
});

describe('PATCH groups/{groupName}/subjects', () => {
  it('adds subjects by id and by login (application/json-patch+json), then removes them: 204', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const [s1, s2, s3] = [await aSubject(P), await aSubject(P), await aSubject(P)];
    const added = await patch(P, g.name, [{ op: 'add', value: [{ id: s1.id }, { login: s2.login }] }], tokens.projectAdmin);
    expect(added.status).toBe(204);
    expect(await groupIdsOf([s1.id, s2.id, s3.id])).toEqual([g.id, g.id, null]);
    const [s2row] = await db().select().from(subjects).where(eq(subjects.id, s2.id));
    expect(s2row!.lastModifiedBy).toMatch(/^user-/);
    const moved = await patch(P, g.name, [{ op: 'remove', value: [{ login: s1.login }] }, { op: 'add', value: [{ id: s3.id }] }]);
    expect(moved.status).toBe(204);
    expect(await groupIdsOf([s1.id, s2.id, s3.id])).toEqual([null, g.id, g.id]);
    // Removing from this group leaves a subject of another group where it is.
    const other = await post(groupsOf(P), { name: unique('g') });
    await patch(P, other.name, [{ op: 'add', value: [{ id: s1.id }] }]);
    expect((await patch(P, g.name, [{ op: 'remove', value: [{ id: s1.id }] }])).status).toBe(204);
    expect(await groupIdsOf([s1.id])).toEqual([other.id]);
  });

  it('bad operations: 400 error.validation, and nothing changes', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const s = await aSubject(P);
    const unknownOp = await patch(P, g.name, [{ op: 'add', value: [{ id: s.id }] }, { op: 'replace', value: [] }]);
    expect(unknownOp.status).toBe(400);
    expect(unknownOp.body).toEqual({ message: "Group patch operation 'replace' is not supported", entityName: 'group', errorCode: 'error.validation', params: { timestamp } });
    const neither = await patch(P, g.name, [{ op: 'add', value: [{}] }]);
    expect(neither.status).toBe(400);
    expect(neither.body).toMatchObject({ message: 'Subject identification must be specified', entityName: 'group', errorCode: 'error.validation' });
    const both = await patch(P, g.name, [{ op: 'add', value: [{ id: s.id, login: s.login }] }]);
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/^Subject identification must specify either ID or Login/);
    expect(await groupIdsOf([s.id])).toEqual([null]);
  });

  it('subjects of another project or of none: 400; unknown subject or group: 404; nothing changes', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const mine = await aSubject(P);
    const foreign = await aSubject(Q);
    const res = await patch(P, g.name, [{ op: 'add', value: [{ id: mine.id }, { login: foreign.login }] }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `Subject ${foreign.login} belongs to a different project`, entityName: 'subject', errorCode: 'error.validation', params: { timestamp } });
    expect(await groupIdsOf([mine.id, foreign.id])).toEqual([null, null]);
    // A former participant (ROLE_INACTIVE_PARTICIPANT only) belongs to no project.
    const former = await aSubject(P);
    const [inactive] = await db().insert(roles).values({ authorityName: 'ROLE_INACTIVE_PARTICIPANT', projectId: P.id })
      .onConflictDoUpdate({ target: [roles.projectId, roles.authorityName], set: { authorityName: 'ROLE_INACTIVE_PARTICIPANT' } }).returning();
    await db().delete(roleUsers).where(eq(roleUsers.userId, former.userId));
    await db().insert(roleUsers).values({ userId: former.userId, roleId: inactive!.id });
    const none = await patch(P, g.name, [{ op: 'add', value: [{ login: former.login }] }]);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(`Subject ${former.login} is not assigned to a project`);
    const unknown = await patch(P, g.name, [{ op: 'add', value: [{ login: 'no-such-subject' }] }]);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Subject not found with login', entityName: 'subject', errorCode: 'error.subjectNotFound', params: { timestamp, login: 'no-such-subject' } });
    expect((await patch(P, g.name, [{ op: 'add', value: [{ id: 99999999 }] }])).body).toMatchObject({ errorCode: 'error.subjectNotFound', params: { id: '99999999' } });
    expect((await patch(P, 'no-such-group', [{ op: 'add', value: [{ id: mine.id }] }])).body).toMatchObject({ errorCode: 'error.groupNotFound' });
  });

  it('who may: SUBJECT.UPDATE on the project (not a participant, whose right is on itself)', async () => {
    const g = await post(groupsOf(P), { name: unique('g') });
    const s = await aSubject(P);
    for (const who of ['otherAdmin', 'participant', 'clientNoRead'] as const) {
      const res = await patch(P, g.name, [{ op: 'add', value: [{ id: s.id }] }], tokens[who]);
      expect(res.status, who).toBe(403);
      expect(res.body).toEqual(accessDenied);
    }
    expect(await groupIdsOf([s.id])).toEqual([null]);
    for (const who of ['orgAdmin', 'affiliate', 'client'] as const) {
      expect((await patch(P, g.name, [{ op: 'add', value: [{ id: s.id }] }], tokens[who])).status, who).toBe(204);
    }
    expect(await groupIdsOf([s.id])).toEqual([g.id]);
  });
});
