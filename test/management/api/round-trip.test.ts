/**
 * Issue 17 item 12, "what the API returns, it accepts": a user, subject, project, organization
 * and OAuth client read with GET and PUT back unchanged answer 200 and change nothing, as a
 * system admin on the demo data. Two exceptions: a protected client stays 403, and a client PUT
 * without a secret (GET never returns one) keeps the stored secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { basic, managementClient, unique, type Json } from '../../helpers/management-api.js';
import { users } from '../../../src/management/schema.js';

let t: TestApp;
let mc: ReturnType<typeof managementClient>;
let admin: string;

beforeAll(async () => {
  t = await buildTestApp({}, { demoData: true });
  mc = managementClient(t.app);
  admin = await mc.tokenOf('admin', 'admin');
});
afterAll(async () => { await t.close(); });

const get = async (path: string) => {
  const res = await mc.call('GET', path, { bearer: admin });
  expect(res.status).toBe(200);
  return res.body as Json;
};
const put = (path: string, body: Json) => mc.call('PUT', path, { bearer: admin, body });
/** The parts of a DTO a PUT may legitimately move: who changed it last, and when. */
const stable = (dto: Json) => ({ ...dto, lastModifiedBy: undefined, lastModifiedDate: undefined });

describe('GET then PUT of the same body → 200, nothing changed', () => {
  it('a user (demo user oadmin, e-mail oadmin@localhost)', async () => {
    const dto = await get('/api/users/oadmin');
    expect(dto.email).toBe('oadmin@localhost');
    const res = await put('/api/users', dto);
    expect(res.status).toBe(200);
    expect(stable(res.body)).toEqual(stable(dto));
    expect(stable(await get('/api/users/oadmin'))).toEqual(stable(dto));
  });

  it('a subject', async () => {
    const dto = await get('/api/subjects/sub-1');
    const res = await put('/api/subjects', dto);
    expect(res.status).toBe(200);
    expect(stable(await get('/api/subjects/sub-1'))).toEqual(stable(dto));
  });

  it('a project', async () => {
    const dto = await get('/api/projects/radar');
    const res = await put('/api/projects', dto);
    expect(res.status).toBe(200);
    expect(stable(await get('/api/projects/radar'))).toEqual(stable(dto));
  });

  it('an organization', async () => {
    const dto = await get('/api/organizations/main');
    const res = await put('/api/organizations', dto);
    expect(res.status).toBe(200);
    expect(await get('/api/organizations/main')).toEqual(dto);
  });

  it('an OAuth client; the stored secret still authenticates afterwards', async () => {
    const clientId = unique('client');
    const created = await mc.call('POST', '/api/oauth-clients', {
      bearer: admin,
      body: { clientId, clientSecret: 'the-secret', resourceIds: ['res_ManagementPortal'], scope: ['SUBJECT.READ'], authorizedGrantTypes: ['client_credentials'] },
    });
    expect(created.status).toBe(201);
    const dto = await get(`/api/oauth-clients/${clientId}`);
    expect(dto.clientSecret).toBeNull();
    const res = await put('/api/oauth-clients', dto);
    expect(res.status).toBe(200);
    expect(await get(`/api/oauth-clients/${clientId}`)).toEqual(dto);
    const { clientSecret: _omitted, ...withoutSecret } = dto;
    expect((await put('/api/oauth-clients', withoutSecret)).status).toBe(200);
    const token = await mc.token({ grant_type: 'client_credentials' }, basic(clientId, 'the-secret'));
    expect(token).toMatchObject({ status: 200, access_token: expect.any(String) });
  });

  it('a protected client stays 403', async () => {
    const dto = await get('/api/oauth-clients/ManagementPortalapp');
    const res = await put('/api/oauth-clients', dto);
    expect(res.status).toBe(403);
  });
});

describe('GET, modify, PUT', () => {
  it('deactivates the demo organization admin oadmin', async () => {
    const dto = await get('/api/users/oadmin');
    expect(dto.activated).toBe(true);
    const res = await put('/api/users', { ...dto, activated: false });
    expect(res.status).toBe(200);
    expect(res.body.activated).toBe(false);
    const [row] = await t.app.db.db.select().from(users).where(eq(users.login, 'oadmin'));
    expect(row!.activated).toBe(false);
    expect(row!.email).toBe('oadmin@localhost');
  });

  it('takes any address javax @Email takes, and refuses what it refuses', async () => {
    const dto = await get('/api/users/padmin');
    for (const email of ['padmin@localhost', 'first.last+tag@sub.example.org', 'x@[127.0.0.1]', 'ü@bücher.de']) {
      const res = await put('/api/users', { ...dto, email });
      expect({ email, status: res.status }).toEqual({ email, status: 200 });
    }
    for (const email of ['padmin', 'padmin@', '@localhost', 'pad min@localhost', 'padmin@localhost.', 'padmin@-x']) {
      const res = await put('/api/users', { ...dto, email });
      expect({ email, status: res.status, field: res.body?.fieldErrors?.[0]?.field }).toEqual({ email, status: 400, field: 'email' });
    }
  });
});
