import { describe, expect, it } from 'vitest';
import { chooseProtocol, parseProtocolPath, type ProtocolPath } from '../../../src/appserver/protocols/match.js';

const paths = (...list: string[]) => list.map((p) => parseProtocolPath(p, 'protocol.json')).filter((p): p is ProtocolPath => p !== undefined);

describe('protocol paths', () => {
  it('parses {project}[/k/v…]/{file} and refuses other shapes', () => {
    expect(parseProtocolPath('radar/protocol.json', 'protocol.json')).toEqual({ path: 'radar/protocol.json', projectId: 'radar', pairs: [] });
    expect(parseProtocolPath('radar/site/a/arm/b/protocol.json', 'protocol.json')!.pairs).toEqual([['site', 'a'], ['arm', 'b']]);
    for (const bad of ['protocol.json', 'radar/site/protocol.json', 'radar//protocol.json', 'radar/other.json', 'radar/x/protocol.json/protocol.json2']) {
      expect(parseProtocolPath(bad, 'protocol.json'), bad).toBeUndefined();
    }
  });

  it('chooses the matching path with the most pairs, only within the project', () => {
    const all = paths('radar/protocol.json', 'radar/site/a/protocol.json', 'radar/site/a/arm/b/protocol.json', 'radar/arm/b/protocol.json', 'radar2/protocol.json', 'other/site/a/protocol.json');
    const pick = (project: string, attributes: Record<string, string>) => chooseProtocol(all, project, attributes)?.path;
    expect(pick('radar', {})).toBe('radar/protocol.json');
    expect(pick('radar', { site: 'b' })).toBe('radar/protocol.json');
    expect(pick('radar', { site: 'a' })).toBe('radar/site/a/protocol.json');
    expect(pick('radar', { arm: 'b', site: 'a' })).toBe('radar/site/a/arm/b/protocol.json');
    // A tie between one-pair paths: the first in code-point order.
    expect(pick('radar', { arm: 'b', site: 'x' })).toBe('radar/arm/b/protocol.json');
    expect(pick('rad', {})).toBeUndefined();
    expect(pick('other', {})).toBeUndefined();
    expect(pick('other', { site: 'a' })).toBe('other/site/a/protocol.json');
    // Attribute names are compared as own keys only.
    expect(pick('other', { toString: 'a' } as Record<string, string>)).toBeUndefined();
  });

  it('breaks ties the same way whatever the listing order', () => {
    const a = paths('p/x/1/protocol.json', 'p/y/2/protocol.json');
    expect(chooseProtocol(a, 'p', { x: '1', y: '2' })?.path).toBe('p/x/1/protocol.json');
    expect(chooseProtocol(a.reverse(), 'p', { x: '1', y: '2' })?.path).toBe('p/x/1/protocol.json');
  });
});
