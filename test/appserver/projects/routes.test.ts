import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, payload: payload as object });

describe('projects', () => {
  it('creates a project with 201, Location and epoch-second dates', async () => {
    const res = await post('/projects', { projectId: 'p-create' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`/projects/project?id=${body.id}`);
    expect(body).toEqual({ id: expect.any(Number), projectId: 'p-create', createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    expect(Math.abs(body.createdAt - Date.now() / 1000)).toBeLessThan(60);
  });

  it('refuses a duplicate, a supplied id and an empty projectId with 417', async () => {
    await post('/projects', { projectId: 'p-dup' });
    const dup = await post('/projects', { projectId: 'p-dup' });
    expect(dup.statusCode).toBe(417);
    expect(dup.json()).toMatchObject({ status: 417, path: 'uri=/projects', cause: expect.stringContaining('already exists') });
    expect((await post('/projects', { id: 3, projectId: 'x' })).statusCode).toBe(417);
    expect((await post('/projects', { projectId: '' })).statusCode).toBe(417);
  });

  it('reads projects by projectId, by id and as a list', async () => {
    const created = (await post('/projects', { projectId: 'p-read' })).json();
    expect((await t.app.inject('/projects/p-read')).json()).toEqual(created);
    expect((await t.app.inject(`/projects/project?id=${created.id}`)).json()).toEqual(created);
    const list = (await t.app.inject('/projects')).json();
    expect(list.projects).toContainEqual(created);
    const missing = await t.app.inject('/projects/nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ timestamp: expect.any(Number), status: 404, message: 'Project not found with projectId nope', path: 'uri=/projects/nope' });
  });

  it('POST /projects/{projectId} creates that project and checks the body projectId', async () => {
    const res = await post('/projects/p-path', {});
    expect(res.statusCode).toBe(201);
    expect(res.json().projectId).toBe('p-path');
    expect((await post('/projects/p-path2', { projectId: 'other' })).statusCode).toBe(400);
    expect((await t.app.inject('/projects/p-path2')).statusCode).toBe(404);
  });

  it('renames the project named in the path; 417 without projectId, 404 for an unknown path', async () => {
    const created = (await post('/projects', { projectId: 'p-old' })).json();
    const res = await t.app.inject({ method: 'PUT', url: '/projects/p-old', payload: { id: created.id, projectId: 'p-new' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: created.id, projectId: 'p-new' });
    // Without a body id, the path names the project (test/appserver/path-id.test.ts covers a different id).
    const again = await t.app.inject({ method: 'PUT', url: '/projects/p-new', payload: { projectId: 'p-newer' } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: created.id, projectId: 'p-newer' });
    expect((await t.app.inject({ method: 'PUT', url: '/projects/p-newer', payload: { id: created.id } })).statusCode).toBe(417);
    expect((await t.app.inject({ method: 'PUT', url: '/projects/nope', payload: { projectId: 'x' } })).statusCode).toBe(404);
  });

  it('answers malformed JSON with 400 and the error body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/projects', headers: { 'content-type': 'application/json' }, payload: '{"projectId":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, path: 'uri=/projects', message: expect.stringContaining('Malformed JSON') });
  });

  it('accepts an empty JSON body on GET and DELETE (the app sends Content-Type: application/json)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/projects', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('JSON content types', () => {
  it('accepts application/json with a charset parameter (Java clients send one)', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/projects', headers: { 'content-type': 'application/json; charset=UTF-8' },
      payload: JSON.stringify({ projectId: 'p-charset' }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().projectId).toBe('p-charset');
  });

  it('refuses a body that is not JSON with 415 and the error body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/projects', headers: { 'content-type': 'application/xml' }, payload: '<project/>' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ status: 415, path: 'uri=/projects' });
  });
});
