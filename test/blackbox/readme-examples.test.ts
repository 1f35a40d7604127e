/**
 * The README's curl examples work as printed: each `curl` line of its ```sh blocks runs, in
 * order, against a live server on a fresh database (the host is the only thing replaced).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { startGithubStub, type GithubStub } from '../helpers/github-stub.js';

const run = promisify(execFile);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n'))
  .filter((line) => line.startsWith('curl ') && line.includes('http://localhost:8080/') && !line.includes('/actuator/'));

let t: TestApp;
let base: string;
let github: GithubStub;
beforeAll(async () => {
  // The protocol examples read the protocol repository: the stub holds one for the README's project.
  github = await startGithubStub();
  github.setFiles({ 'study-1/protocol.json': '{"name":"study-1","protocols":[]}' });
  t = await buildTestApp({ GITHUB_API_URL: github.url });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await t.close();
  await github.close();
});

describe('README curl examples', () => {
  it('has examples for a project, a user and a notification', () => {
    expect(examples.some((c) => c.includes('/projects '))).toBe(true);
    expect(examples.some((c) => /\/projects\/[^/ ]+\/users /.test(c))).toBe(true);
    expect(examples.some((c) => c.includes('/messaging/notifications '))).toBe(true);
  });

  it('runs every example in order with a 2xx answer and a JSON body', async () => {
    for (const command of examples) {
      const { stdout } = await run('sh', ['-c', `${command.replaceAll('http://localhost:8080', base)} -w '\\n%{http_code}'`]);
      const lines = stdout.trimEnd().split('\n');
      const status = Number(lines.pop());
      expect(status, command).toBeGreaterThanOrEqual(200);
      expect(status, command).toBeLessThan(300);
      expect(() => JSON.parse(lines.join('\n')), command).not.toThrow();
    }
  });
});
