/**
 * The subject lists (managementportal.md §2.3 `GET /api/projects/{projectName}/subjects`, §2.5
 * `GET /api/subjects` with `SubjectCriteria`): keyset paging followed through the `Link` header to
 * the end with each sort (NULL external ids included), `X-Total-Count`, the criteria filters, the
 * look-up by project and external id, and the 400s of bad criteria.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, radarTimestamp, unique, type Json } from '../../../helpers/management-api.js';
import { aProject, aProjectIn, mainOrganization } from '../../../fixtures/management.js';
import { groups, roles, roleUsers, subjects, users } from '../../../../src/management/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;
let project: { id: number; projectName: string };
let groupId: number;
const prefix = unique('lst');

interface Seeded { id: number; login: string; externalId: string | null; inactive: boolean; other: boolean }
const seeded: Seeded[] = [];
const EXTERNAL_IDS = ['b', 'a', null, 'b', 'c', null, 'a2', 'd', null, 'b', 'a', 'e', null, 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o'];

beforeAll(async () => {
  t = await buildTestApp();
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
  const db = t.app.db.db;
  const main = await mainOrganization(db);
  project = await aProjectIn(db, main);
  const other = await aProject(db);
  groupId = (await db.insert(groups).values({ projectId: project.id, name: 'G1' }).returning())[0]!.id;
  const role = async (authorityName: string, projectId: number) => (await db.insert(roles).values({ authorityName, projectId }).returning())[0]!.id;
  const participant = await role('ROLE_PARTICIPANT', project.id);
  const inactive = await role('ROLE_INACTIVE_PARTICIPANT', project.id);
  const elsewhere = await role('ROLE_PARTICIPANT', other.id);
  // Logins in an order unrelated to the ids, so each sort is a different walk.
  const order = [7, 3, 12, 0, 19, 5, 22, 1, 15, 9, 2, 18, 11, 6, 21, 4, 14, 10, 17, 8, 20, 13, 16];
  for (let i = 0; i < EXTERNAL_IDS.length + 3; i++) {
    const login = `${prefix}-${String(order[i % order.length]! + (i >= EXTERNAL_IDS.length ? 50 : 0)).padStart(2, '0')}`;
    const [user] = await db.insert(users).values({ login, activated: i % 5 !== 0 }).returning();
    const kind = i < EXTERNAL_IDS.length ? 'participant' : i === EXTERNAL_IDS.length ? 'inactive' : 'other';
    await db.insert(roleUsers).values({ userId: user!.id, roleId: kind === 'participant' ? participant : kind === 'inactive' ? inactive : elsewhere });
    const externalId = i < EXTERNAL_IDS.length ? EXTERNAL_IDS[i]! : `x${i}`;
    const [subject] = await db.insert(subjects).values({
      userId: user!.id, externalId, personName: i % 3 === 0 ? `Person ${i}` : null,
      dateOfBirth: i < 4 ? `2000-01-0${i + 1}` : null,
      enrollmentDate: new Date(Date.UTC(2024, 2, 10, 20 + Math.min(i, 3), 30)),
      attributes: i % 4 === 0 ? { 'Human-readable-identifier': `HR-${i}` } : {},
      groupId: i % 2 === 0 ? groupId : null,
    }).returning();
    seeded.push({ id: subject!.id, login, externalId, inactive: kind === 'inactive', other: kind === 'other' });
  }
});
afterAll(async () => { await t.close(); });

const listed = () => seeded.filter((s) => !s.inactive && !s.other);
const base = () => `/api/projects/${project.projectName}/subjects`;
const get = (path: string, bearer = admin) => mc.call('GET', path, { bearer });
const nextOf = (res: { headers: Record<string, unknown> }) => {
  const link = res.headers.link as string | undefined;
  if (!link) return undefined;
  const m = /^<\/managementportal(\/api\/[^>]+)>; rel="next"$/.exec(link);
  expect(m).not.toBeNull();
  return m![1]!;
};

/** Follows `rel="next"` from `first` until a page is empty; returns the ids in order and the page sizes. */
async function walk(first: string) {
  const ids: number[] = [];
  const sizes: number[] = [];
  let path: string | undefined = first;
  while (path) {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe(String(listed().length));
    ids.push(...(res.body as Json[]).map((s) => s.id as number));
    sizes.push(res.body.length);
    path = res.body.length > 0 ? nextOf(res) : undefined;
    if (res.body.length === 0) expect(res.headers.link).toBeUndefined();
    expect(sizes.length).toBeLessThan(30);
  }
  return { ids, sizes };
}

