/**
 * The code documentation (platform/code-docs.ts): TypeDoc's HTML of src/ from `npm run docs`
 * (run by `npm ci`'s prepare), served with its assets at `<APPSERVER_CONTEXT_PATH>/java-docs/`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_DOCS_DIR, codeDocsPlugin } from '../../src/platform/code-docs.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';

describe('the code documentation', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp(); });
  afterAll(async () => { await t.close(); });

  it('is built (npm run docs, run by npm ci)', () => {
    expect(existsSync(join(CODE_DOCS_DIR, 'index.html')), `${CODE_DOCS_DIR}index.html: run npm run docs`).toBe(true);
  });

  it('is served at /java-docs/index.html, documenting buildApp', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/java-docs/index.html' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.body).toContain('RADAR platform');
    const buildApp = await t.app.inject({ method: 'GET', url: '/java-docs/functions/app.buildApp.html' });
    expect(buildApp.statusCode).toBe(200);
    expect(buildApp.body).toContain('buildApp');
  });

  it('serves its assets, and /java-docs/ is the index', async () => {
    const css = await t.app.inject({ method: 'GET', url: '/java-docs/assets/style.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const root = await t.app.inject({ method: 'GET', url: '/java-docs/' });
    expect(root.statusCode).toBe(200);
    expect(root.body).toContain('RADAR platform');
    const bare = await t.app.inject({ method: 'GET', url: '/java-docs' });
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/java-docs/');
  });

  it('answers 404 for a page that does not exist, and serves nothing outside its folder', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/java-docs/no-such-page.html' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/java-docs/../../package.json' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/java-docs/%2e%2e/%2e%2e/package.json' })).statusCode).toBe(404);
  });
});

describe('the code documentation under APPSERVER_CONTEXT_PATH', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ APPSERVER_CONTEXT_PATH: '/appserver' }); });
  afterAll(async () => { await t.close(); });

  it('is served beside the app server\'s API', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/appserver/java-docs/index.html' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/java-docs/index.html' })).statusCode).toBe(404);
  });
});

describe('the code documentation with the app server\'s token check on', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ SECURITY_RADAR_MANAGEMENTPORTAL_ENABLED: 'true' }); });
  afterAll(async () => { await t.close(); });

  it('stays open', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/projects' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/java-docs/index.html' })).statusCode).toBe(200);
  });
});

describe('without built documentation', () => {
  it('answers 404', async () => {
    const app = Fastify();
    await app.register(codeDocsPlugin, { path: '/java-docs/', root: join(CODE_DOCS_DIR, 'not-built') });
    expect((await app.inject({ method: 'GET', url: '/java-docs/index.html' })).statusCode).toBe(404);
    await app.close();
  });
});
