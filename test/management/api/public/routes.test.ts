/**
 * The management API's public endpoints (managementportal.md §1.1, §2.3, §2.11, §14
 * ProfileInfoResourceIntTest): `/api/public/projects`, `/api/profile-info`, `/api/sitesettings`,
 * all without authentication, with the settings they report taken from the configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { buildTestApp, type TestApp } from '../../../helpers/build-test-app.js';
import { managementClient, unique, type Json } from '../../../helpers/management-api.js';
import { sourceTypes } from '../../../../src/management/schema.js';
import { publicRoutes } from '../../../../src/management/api/public/routes.js';
import { createPublicService } from '../../../../src/management/api/public/service.js';

let t: TestApp;
let mp: ReturnType<typeof managementClient>;
let admin: string;

beforeAll(async () => {
  t = await buildTestApp({
    MANAGEMENTPORTAL_SITE_SETTINGS_HIDDEN_SUBJECT_FIELDS: 'person_name, date_of_birth',
    MANAGEMENTPORTAL_OAUTH_PERSISTENT_META_TOKEN_TIMEOUT: 'P2D',
  });
  mp = managementClient(t.app);
  admin = await mp.tokenOf('admin', 'admin');
});
afterAll(async () => { await t.close(); });

async function aProject(over: Json = {}) {
  const res = await mp.call('POST', '/api/projects', { bearer: admin, body: { projectName: unique('project'), description: 'Public description', location: 'l', organizationName: 'main', ...over } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('GET /api/public/projects', () => {
  it('lists every project\'s name, description and minimal source types to anyone, paged', async () => {
    const [type] = await t.app.db.db.insert(sourceTypes).values({ producer: 'Empatica', model: unique('E4'), catalogVersion: 'v1', sourceTypeScope: 'PASSIVE', description: 'secret-ish' }).returning();
    const a = await aProject({ sourceTypes: [{ id: type!.id }], attributes: { 'Privacy-policy-url': 'https://p' } });
    const b = await aProject();
    const res = await mp.call('GET', '/api/public/projects');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { projectName: a.projectName, description: 'Public description', sourceTypes: [{ id: type!.id, model: type!.model, producer: 'Empatica', catalogVersion: 'v1' }] },
      { projectName: b.projectName, description: 'Public description', sourceTypes: [] },
    ]);
    expect(res.headers['x-total-count']).toBe('2');
    const page = await mp.call('GET', '/api/public/projects?page=1&size=1&sort=projectName,desc');
    const [, second] = [a.projectName, b.projectName].sort().reverse();
    expect(page.body).toEqual([{ projectName: second, description: 'Public description', sourceTypes: expect.any(Array) }]);
    expect(page.headers.link).toContain('rel="prev"');
    expect((await mp.call('GET', '/api/public/projects?sort=description,asc')).status).toBe(400);
    // A bearer header, even a bad one, is no reason to refuse a public endpoint.
    expect((await mp.call('GET', '/api/public/projects', { bearer: 'garbage' })).status).toBe(200);
  });
});

describe('GET /api/profile-info and /api/sitesettings', () => {
  it('the active profile and the hidden subject fields, without authentication', async () => {
    const profile = await mp.call('GET', '/api/profile-info');
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual({ activeProfiles: ['dev'] });
    const settings = await mp.call('GET', '/api/sitesettings', { bearer: 'garbage' });
    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({ hiddenSubjectFields: ['person_name', 'date_of_birth'] });
  });

  it('the prod profile reports prod; no hidden fields is an empty list', async () => {
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    await app.register(publicRoutes, { service: createPublicService({ db: t.app.db.db }), profile: 'prod', hiddenSubjectFields: [], prefix: '/api' });
    try {
      expect((await app.inject('/api/profile-info')).json()).toEqual({ activeProfiles: ['prod'] });
      expect((await app.inject('/api/sitesettings')).json()).toEqual({ hiddenSubjectFields: [] });
    } finally {
      await app.close();
    }
  });
});

describe('configuration seen through the projects', () => {
  it('persistentTokenTimeout is the configured persistent meta-token lifetime in ms', async () => {
    const p = await aProject();
    expect(p.persistentTokenTimeout).toBe(2 * 86400 * 1000);
    expect((await mp.call('GET', `/api/projects/${p.projectName}`, { bearer: admin })).body.persistentTokenTimeout).toBe(2 * 86400 * 1000);
  });
});
