/**
 * One app per test file with `GITHUB_API_URL` at a GitHub stub of its own (vitest hooks): built
 * before the file's tests, closed after them; the stub's faults, own answers and delay are cleared before each
 * test.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildTestApp, type TestApp } from './build-test-app.js';
import { startGithubStub, type GithubStub } from './github-stub.js';

export interface AppWithGithub {
  t: TestApp;
  github: GithubStub;
}

export function appWithGithubStub(env: Record<string, string> = {}): AppWithGithub {
  const ctx = {} as AppWithGithub;
  beforeAll(async () => {
    ctx.github = await startGithubStub();
    ctx.t = await buildTestApp({ GITHUB_API_URL: ctx.github.url, ...env });
  });
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.github?.close();
  });
  beforeEach(() => {
    ctx.github.fault = () => undefined;
    ctx.github.respond = () => undefined;
    ctx.github.delayMs = 0;
  });
  return ctx;
}
