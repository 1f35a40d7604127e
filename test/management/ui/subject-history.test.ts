/** The subject page's history, compared field by field without Fastify (subject-page.ts). */
import { describe, expect, it } from 'vitest';
import { changesBetween, fieldLabel, historyOf } from '../../../src/management/ui/projects/subject-page.js';
import { translator } from '../../../src/management/i18n/translator.js';

const subject = (over: Record<string, unknown> = {}) => ({
  id: 7, login: 'sub-1', externalId: 'E-1', externalLink: null, personName: null, dateOfBirth: null, enrollmentDate: '2026-01-01T00:00:00Z',
  status: 'ACTIVATED', group: null, project: { id: 1, projectName: 'radar' }, sources: [], attributes: {},
  createdBy: 'admin', createdDate: '2026-01-01T00:00:00Z', lastModifiedBy: 'admin', lastModifiedDate: '2026-01-01T00:00:00Z', roles: [{ id: 1 }],
  ...over,
});

describe('subject history', () => {
  it('lists what changed, old → new, leaving out bookkeeping (modified, roles)', () => {
    const before = subject();
    const after = subject({ externalId: 'E-2', lastModifiedDate: '2026-02-01T00:00:00Z', roles: [{ id: 2 }], attributes: { site: 'Leiden' } });
    expect(changesBetween(before, after)).toEqual([
      { field: 'externalId', old: 'E-1', new: 'E-2' },
      { field: 'attributes.site', old: '', new: 'Leiden' },
    ]);
  });

  it('compares the project by name and the sources by name', () => {
    const before = subject({ sources: [{ sourceName: 'b' }] });
    const after = subject({ project: { id: 2, projectName: 'other' }, sources: [{ sourceName: 'b' }, { sourceName: 'a' }] });
    expect(changesBetween(before, after)).toEqual([
      { field: 'project', old: 'radar', new: 'other' },
      { field: 'sources', old: 'b', new: 'a, b' },
    ]);
  });

  it('compares each revision with the one before it; the extra oldest one only as a base', () => {
    const r = (id: number, revisionType: string, entity: unknown) => ({ id, timestamp: `2026-01-0${id}T00:00:00.000Z`, author: 'admin', revisionType, entity });
    const revisions = [
      r(3, 'MOD', subject({ externalId: 'E-3' })),
      r(2, 'MOD', subject({ externalId: 'E-2' })),
      r(1, 'ADD', subject()),
    ];
    expect(historyOf(revisions, true).map((e) => [e.id, e.changes])).toEqual([
      [3, [{ field: 'externalId', old: 'E-2', new: 'E-3' }]],
      [2, [{ field: 'externalId', old: 'E-1', new: 'E-2' }]],
    ]);
    const all = historyOf(revisions, false);
    expect(all).toHaveLength(3);
    expect(all[2]!.changes).toContainEqual({ field: 'login', old: '', new: 'sub-1' });
    expect(historyOf([r(4, 'DEL', subject())], false)[0]!.changes).toEqual([]);
  });

  it('labels fields in the page language', () => {
    expect(fieldLabel(translator('en'), 'externalId')).toBe('External ID');
    expect(fieldLabel(translator('nl'), 'attributes.site')).toBe('Kenmerk site');
  });
});
