import { beforeAll, describe, expect, it } from 'vitest';
import { appWithGithubStub } from '../../helpers/github-app.js';
import { aProject, aSubject, call, errorBody, expectStatus } from '../../fixtures/appserver.js';
import { aProtocolText } from '../../fixtures/protocols.js';

const ctx = appWithGithubStub();
let files: Record<string, string>;

/** Projects with protocols: radar (plain and per site), other (one attribute pair and two). */
async function withRepository(p: { radar: string; other: string; empty: string }) {
  files = {
    [`${p.radar}/protocol.json`]: aProtocolText('radar'),
    [`${p.radar}/site/london/protocol.json`]: aProtocolText('radar-london'),
    [`${p.radar}/site/london/arm/b/protocol.json`]: aProtocolText('radar-london-b'),
    [`${p.radar}/questionnaires/phq8.json`]: '{"not":"a protocol"}',
    [`${p.other}/arm/a/protocol.json`]: aProtocolText('other-a'),
    [`${p.radar}-suffix/protocol.json`]: aProtocolText('substring trap'),
    'README.md': '# protocols',
  };
  ctx.github.setFiles(files);
}

describe('protocols (R1–R3)', () => {
  let radar: string;
  let other: string;
  let empty: string;
  beforeAll(async () => {
    radar = await aProject(ctx.t.app);
    other = await aProject(ctx.t.app);
    empty = await aProject(ctx.t.app);
    await withRepository({ radar, other, empty });
  });

  it('R3 returns exactly {p}/protocol.json, as stored', async () => {
    const res = await call(ctx.t.app, 'GET', `/projects/${radar}/protocols`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe(files[`${radar}/protocol.json`]);
    // The unknown assessment type and fields reach the app unchanged.
    expect(res.json().protocols[1]).toEqual({ name: 'ESM', type: 'on_demand', customField: { kept: true } });
  });

  it('R3: unknown project or a project without protocol → 404; that breaks no other project', async () => {
    expect(expectStatus(await call(ctx.t.app, 'GET', `/projects/${empty}/protocols`), 404))
      .toEqual(errorBody(404, `No protocol found for project ${empty}`, `/projects/${empty}/protocols`));
    expect(expectStatus(await call(ctx.t.app, 'GET', '/projects/no-such-project/protocols'), 404))
      .toEqual(errorBody(404, 'Project Id does not exist. Please create a project with the ID first', '/projects/no-such-project/protocols'));
    // `other` has only attribute paths: no project protocol (not the reference's substring match).
    expect((await call(ctx.t.app, 'GET', `/projects/${other}/protocols`)).statusCode).toBe(404);
    expect((await call(ctx.t.app, 'GET', `/projects/${radar}/protocols`)).statusCode).toBe(200);
  });

  it('R2 picks the path with the most pairs all equal to the user\'s attributes, else the project\'s', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'radar'],
      [{ site: 'paris' }, 'radar'],
      [{ site: 'london' }, 'radar-london'],
      [{ site: 'london', arm: 'a' }, 'radar-london'],
      [{ arm: 'b', site: 'london', extra: 'x' }, 'radar-london-b'],
    ];
    for (const [attributes, name] of cases) {
      const s = await aSubject(ctx.t.app, { projectId: radar, body: { attributes } });
      const res = await call(ctx.t.app, 'GET', `/projects/${radar}/users/${s.subjectId}/protocols`);
      expect(res.statusCode, JSON.stringify(attributes)).toBe(200);
      expect(res.json().name, JSON.stringify(attributes)).toBe(name);
    }
    const s = await aSubject(ctx.t.app, { projectId: radar, body: { attributes: { site: 'london', arm: 'b' } } });
    expect((await call(ctx.t.app, 'GET', `/projects/${radar}/users/${s.subjectId}/protocols`)).body).toBe(files[`${radar}/site/london/arm/b/protocol.json`]);
  });

  it('R2: a user matching nothing, an unknown user or project → 404 with the error body', async () => {
    const s = await aSubject(ctx.t.app, { projectId: other, body: { attributes: { arm: 'z' } } });
    expect(expectStatus(await call(ctx.t.app, 'GET', `/projects/${other}/users/${s.subjectId}/protocols`), 404))
      .toEqual(errorBody(404, `No protocol found for subject ${s.subjectId} in project ${other}`, `/projects/${other}/users/${s.subjectId}/protocols`));
    const a = await aSubject(ctx.t.app, { projectId: other, body: { attributes: { arm: 'a' } } });
    expect((await call(ctx.t.app, 'GET', `/projects/${other}/users/${a.subjectId}/protocols`)).json().name).toBe('other-a');
    // By (project, subject): the same subject looked up under another project is not found.
    expect(expectStatus(await call(ctx.t.app, 'GET', `/projects/${radar}/users/${a.subjectId}/protocols`), 404).message)
      .toBe('The supplied Subject ID is invalid. No user found. Please Create a User First.');
    expect((await call(ctx.t.app, 'GET', `/projects/nope/users/${a.subjectId}/protocols`)).statusCode).toBe(404);
  });

  it('R1 keeps {subjectId: protocol} for the users that have one', async () => {
    const a = await aSubject(ctx.t.app, { projectId: radar, body: { attributes: { site: 'london' } } });
    const none = await aSubject(ctx.t.app, { projectId: other, body: { attributes: {} } });
    const res = await call(ctx.t.app, 'GET', '/protocols');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body[a.subjectId].name).toBe('radar-london');
    expect(body).not.toHaveProperty(none.subjectId);
    expect(res.body).toContain(`${JSON.stringify(a.subjectId)}:${files[`${radar}/site/london/protocol.json`]}`);
  });
});
