import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs every suite on PGlite, and once more on PostgreSQL when TEST_DATABASE_URL is
 * set (.ci/run sets it). test/global-setup.ts migrates once per run; each test file boots from
 * that snapshot (PGlite) or from a copy of the migrated template database (PostgreSQL).
 */
const projects: { extends: true; test: { name: string; env: Record<string, string> } }[] = [{ extends: true, test: { name: 'pglite', env: { TEST_DB: 'pglite' } } }];
if (process.env.TEST_DATABASE_URL) {
  projects.push({ extends: true, test: { name: 'postgres', env: { TEST_DB: 'postgres' } } });
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects,
  },
});