const byId = (x: Seeded, y: Seeded) => x.id - y.id;
const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
/** PostgreSQL's order: NULLs last ascending, first descending; ties by the next key. */
function externalOrder(direction: 'asc' | 'desc', tie: (x: Seeded, y: Seeded) => number) {
  return (x: Seeded, y: Seeded) => {
    if (x.externalId === y.externalId) return tie(x, y);
    if (x.externalId === null) return direction === 'asc' ? 1 : -1;
    if (y.externalId === null) return direction === 'asc' ? -1 : 1;
    return (direction === 'asc' ? 1 : -1) * cmp(x.externalId, y.externalId);
  };
}

describe('keyset paging through the Link header', () => {
  const cases: [string, (x: Seeded, y: Seeded) => number][] = [
    ['', byId],
    ['&sort=id,desc', (x, y) => y.id - x.id],
    ['&sort=login', (x, y) => cmp(x.login, y.login)],
    ['&sort=login,desc', (x, y) => cmp(y.login, x.login)],
    ['&sort=externalId', externalOrder('asc', byId)],
    ['&sort=externalId,desc', externalOrder('desc', byId)],
    ['&sort=externalId,desc&sort=login,desc', externalOrder('desc', (x, y) => cmp(y.login, x.login))],
    ['&sort=externalId,asc,login', externalOrder('asc', (x, y) => cmp(x.login, y.login))],
  ];
  for (const [sort, order] of cases) {
    it(`walks every subject once in order${sort || ' (default: id)'}`, async () => {
      const { ids, sizes } = await walk(`${base()}?size=4${sort}`);
      expect(ids).toEqual([...listed()].sort(order).map((s) => s.id));
      expect(sizes).toEqual([4, 4, 4, 4, 4, 3, 0]);
    });
  }

  it('the Link carries the criteria and the last row\'s values; the default size is 20', async () => {
    const res = await get(`${base()}?sort=externalId&groupId=${groupId}&dateOfBirth.from=1999-01-01&authority=ROLE_PARTICIPANT`);
    expect(res.status).toBe(200);
    const last = res.body.at(-1);
    const expected = new URLSearchParams({ 'dateOfBirth.from': '1999-01-01', groupId: String(groupId), authority: 'ROLE_PARTICIPANT', size: '20', page: '0', sort: 'externalId,asc' });
    expected.append('sort', 'id,asc');
    expected.append('last.id', String(last.id));
    expected.append('last.login', last.login);
    if (last.externalId) expected.append('last.externalId', last.externalId);
    expect(res.headers.link).toBe(`</managementportal${base()}?${expected.toString()}>; rel="next"`);
    expect((await get(base())).body).toHaveLength(20);
  });

  it('page numbers without a cursor still work (offset)', async () => {
    const res = await get(`${base()}?size=5&page=2`);
    expect(res.body.map((s: Json) => s.id)).toEqual(listed().sort(byId).slice(10, 15).map((s) => s.id));
  });

  it('lists subjects without project, with roles, sources and status', async () => {
    const [first] = (await get(`${base()}?size=1`)).body as Json[];
    expect(first).toEqual({
      id: listed()[0]!.id, login: listed()[0]!.login, externalLink: null, externalId: 'b', status: 'DEACTIVATED',
      group: 'G1', dateOfBirth: '2000-01-01', enrollmentDate: '2024-03-10T20:30:00.000Z', personName: 'Person 0',
      roles: [{ id: expect.any(Number), projectId: project.id, projectName: project.projectName, authorityName: 'ROLE_PARTICIPANT' }],
      sources: [], attributes: { 'Human-readable-identifier': 'HR-0' },
    });
  });
});

