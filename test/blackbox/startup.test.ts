/**
 * Start-up, shutdown and configuration errors of the real process: spawns `node dist/main.js`
 * (built by `npm run build`, which `pretest` runs) with a clean environment per case.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { request, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  BANNER, halfSent, killServices, spawnService, started, TEST_KEYSTORE as KEYSTORE, waitFor, type ServiceProcess,
} from '../helpers/service-process.js';
import { builtService, MAIN } from '../helpers/service-process.js';

const CODE_DOCS_INDEX = fileURLToPath(new URL('../../dist/java-docs/index.html', import.meta.url));
import { pgliteProject, postgresProject, requires } from '../helpers/requires.js';

afterEach(killServices);

/** Exit code, failing the test when the process is still running after `seconds`. */
async function exitCode(proc: ServiceProcess, seconds: number): Promise<number | null> {
  const result = await Promise.race([proc.exited, sleep(seconds * 1000, undefined)]);
  if (!result) throw new Error(`still running after ${seconds} s.\nstderr: ${proc.stderr()}`);
  return result.code;
}

/** One HTTP request on its own connection (no pooled keep-alive connection to reuse). */
function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('dist/main.js', requires(builtService), () => {
  describe('dev profile', requires(pgliteProject), () => {
    it('prints the banner, is healthy, and on SIGTERM finishes the request in flight and exits 0', async () => {
      const proc = spawnService({ PROFILE: 'dev', LOG_LEVEL: 'info' });
      const base = await started(proc);
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(BANNER.exec(proc.stdout())!.slice(1, 4)).toEqual([expect.any(String), 'dev', 'PGlite']);

      const health = await send(`${base}/actuator/health`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'UP', components: { db: { status: 'UP', details: { database: 'PGlite' } } } });

      // A request in flight: headers sent, half of the body still to come.
      const projectId = `inflight-${randomBytes(4).toString('hex')}`;
      const inFlight = halfSent(`${base}/projects`, { projectId });
      await waitFor('the server to receive the request', 10, () =>
        (/"url":"\/projects".*"msg":"incoming request"/.test(proc.stdout()) ? true : undefined));

      proc.child.kill('SIGTERM');
      await waitFor('the shutdown to begin', 10, () => (/"msg":"shutting down"/.test(proc.stdout()) ? true : undefined));

      // No new connections once the listener is closed (close() gets there shortly after the log line)...
      await waitFor('new connections to be refused', 10, () => send(`${base}/actuator/health`).then(
        () => undefined,
        (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? true : undefined),
      ));
      // ...but the request in flight completes.
      const created = await inFlight.finish();
      expect(created.status).toBe(201);
      expect(JSON.parse(created.body)).toMatchObject({ projectId });

      expect(await exitCode(proc, 60)).toBe(0);
    }, 90_000);
  });

  describe('the bundle (npm run build: scripts/bundle.mjs)', requires(pgliteProject), () => {
    it('dist/main.js is bundled and finds the files beside it: migrations, views, public content, Swagger UI, code docs', async () => {
      expect(readFileSync(MAIN, 'utf8').startsWith('// Bundled by scripts/bundle.mjs')).toBe(true);
      const proc = spawnService({ PROFILE: 'dev' });
      const base = await started(proc);
      expect((await send(`${base}/actuator/health`)).status).toBe(200);
      // The demo data (on the migrated schema, from the snapshot or freshly migrated).
      expect((await send(`${base}/projects`)).body).toContain('"projectId":"radar"');
      const signIn = await send(`${base}/managementportal/login`);
      expect(signIn.status).toBe(200);
      expect(signIn.body).toContain('<form');
      expect((await send(`${base}/managementportal/content/ui.css`)).status).toBe(200);
      expect((await send(`${base}/swagger-ui/`)).status).toBe(200);
      // The YAML documents, with yaml loaded on their first request (platform/openapi.ts): the JSON document's content.
      const document = JSON.parse((await send(`${base}/v3/api-docs`)).body) as { paths: object };
      expect(Object.keys(document.paths).length).toBeGreaterThan(100);
      expect(parse((await send(`${base}/v3/api-docs.yaml`)).body)).toEqual(document);
      expect(parse((await send(`${base}/swagger-ui/yaml`)).body)).toEqual(document);
      expect((await send(`${base}/java-docs/`)).status).toBe(existsSync(CODE_DOCS_INDEX) ? 200 : 404);
    }, 90_000);
  });

  describe('configuration errors stop the start and name the variable', requires(pgliteProject), () => {
    it('prod without DATABASE_URL', async () => {
      const proc = spawnService({ PROFILE: 'prod', RADAR_ADMIN_PASSWORD: 'secret1' });
      expect(await exitCode(proc, 60)).not.toBe(0);
      expect(proc.stderr()).toMatch(/^\s*DATABASE_URL: required in the prod profile/m);
      expect(proc.stdout()).not.toMatch(BANNER);
    }, 90_000);

    it('a wrong keystore password or a missing keystore (prod), before the database is touched', async () => {
      const base = { PROFILE: 'prod', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x', RADAR_ADMIN_PASSWORD: 'secret1', BOOT_WAIT_SECONDS: '30', MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org' };
      const wrong = spawnService({ ...base, MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: 'wrong' });
      const missing = spawnService({ ...base, MANAGEMENTPORTAL_OAUTH_KEY_STORE: '/nonexistent/keystore.p12' });
      expect(await exitCode(wrong, 20)).toBe(1);
      expect(wrong.stderr()).toMatch(/MANAGEMENTPORTAL_OAUTH_KEY_STORE_PASSWORD: wrong password for keystore/);
      expect(await exitCode(missing, 20)).toBe(1);
      expect(missing.stderr()).toMatch(/MANAGEMENTPORTAL_OAUTH_KEY_STORE: keystore file not found: \/nonexistent\/keystore\.p12/);
    }, 90_000);

    it('a PORT that is not a number', async () => {
      const proc = spawnService({ PROFILE: 'dev', PORT: 'abc' });
      expect(await exitCode(proc, 60)).not.toBe(0);
      expect(proc.stderr()).toMatch(/^\s*PORT: must be an integer, got "abc"/m);
    }, 90_000);

    it('prod without RADAR_ADMIN_PASSWORD', async () => {
      const proc = spawnService({ PROFILE: 'prod', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' });
      expect(await exitCode(proc, 60)).not.toBe(0);
      expect(proc.stderr()).toMatch(/^\s*RADAR_ADMIN_PASSWORD: required in the prod profile/m);
      expect(proc.stderr()).not.toContain('DATABASE_URL');
    }, 90_000);

    it('an unreachable database fails after BOOT_WAIT_SECONDS', async () => {
      const begun = Date.now();
      const proc = spawnService({
        PROFILE: 'prod', DATABASE_URL: 'postgres://postgres:pw-not-shown@127.0.0.1:1/x', BOOT_WAIT_SECONDS: '1', RADAR_ADMIN_PASSWORD: 'secret1',
        MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org',
      });
      expect(await exitCode(proc, 60)).not.toBe(0);
      expect(Date.now() - begun).toBeLessThan(15_000);
      expect(proc.stderr()).toMatch(/Cannot connect to PostgreSQL .* after 1 s \(BOOT_WAIT_SECONDS\)/);
      expect(proc.stderr() + proc.stdout()).not.toContain('pw-not-shown');
    }, 90_000);
  });

  describe('prod profile on PostgreSQL', requires(postgresProject), () => {
    it('two processes starting together on a fresh database both become healthy; migrations run once', async () => {
      const { default: postgres } = await import('postgres');
      const adminUrl = process.env.TEST_DATABASE_URL!;
      const name = `radar_startup_${randomBytes(6).toString('hex')}`;
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      try {
        const env = {
          PROFILE: 'prod', DATABASE_URL: url.toString(), RADAR_ADMIN_PASSWORD: 'secret1', LOG_LEVEL: 'info', FCMSERVER_FCMSENDER: 'disabled',
          MANAGEMENTPORTAL_OAUTH_KEY_STORE: KEYSTORE, MANAGEMENTPORTAL_COMMON_ADMIN_PASSWORD: 'admin-secret1', MANAGEMENTPORTAL_MAIL_FROM: 'portal@example.org',
        };
        const procs = [spawnService(env), spawnService(env)];
        const bases = await Promise.all(procs.map((proc) => started(proc)));
        for (const [i, base] of bases.entries()) {
          expect(BANNER.exec(procs[i]!.stdout())!.slice(2, 4)).toEqual(['prod', 'PostgreSQL']);
          const health = await send(`${base}/actuator/health`);
          expect(health.status).toBe(200);
          expect(JSON.parse(health.body)).toMatchObject({ status: 'UP', components: { db: { status: 'UP', details: { database: 'PostgreSQL' } } } });
        }

        // The log warns the operator exactly when the server would let the notification queue bloat.
        const [setting] = await admin<{ autovacuum: string }[]>`show autovacuum`;
        for (const proc of procs) expect(proc.stdout().includes('PostgreSQL runs with autovacuum off')).toBe(setting!.autovacuum !== 'on');

        const journal = JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };
        const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
        try {
          const [row] = await db`select count(*)::int as n from drizzle.__drizzle_migrations`;
          expect(row!.n).toBe(journal.entries.length);
        } finally {
          await db.end();
        }

        for (const proc of procs) proc.child.kill('SIGTERM');
        for (const proc of procs) expect(await exitCode(proc, 60)).toBe(0);
      } finally {
        await killServices();
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    }, 120_000);
  });
});
