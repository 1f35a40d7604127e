/**
 * The protocol copies: discovery through the stub, changed-file events, a broken file affecting
 * only itself, GitHub outages with and without stored copies.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { appWithGithubStub } from '../../helpers/github-app.js';
import { until } from '../../helpers/eventually.js';
import { unique } from '../../fixtures/appserver.js';
import { aProtocolText } from '../../fixtures/protocols.js';
import { createGithubClient } from '../../../src/appserver/github/client.js';
import { appserverEvents, type ProtocolChange } from '../../../src/appserver/events.js';
import { createProtocolService, ProtocolsUnavailable } from '../../../src/appserver/protocols/service.js';

const ctx = appWithGithubStub();
const log = pino({ level: 'silent' });

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A repository of its own (so tests share nothing), a service reading it, and the events it published. */
function aRepository(files: Record<string, string>, clock = { now: Date.parse('2030-01-01T00:00:00Z') }) {
  const repo = `RADAR-base/${unique('protocols')}`;
  ctx.github.setFiles(files, { repo });
  const changes: ProtocolChange[] = [];
  const events = appserverEvents(ctx.t.app.events);
  const unsubscribe = events.subscribe('protocol.changed', (change) => { changes.push(change); });
  const service = () => createProtocolService({
    db: ctx.t.app.db.db, github: createGithubClient({ apiUrl: ctx.github.url, timeoutMs: 1000, maxContentLength: 1_000_000 }),
    events, log, source: { repo, branch: 'master', fileName: 'protocol.json' }, durationMs: HOUR, retryMs: MINUTE, now: () => clock.now,
  });
  const requestsFor = (part: string) => ctx.github.requests.filter((r) => r.path.startsWith(`/repos/${repo}/`) && r.path.includes(part)).length;
  return { repo, clock, changes, service, unsubscribe, requestsFor, set: (next: Record<string, string>) => ctx.github.setFiles(next, { repo }) };
}