describe('criteria', () => {
  const logins = async (query: string, path = base()) => {
    const res = await get(`${path}?size=100&${query}`);
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe(String(res.body.length));
    return (res.body as Json[]).map((s) => s.login as string).sort();
  };
  const expectLogins = (pred: (s: Seeded, i: number) => boolean) => listed().filter(pred).map((s) => s.login).sort();

  it('externalId, login, personName (case-insensitive substrings) and humanReadableIdentifier', async () => {
    expect(await logins('externalId=A')).toEqual(expectLogins((s) => s.externalId?.includes('a') ?? false));
    expect(await logins(`login=${seeded[3]!.login.toUpperCase()}`)).toEqual([seeded[3]!.login]);
    expect(await logins('personName=person 1')).toEqual(expectLogins((_, i) => [12, 15, 18].includes(i)));
    expect(await logins('humanReadableIdentifier=HR-1')).toEqual(expectLogins((_, i) => [12, 16].includes(i)));
    expect(await logins('externalId=%25')).toEqual([]); // % is a character, not a wildcard
    expect(await logins('externalId=null&login=')).toEqual(expectLogins(() => true));
  });

  it('groupId, dateOfBirth and enrollmentDate ranges (a zone id is honoured)', async () => {
    expect(await logins(`groupId=${groupId}`)).toEqual(expectLogins((_, i) => i % 2 === 0));
    expect(await logins('dateOfBirth.is=2000-01-02')).toEqual([seeded[1]!.login]);
    expect(await logins('dateOfBirth.from=2000-01-02&dateOfBirth.to=2000-01-03')).toEqual([seeded[1]!.login, seeded[2]!.login].sort());
    expect(await logins('enrollmentDate.to=2024-03-10T21:30:00Z')).toEqual([seeded[0]!.login, seeded[1]!.login].sort());
    // 23:30 UTC is 00:30 on March 11 in Amsterdam (UTC+1).
    expect(await logins('enrollmentDate.from=2024-03-11T00:00[Europe/Amsterdam]')).toEqual(expectLogins((_, i) => i >= 3));
    expect(await logins('enrollmentDate.is=2024-03-10T21:30:00.000%2B00:00')).toEqual([seeded[1]!.login]);
  });

  it('authority: participants by default, inactive ones on request (repeated or comma-separated)', async () => {
    const inactive = seeded.find((s) => s.inactive)!;
    expect(await logins('authority=ROLE_INACTIVE_PARTICIPANT')).toEqual([inactive.login]);
    const both = expectLogins(() => true).concat(inactive.login).sort();
    expect(await logins('authority=ROLE_PARTICIPANT&authority=ROLE_INACTIVE_PARTICIPANT')).toEqual(both);
    expect(await logins('authority=ROLE_PARTICIPANT,ROLE_INACTIVE_PARTICIPANT')).toEqual(both);
  });

  it('GET /api/subjects: all projects, or one with projectName; projectName + externalId is the one subject', async () => {
    const all = await get(`/api/subjects?size=2000&login=${prefix}`);
    expect(all.body.map((s: Json) => s.login).sort()).toEqual(seeded.filter((s) => !s.inactive).map((s) => s.login).sort());
    expect(await logins(`projectName=${project.projectName}`, '/api/subjects')).toEqual(expectLogins(() => true));
    expect(await logins('projectName=no-such-project', '/api/subjects')).toEqual([]);

    const one = await get(`/api/subjects?projectName=${project.projectName}&externalId=e`);
    expect(one.status).toBe(200);
    expect(one.headers['x-total-count']).toBeUndefined();
    expect(one.body).toEqual([expect.objectContaining({
      login: seeded[11]!.login, externalId: 'e', createdDate: expect.any(String),
      project: expect.objectContaining({ projectName: project.projectName, organizationName: 'main' }),
    })]);
    expect(one.body[0].project.organization).toBeUndefined();
    expect({ status: (await get(`/api/subjects?projectName=${project.projectName}&externalId=zzz`)).status }).toEqual({ status: 404 });
  });

  it('bad criteria are 400', async () => {
    const bad = async (query: string, message: string) => {
      const res = await get(`${base()}?${query}`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400, body: { message, entityName: 'subject', errorCode: 'error.validation', params: { timestamp: expect.stringMatching(radarTimestamp) } },
      });
    };
    await bad('sort=personName', 'Cannot convert sort parameter personName to subject property');
    await bad('sort=login&last.id=5', 'No last value given for sort property login');
    await bad('dateOfBirth.is=2000-02-30', 'Invalid value for dateOfBirth.is: 2000-02-30');
    await bad('enrollmentDate.from=2024-01-01T00:00[Mars/Olympus]', 'Invalid value for enrollmentDate.from: 2024-01-01T00:00[Mars/Olympus]');
    await bad('dateOfBirth.from=2001-01-01&dateOfBirth.to=2000-01-01', 'CriteriaRange must have a from range that is smaller then the to range.');
    await bad('authority=ROLE_SYS_ADMIN', 'Unknown authority ROLE_SYS_ADMIN; one of ROLE_PARTICIPANT, ROLE_INACTIVE_PARTICIPANT');
    for (const query of ['size=0', 'last.id=abc', 'groupId=x', 'page=-1']) {
      const res = await get(`${base()}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('error.validation');
    }
  });

  it('accepts the managementportal-client\'s size=2147483647', async () => {
    const res = await get(`${base()}?page=0&size=2147483647`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(listed().length);
  });
});
