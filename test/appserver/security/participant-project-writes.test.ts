/**
 * Issue 28 item 2: a participant cannot rename or reconfigure its app-server project.
 *
 * `PUT /projects/{projectId}` needed only `SUBJECT.UPDATE`, filled with the token's `sub`, so the
 * questionnaire-app token of a participant renamed its project: another project's admins then read
 * its participants (and their FCM tokens) while its own admins lost them. Renaming now needs
 * `PROJECT.UPDATE` on the project from an admin role (radar-auth's role table: system,
 * organization, project admin and owner) or a client-credentials token with the scope. What the
 * questionnaire app calls with its own token keeps the reference's rule (clients.md §2.1).
 *
 * This process's token endpoint narrows a user's scopes to its roles' permissions, so its
 * participant tokens never carry PROJECT.UPDATE; another ManagementPortal's (or a hand-made) token
 * may. The refused tokens below are therefore signed again with PROJECT.UPDATE added to their
 * scopes: the refusal must come from the role, not from a scope the token lacks.
 */
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { routeTable } from '../../helpers/route-table.js';
import { APP_SCOPES, appserverClientsFile, callAs, securedEnv } from '../../helpers/appserver-auth.js';
import { basic, managementClient } from '../../helpers/management-api.js';
import { DEFAULT_REPO, startGithubStub, type GithubStub } from '../../helpers/github-stub.js';
import { aParticipant, aProject as aManagementProject } from '../../fixtures/management.js';
import { aUserBody, errorBody, expectStatus, unique } from '../../fixtures/appserver.js';
import { organizations } from '../../../src/management/schema.js';
import { loadKeySet } from '../../../src/management/oauth/keystore.js';
import { createTokenSigning, type TokenSigning } from '../../../src/management/oauth/token-signing.js';

const KEYSTORE = fileURLToPath(new URL('../../fixtures/keystores/keytool-ec.p12', import.meta.url));

const FORBIDDEN = 'The requested resource is forbidden.';
/** A client for the users' password grants: the app server's scopes and PROJECT.UPDATE. */
const ALL_SCOPES = `${APP_SCOPES},PROJECT.UPDATE`;

let t: TestApp;
let github: GithubStub;
let signing: TokenSigning;
const table = routeTable();

beforeAll(async () => {
  github = await startGithubStub();
  const clients = appserverClientsFile();
  appendFileSync(clients, [
    `appperm_users;res_ManagementPortal,res_AppServer;secret;${ALL_SCOPES};password,refresh_token;;;43200;7948800;{};`,
    'appperm_rename;res_AppServer;secret;PROJECT.UPDATE;client_credentials;;;43200;7948800;{};',
    '',
  ].join('\n'));
  t = await buildTestApp(securedEnv({ MANAGEMENTPORTAL_OAUTH_CLIENTS_FILE: clients, MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, GITHUB_API_URL: github.url }), {
    onRoute: table.onRoute,
  });
  signing = createTokenSigning(await loadKeySet(
    { profile: 'dev', file: KEYSTORE, password: 'radarbase', signingAlias: 'radarbase-managementportal-ec', checkingAliases: [] }, { warn: () => {} },
  ));
}, 60_000);
afterAll(async () => {
  await signing?.close();
  await t?.close();
  await github?.close();
});

const mc = () => managementClient(t.app);
const db = () => t.app.db.db;

async function passwordToken(login: string, password = 'Passw0rd'): Promise<string> {
  const res = await mc().token({ grant_type: 'password', username: login, password }, basic('appperm_users', 'secret'));
  if (!res.access_token) throw new Error(`no token for ${login}: ${JSON.stringify(res)}`);
  return res.access_token as string;
}
const clientToken = async (clientId: string) => (await mc().token({ grant_type: 'client_credentials' }, basic(clientId, 'secret'))).access_token as string;
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const scopesOf = (jwt: string) => { const scope = claimsOf(jwt).scope; return Array.isArray(scope) ? scope as string[] : String(scope).split(' '); };
/** The same token, signed by the app's key with PROJECT.UPDATE among its scopes. */
const withProjectUpdate = async (jwt: string) => signing.sign({ ...claimsOf(jwt), scope: [...scopesOf(jwt), 'PROJECT.UPDATE'] });
const roleToken = async (authority: string, referent: { project?: string; organization?: string } = {}) =>
  passwordToken((await mc().userWithRole(authority, referent)).login);

/** A project of `main` in both domains, with two participants registered in the app server. */
async function aStudy() {
  const [main] = await db().select().from(organizations).where(eq(organizations.name, 'main'));
  const name = unique('radar');
  const project = await aManagementProject(db(), name, main!.id);
  const sys = await roleToken('ROLE_SYS_ADMIN');
  const p1 = await aParticipant(db(), { project, password: 'Passw0rd' });
  const p2 = await aParticipant(db(), { project, password: 'Passw0rd' });
  const dto = expectStatus(await callAs(t.app, sys, 'POST', '/projects', { projectId: name }), 201) as { id: number; projectId: string };
  for (const p of [p1, p2]) expectStatus(await callAs(t.app, sys, 'POST', `/projects/${name}/users`, aUserBody({ subjectId: p.login })), 201);
  return { name, id: dto.id, sys, participant: await passwordToken(p1.login), participantLogin: p1.login, otherParticipant: await passwordToken(p2.login) };
}
type Study = Awaited<ReturnType<typeof aStudy>>;

/** The project and its users as the sys admin reads them back. */
async function stateOf(s: Study) {
  return {
    byId: (await callAs(t.app, s.sys, 'GET', `/projects/project?id=${s.id}`)).json(),
    users: (await callAs(t.app, s.sys, 'GET', `/projects/${s.name}/users`)).json(),
  };
}

