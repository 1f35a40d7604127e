/**
 * Talking to the management domain in tests: token requests, `/api` calls with a bearer token,
 * and users with one role (for permission tests). Bound to one test app.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from '@node-rs/bcrypt';
import type { FastifyInstance } from 'fastify';
import { organizations, projects, roles, roleUsers, users } from '../../src/management/schema.js';
import { eq } from 'drizzle-orm';
import { aParticipant } from '../fixtures/management.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
export type Json = any;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
/** The reference's `params.timestamp`. */
export const radarTimestamp = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

export interface ApiResponse { status: number; headers: Record<string, string | string[] | number | undefined>; body: Json }

export function managementClient(app: FastifyInstance, contextPath = '/managementportal') {
  async function token(form: Record<string, string>, auth?: string): Promise<Json> {
    const res = await app.inject({
      method: 'POST', url: `${contextPath}/oauth/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    return { status: res.statusCode, ...res.json() };
  }

  /** An access token of `login` through the admin UI's client (all scopes, narrowed to the roles). */
  async function tokenOf(login: string, password: string, scope?: string): Promise<string> {
    const res = await token({ grant_type: 'password', client_id: 'ManagementPortalapp', username: login, password, ...(scope ? { scope } : {}) });
    if (!res.access_token) throw new Error(`no token for ${login}: ${JSON.stringify(res)}`);
    return res.access_token as string;
  }

  /** A call under the context path (`/api/…`, `/management/…`); `body` is sent as JSON unless a string. */
  async function call(method: Method, path: string, opts: { bearer?: string; auth?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const authorization = opts.auth ?? (opts.bearer !== undefined ? `Bearer ${opts.bearer}` : undefined);
    const raw = typeof opts.body === 'string';
    const res = await app.inject({
      method, url: `${contextPath}${path}`,
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(opts.body !== undefined ? { 'content-type': raw ? 'text/plain' : 'application/json' } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { payload: raw ? opts.body as string : JSON.stringify(opts.body) } : {}),
    });
    let body: Json;
    try { body = res.body === '' ? undefined : res.json(); } catch { body = res.body; }
    return { status: res.statusCode, headers: res.headers, body };
  }

  /**
   * A new activated user with password `password` holding `authority` on a project or organization
   * (by name) or globally; returns its login and an access token.
   */
  async function userWithRole(authority: string, referent: { project?: string; organization?: string } = {}, password = 'Passw0rd') {
    const db = app.db.db;
    const login = unique('user');
    const [user] = await db.insert(users).values({ login, activated: true, passwordHash: await bcrypt.hash(password, 4), email: `${login}@example.org`, langKey: 'en' }).returning();
    let projectId: number | null = null;
    let organizationId: number | null = null;
    if (referent.project) projectId = (await db.select().from(projects).where(eq(projects.projectName, referent.project)))[0]!.id;
    if (referent.organization) organizationId = (await db.select().from(organizations).where(eq(organizations.name, referent.organization)))[0]!.id;
    let role = (await db.select().from(roles).where(eq(roles.authorityName, authority)))
      .find((r) => r.projectId === projectId && r.organizationId === organizationId);
    role ??= (await db.insert(roles).values({ authorityName: authority, projectId, organizationId }).returning())[0];
    await db.insert(roleUsers).values({ userId: user!.id, roleId: role!.id });
    return { login, userId: user!.id, token: await tokenOf(login, password) };
  }

  /** A new subject of `project` created through `POST /api/subjects` by `bearer`; its SubjectDTO. */
  async function subjectIn(project: { id: number; projectName: string }, bearer: string): Promise<Json> {
    const res = await call('POST', '/api/subjects', { bearer, body: { project: { id: project.id, projectName: project.projectName } } });
    if (res.status !== 201) throw new Error(`subject not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A client-credentials token of a new client holding `scopes` (audience res_ManagementPortal). */
  async function clientCredentials(scopes: readonly string[], adminToken: string): Promise<string> {
    const clientId = unique('client');
    const created = await call('POST', '/api/oauth-clients', { bearer: adminToken, body: { clientId, clientSecret: 'secret', resourceIds: ['res_ManagementPortal'], scope: scopes, authorizedGrantTypes: ['client_credentials'] } });
    if (created.status !== 201) throw new Error(`client not created: ${JSON.stringify(created.body)}`);
    return (await token({ grant_type: 'client_credentials' }, basic(clientId, 'secret'))).access_token as string;
  }

  /**
   * The principals a resource test asks about, around project `P` (in `main`) and `Q` (in another
   * organization): main's organization admin, P's and Q's project admins, a participant of P, a
   * client holding `clientScopes`, and one holding only SUBJECT.READ.
   */
  async function principals(P: { id: number; projectName: string }, Q: { projectName: string }, clientScopes: readonly string[], adminToken: string) {
    const participant = await aParticipant(app.db.db, { project: P, password: 'Passw0rd' });
    return {
      orgAdmin: (await userWithRole('ROLE_ORGANIZATION_ADMIN', { organization: 'main' })).token,
      projectAdmin: (await userWithRole('ROLE_PROJECT_ADMIN', { project: P.projectName })).token,
      otherAdmin: (await userWithRole('ROLE_PROJECT_ADMIN', { project: Q.projectName })).token,
      participant: await tokenOf(participant.login, 'Passw0rd'),
      client: await clientCredentials(clientScopes, adminToken),
      clientNoRead: await clientCredentials(['SUBJECT.READ'], adminToken),
    };
  }

  return { token, tokenOf, call, userWithRole, subjectIn, clientCredentials, principals };
}