describe('protocol service', () => {
  it('finds {project}[/k/v…]/protocol.json blobs on the branch, ignores other files, keeps texts as stored', async () => {
    const files = {
      'radar/protocol.json': aProtocolText('radar'),
      'radar/site/a/protocol.json': aProtocolText('radar-a'),
      'radar/questionnaires/x.json': '{}',
      'protocol.json': aProtocolText('root'),
      'radar/site/protocol.json': aProtocolText('odd'),
    };
    const r = aRepository(files);
    const protocols = r.service();
    const found = await protocols.forUser('radar', 'sub-1', { site: 'a' });
    expect(found).toMatchObject({ path: 'radar/site/a/protocol.json', projectId: 'radar', sha: ctx.github.blobSha(files['radar/site/a/protocol.json']), text: files['radar/site/a/protocol.json'] });
    expect((found!.protocol as { name: string }).name).toBe('radar-a');
    expect((await protocols.forProject('radar'))!.text).toBe(files['radar/protocol.json']);
    expect(await protocols.forUser('radar', 'sub-2', { site: 'b' })).toMatchObject({ path: 'radar/protocol.json' });
    expect(await protocols.forProject('other')).toBeUndefined();
    // One branch, one tree and the two protocol blobs.
    expect([r.requestsFor('/branches/'), r.requestsFor('/git/trees/'), r.requestsFor('/git/blobs/')]).toEqual([1, 1, 2]);
    await until(() => expect(r.changes).toEqual([{ paths: ['radar/protocol.json', 'radar/site/a/protocol.json'], projectIds: ['radar'] }]));
    await protocols.close();
    r.unsubscribe();
  });

  it('refreshes after the cache duration, downloads only changed files and announces them once', async () => {
    const r = aRepository({ 'a/protocol.json': aProtocolText('a1'), 'b/protocol.json': aProtocolText('b1'), 'c/protocol.json': aProtocolText('c1') });
    const protocols = r.service();
    await protocols.forProject('a');
    await until(() => expect(r.changes).toHaveLength(1));
    r.set({ 'a/protocol.json': aProtocolText('a2'), 'b/protocol.json': aProtocolText('b1'), 'd/protocol.json': aProtocolText('d1') });
    r.clock.now += HOUR - 1;
    expect(((await protocols.forProject('a'))!.protocol as { name: string }).name).toBe('a1');
    expect(r.requestsFor('/branches/')).toBe(1);

    r.clock.now += 1;
    // The stale copy answers at once; the refresh runs in the background.
    expect(((await protocols.forProject('a'))!.protocol as { name: string }).name).toBe('a1');
    await until(async () => expect(((await protocols.forProject('a'))!.protocol as { name: string }).name).toBe('a2'));
    expect(await protocols.forProject('c')).toBeUndefined();
    expect((await protocols.forProject('d'))!.text).toBe(aProtocolText('d1'));
    expect(r.requestsFor('/git/blobs/')).toBe(3 + 2);
    await until(() => expect(r.changes).toHaveLength(2));
    expect(r.changes[1]).toEqual({ paths: expect.arrayContaining(['a/protocol.json', 'd/protocol.json', 'c/protocol.json']), projectIds: expect.arrayContaining(['a', 'c', 'd']) });
    expect(r.changes[1]!.paths).toHaveLength(3);

    // A second instance on the same database finds nothing new to announce.
    const second = r.service();
    await second.refresh();
    expect(r.changes).toHaveLength(2);
    await Promise.all([protocols.close(), second.close()]);
    r.unsubscribe();
  });

  it('asks only for the branch while it points to the tree last stored in full; a failed file is tried again', async () => {
    const r = aRepository({ 'a/protocol.json': aProtocolText('a1'), 'b/protocol.json': aProtocolText('b1') });
    const protocols = r.service();
    await protocols.refresh();
    expect(await protocols.refresh()).toEqual([]);
    expect([r.requestsFor('/branches/'), r.requestsFor('/git/trees/'), r.requestsFor('/git/blobs/')]).toEqual([2, 1, 2]);

    r.set({ 'a/protocol.json': aProtocolText('a2'), 'b/protocol.json': aProtocolText('b2') });
    ctx.github.fault = (path) => (path.includes(`/git/blobs/${ctx.github.blobSha(aProtocolText('b2'))}`) ? 'reset' : undefined);
    expect(await protocols.refresh()).toEqual(['a/protocol.json']);
    ctx.github.fault = () => undefined;
    expect(await protocols.refresh()).toEqual(['b/protocol.json']);
    expect(await protocols.refresh()).toEqual([]);
    // Branch each time; the tree twice more (the second time because b failed); a2, b2 (failed), b2.
    expect([r.requestsFor('/branches/'), r.requestsFor('/git/trees/'), r.requestsFor('/git/blobs/')]).toEqual([5, 3, 5]);
    await protocols.close();
    r.unsubscribe();
  });

  it('a broken file keeps its last good copy (or is absent) and affects no other file', async () => {
    const r = aRepository({ 'a/protocol.json': aProtocolText('a1'), 'b/protocol.json': aProtocolText('b1') });
    const protocols = r.service();
    await protocols.refresh();
    r.set({ 'a/protocol.json': '{"name": "a2", broken', 'b/protocol.json': aProtocolText('b2'), 'c/protocol.json': '[1, 2]', 'e/protocol.json': aProtocolText('e1') });
    ctx.github.fault = (path) => (path.includes(`/git/blobs/${ctx.github.blobSha(aProtocolText('e1'))}`) ? { status: 500 } : undefined);
    expect(await protocols.refresh()).toEqual(['b/protocol.json']);
    expect(((await protocols.forProject('a'))!.protocol as { name: string }).name).toBe('a1');
    expect(((await protocols.forProject('b'))!.protocol as { name: string }).name).toBe('b2');
    expect(await protocols.forProject('c')).toBeUndefined();
    expect(await protocols.forProject('e')).toBeUndefined();
    // Once the file is fixed, the next refresh takes it.
    ctx.github.fault = () => undefined;
    expect(await protocols.refresh()).toEqual(['e/protocol.json']);
    await protocols.close();
    r.unsubscribe();
  });

  it('with GitHub down: stored copies are served (a new instance too); with none, ProtocolsUnavailable and one attempt per retry duration', async () => {
    const r = aRepository({ 'a/protocol.json': aProtocolText('a1') });
    const first = r.service();
    await first.refresh();
    await first.close();

    ctx.github.fault = (path) => (path.includes(r.repo) ? 'reset' : undefined);
    r.clock.now += 10 * HOUR;
    const restarted = r.service();
    expect(((await restarted.forUser('a', 's', {}))!.protocol as { name: string }).name).toBe('a1');
    await until(() => expect(r.requestsFor('/branches/')).toBe(2));
    await restarted.close();

    const empty = aRepository({ 'z/protocol.json': aProtocolText('z') }, r.clock);
    ctx.github.fault = (path) => (path.includes(empty.repo) ? { status: 502 } : undefined);
    const none = empty.service();
    await expect(none.forProject('z')).rejects.toBeInstanceOf(ProtocolsUnavailable);
    await expect(none.forUser('z', 's', {})).rejects.toBeInstanceOf(ProtocolsUnavailable);
    expect(empty.requestsFor('/branches/')).toBe(1);
    ctx.github.fault = () => undefined;
    r.clock.now += MINUTE;
    expect((await none.forProject('z'))!.text).toBe(aProtocolText('z'));
    await none.close();
    r.unsubscribe();
    empty.unsubscribe();
  });
});
