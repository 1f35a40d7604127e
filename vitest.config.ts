import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the suite on PGlite, and once more on PostgreSQL when TEST_DATABASE_URL is set
 * (.ci/run sets it). test/global-setup.ts migrates once per run; each test file boots from that
 * snapshot (PGlite) or from a copy of the migrated template database (PostgreSQL).
 *
 * Each database has two projects. `<db>` runs its files two at a time (vitest's default is one
 * worker on 2 cores) in worker processes that are reused from file to file (`isolate: false`: the
 * app's modules are imported once per worker, not once per file, which was a third of the run), so
 * a test file must not change process-wide state: no `vi.mock`, pass a fake through the code's own
 * options instead. On PGlite a worker also reuses its database instances from file to file, emptied
 * to the snapshot's state (test/helpers/pglite-pool.ts). `<db>-serial` runs the timing-sensitive files (outages, the soak, the
 * exactly-once race) one at a time, in fresh processes, after the rest, so that nothing else
 * competes with their clocks. Files whose behaviour does not depend on the database kind run in the PGlite project
 * only. `npm run test:slow` runs the long versions of the outages and the soak.
 */
const SERIAL = ['test/faults/**/*.test.ts', 'test/soak/**/*.test.ts', 'test/appserver/scheduler/exactly-once.test.ts'];

/** No database, or a database only as the app's plumbing: headers, documents, logs, config, lint. */
const DATABASE_INDEPENDENT = [
  'test/config.test.ts',
  'test/summary-reporter.test.ts',
  'test/lint-boundaries.test.ts',
  'test/scripts/*.test.ts',
  'test/*/layout.test.ts',
  'test/platform/{code-docs,database-unavailable,events,http-security,http-security-browser,input-guard}.test.ts',
  'test/platform/{log-files,log-format,logging,openapi,openapi-secrets,request-logger,router-errors,sentry}.test.ts',
  'test/management/authz/{oracle,permissions}.test.ts',
  'test/management/api/subjects/{count-cache,criteria}.test.ts',
  'test/management/oauth/{keystore,token-signing}.test.ts',
  'test/management/oauth/clients/clients-file.test.ts',
  'test/management/security/{bearer-token-cache,passwords}.test.ts',
  'test/appserver/github/{client,content-bounds}.test.ts',
  'test/appserver/protocols/{match,service}.test.ts',
  'test/appserver/schedules/generate.test.ts',
  'test/appserver/security/{key-sources,verifier}.test.ts',
];

type Project = { extends: true; test: Record<string, unknown> };

function projectsOf(db: 'pglite' | 'postgres', order: number): Project[] {
  const env = { TEST_DB: db };
  return [
    {
      extends: true,
      test: {
        name: db, env, include: ['test/**/*.test.ts'],
        exclude: [...SERIAL, ...(db === 'pglite' ? [] : DATABASE_INDEPENDENT)],
        sequence: { groupOrder: 0 }, isolate: false,
      },
    },
    { extends: true, test: { name: `${db}-serial`, env, include: SERIAL, fileParallelism: false, sequence: { groupOrder: order } } },
  ];
}

const projects = projectsOf('pglite', 1);
if (process.env.TEST_DATABASE_URL) projects.push(...projectsOf('postgres', 2));

export default defineConfig({
  test: {
    // No `include` here: a project's list would be added to it (`extends: true`).
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    projects,
  },
});
