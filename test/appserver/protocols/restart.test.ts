/**
 * A restart while GitHub is unreachable (issue 20 item 3): the protocols (R1–R3) and the
 * `/github/content` bodies the first instance fetched are served by the restarted one, from the
 * database, without GitHub. PostgreSQL: the same database; PGlite: the first instance's data
 * directory loaded by the second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { until } from '../../helpers/eventually.js';
import { onPostgres, testDatabase } from '../../helpers/build-test-app.js';
import { DEFAULT_REPO, startGithubStub, type GithubStub } from '../../helpers/github-stub.js';
import { aProject, aSubject, call, expectStatus } from '../../fixtures/appserver.js';
import { aProtocolText } from '../../fixtures/protocols.js';

let github: GithubStub;
let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  github = await startGithubStub();
  database = await testDatabase();
});
afterAll(async () => {
  await github.close();
  await database.drop();
});

async function start(pgliteDataDir: Blob | undefined): Promise<FastifyInstance> {
  // Duration 0: copies are stale at once, so the restarted instance does try GitHub.
  const config = loadConfig({ PROFILE: 'dev', SCHEDULER_ENABLED: 'false', GITHUB_API_URL: github.url, SECURITY_GITHUB_CACHE_DURATION: '0', ...database.env }, '0.0.0-test');
  const app = await buildApp(config, { logger: false, demoData: false, pgliteDataDir });
  await app.ready();
  return app;
}

/** Closes the app and returns what the next instance starts from (PGlite keeps its data in memory). */
async function stop(app: FastifyInstance): Promise<Blob | undefined> {
  const dump = onPostgres() ? undefined : await (app.db.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
  await app.close();
  return dump;
}

describe('restart with GitHub down', () => {
  it('serves the protocols and the proxied GitHub bodies the previous instance stored', async () => {
    let app = await start(database.pgliteDataDir);
    const project = await aProject(app);
    const files = { [`${project}/protocol.json`]: aProtocolText('plain'), [`${project}/site/a/protocol.json`]: aProtocolText('site-a') };
    github.setFiles(files);
    const subject = await aSubject(app, { projectId: project, body: { attributes: { site: 'a' } } });
    const userPath = `/projects/${project}/users/${subject.subjectId}/protocols`;
    const branchUrl = `/github/content?url=${encodeURIComponent(`https://api.github.com/repos/${DEFAULT_REPO}/branches/master`)}`;

    const before = {
      project: (await call(app, 'GET', `/projects/${project}/protocols`)).body,
      user: (await call(app, 'GET', userPath)).body,
      all: expectStatus(await call(app, 'GET', '/protocols'), 200),
      branch: (await call(app, 'GET', branchUrl)).body,
    };
    expect(before.project).toBe(files[`${project}/protocol.json`]);
    expect(before.user).toBe(files[`${project}/site/a/protocol.json`]);

    github.fault = () => 'reset';
    app = await start(await stop(app));
    const asked = github.requests.length;
    try {
      expect(await call(app, 'GET', `/projects/${project}/protocols`)).toMatchObject({ statusCode: 200, body: before.project });
      expect(await call(app, 'GET', userPath)).toMatchObject({ statusCode: 200, body: before.user });
      expect(expectStatus(await call(app, 'GET', '/protocols'), 200)).toEqual(before.all);
      expect(await call(app, 'GET', branchUrl)).toMatchObject({ statusCode: 200, body: before.branch });
      // GitHub was asked (in the background, and failed): the answers came from the database.
      await until(() => expect(github.requests.length).toBeGreaterThan(asked));
      // A URL never fetched before still gets the 502.
      const never = `/github/content?url=${encodeURIComponent(`https://api.github.com/repos/${DEFAULT_REPO}/branches/never`)}`;
      expect((await call(app, 'GET', never)).statusCode).toBe(502);
    } finally {
      github.fault = () => undefined;
      await app.close();
    }
  });
});