describe('project-level writes: a participant cannot rename its project', () => {
  it('the writes whose path names no subject are the creates, the participant\'s own registration and the rename', () => {
    // When a route joins this list, its participant rule must be decided (and tested) here.
    const writes = table.routes.filter((r) => /^(POST|PUT|PATCH|DELETE) /.test(r) && !r.includes(':subjectId') && !/ \/(managementportal|actuator)(\/|$)/.test(r));
    expect(writes.sort()).toEqual([
      'POST /project/:projectId/users', 'POST /projects', 'POST /projects/:projectId', 'POST /projects/:projectId/users', 'PUT /projects/:projectId',
    ]);
  });

  it('PUT /projects/{its project}: 403 to its participants and to roles without PROJECT.UPDATE; the project and its users stay', async () => {
    const s = await aStudy();
    const before = await stateOf(s);
    const tokens = {
      participant: await withProjectUpdate(s.participant),
      otherParticipant: await withProjectUpdate(s.otherParticipant),
      aRMT: s.participant,
      affiliate: await withProjectUpdate(await roleToken('ROLE_PROJECT_AFFILIATE', { project: s.name })),
      analyst: await withProjectUpdate(await roleToken('ROLE_PROJECT_ANALYST', { project: s.name })),
      otherAdmin: await roleToken('ROLE_PROJECT_ADMIN', { project: (await aManagementProject(db())).projectName }),
      clientWithoutScope: await clientToken('appserver_test'),
    };
    expect(scopesOf(tokens.participant)).toEqual(expect.arrayContaining(['PROJECT.UPDATE', 'SUBJECT.UPDATE', 'SUBJECT.READ']));
    expect(scopesOf(tokens.otherAdmin)).toContain('PROJECT.UPDATE');
    for (const [who, token] of Object.entries(tokens)) {
      for (const body of [{ id: s.id, projectId: 'Radar-Pilot-01' }, { projectId: 'Radar-Pilot-01' }]) {
        const res = await callAs(t.app, token, 'PUT', `/projects/${s.name}`, body);
        expect(res.statusCode, who).toBe(403);
        expect(res.json()).toEqual(errorBody(403, FORBIDDEN, `/projects/${s.name}`));
      }
    }
    expect(await stateOf(s)).toEqual(before);
    expect((before.byId as { projectId: string }).projectId).toBe(s.name);
    expect((await callAs(t.app, s.sys, 'GET', '/projects/Radar-Pilot-01')).statusCode).toBe(404);
  });

  it('a project admin or owner, an organization admin and a client with PROJECT.UPDATE rename it; its users follow', async () => {
    for (const who of ['admin', 'owner', 'orgAdmin', 'client'] as const) {
      const s = await aStudy();
      const token = who === 'client' ? await clientToken('appperm_rename')
        : who === 'orgAdmin' ? await roleToken('ROLE_ORGANIZATION_ADMIN', { organization: 'main' })
          : await roleToken(who === 'admin' ? 'ROLE_PROJECT_ADMIN' : 'ROLE_PROJECT_OWNER', { project: s.name });
      const renamed = unique('Radar-Pilot');
      const res = await callAs(t.app, token, 'PUT', `/projects/${s.name}`, { id: s.id, projectId: renamed });
      expect(res.statusCode, who).toBe(200);
      expect(res.json()).toMatchObject({ id: s.id, projectId: renamed });
      expect(expectStatus(await callAs(t.app, s.sys, 'GET', `/projects/project?id=${s.id}`), 200).projectId).toBe(renamed);
      expect((await callAs(t.app, s.sys, 'GET', `/projects/${s.name}`)).statusCode).toBe(404);
      expect((expectStatus(await callAs(t.app, s.sys, 'GET', `/projects/${renamed}/users`), 200).users as { subjectId: string }[]).map((u) => u.subjectId))
        .toContain(s.participantLogin);
    }
  });
});

describe('what the questionnaire app does with its participant token still works (clients.md §2.1)', () => {
  it('POST /projects for its project, GET /projects/{p}, POST /projects/{p}/users for itself, GET /github/content', async () => {
    const [main] = await db().select().from(organizations).where(eq(organizations.name, 'main'));
    const project = await aManagementProject(db(), unique('study'), main!.id);
    const me = await aParticipant(db(), { project, password: 'Passw0rd' });
    const token = await passwordToken(me.login);
    const name = project.projectName;

    expect((await callAs(t.app, token, 'GET', `/projects/${name}`)).statusCode).toBe(404);
    const created = expectStatus(await callAs(t.app, token, 'POST', '/projects', { projectId: name }), 201);
    expect(expectStatus(await callAs(t.app, token, 'GET', `/projects/${name}`), 200)).toEqual(created);
    expect(expectStatus(await callAs(t.app, token, 'POST', `/projects/${name}/users?forceFcmToken=true`, aUserBody({ subjectId: me.login })), 201))
      .toMatchObject({ projectId: name, subjectId: me.login });
    // Another subject stays closed, as before.
    expect((await callAs(t.app, token, 'POST', `/projects/${name}/users`, aUserBody({ subjectId: unique('someone') }))).statusCode).toBe(401);

    github.setFiles({ [`${name}/protocol.json`]: '{"version":"1"}' }, { branch: 'appperm' });
    const branch = expectStatus(await callAs(t.app, token, 'GET', `/github/content?url=${encodeURIComponent(`https://api.github.com/repos/${DEFAULT_REPO}/branches/appperm`)}`), 200);
    expect(branch.commit.commit.tree.url).toEqual(expect.stringContaining('/git/trees/'));
  });
});
