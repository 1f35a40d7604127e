/**
 * The pure core of the subject lists (src/management/api/subjects/criteria.ts): the reference's sort
 * parsing, `LocalDate` and `ZonedDateTime` as Spring binds them (the subject page sends
 * `2024-01-01T00:00[Europe/Amsterdam]`), the cursor's rules and the next link.
 */
import { describe, expect, it } from 'vitest';
import { nextLink, parseLocalDate, parseSort, parseZonedDateTime, subjectCriteria } from '../../../../src/management/api/subjects/criteria.js';
import { BadRequest } from '../../../../src/management/errors.js';

describe('parseSort (SubjectCriteria.parseSort)', () => {
  it('appends id unless a unique key is given, cuts after the first unique key, drops repeats', () => {
    expect(parseSort(undefined)).toEqual([{ key: 'id', direction: 'asc' }]);
    expect(parseSort(['externalId,desc'])).toEqual([{ key: 'externalId', direction: 'desc' }, { key: 'id', direction: 'asc' }]);
    expect(parseSort(['externalId', 'externalId,desc', 'login,desc', 'id'])).toEqual([{ key: 'externalId', direction: 'asc' }, { key: 'login', direction: 'desc' }]);
    expect(parseSort(['id,desc,login'])).toEqual([{ key: 'id', direction: 'desc' }]);
    expect(parseSort(['LOGIN,DESC'])).toEqual([{ key: 'login', direction: 'desc' }]);
  });

  it('an unknown property (or a lone direction) is a 400', () => {
    for (const sort of [['personName'], ['asc'], ['id,sideways']]) {
      expect(() => parseSort(sort)).toThrow(BadRequest);
    }
  });
});

describe('dates', () => {
  it('LocalDate: real calendar days only', () => {
    expect(parseLocalDate('2024-02-29')).toBe('2024-02-29');
    expect(parseLocalDate('2023-02-29')).toBeUndefined();
    expect(parseLocalDate('2024-2-1')).toBeUndefined();
  });

  it('ZonedDateTime: offsets, zone ids (with daylight saving), or UTC', () => {
    expect(parseZonedDateTime('2025-01-01T12:00:00Z')?.toISOString()).toBe('2025-01-01T12:00:00.000Z');
    expect(parseZonedDateTime('2025-01-01T12:00:00.5+02:00')?.toISOString()).toBe('2025-01-01T10:00:00.500Z');
    expect(parseZonedDateTime('2025-01-01T12:00-0530')?.toISOString()).toBe('2025-01-01T17:30:00.000Z');
    expect(parseZonedDateTime('2024-01-15T00:00[Europe/Amsterdam]')?.toISOString()).toBe('2024-01-14T23:00:00.000Z');
    expect(parseZonedDateTime('2024-07-15T23:59[Europe/Amsterdam]')?.toISOString()).toBe('2024-07-15T21:59:00.000Z');
    expect(parseZonedDateTime('2024-07-15T12:00+02:00[Europe/Amsterdam]')?.toISOString()).toBe('2024-07-15T10:00:00.000Z');
    expect(parseZonedDateTime('2024-07-15T12:00')?.toISOString()).toBe('2024-07-15T12:00:00.000Z');
    for (const bad of ['2024-07-15', '2024-07-15T25:00Z', '2024-07-15T12:00[Nowhere/Land]', 'now']) expect(parseZonedDateTime(bad)).toBeUndefined();
  });
});

describe('criteria and the next link', () => {
  it('defaults: participants, page 0, size 20, sort by id; blank and "null" filters are no filters', () => {
    expect(subjectCriteria({ externalId: 'null', login: ' ' })).toEqual({ authorities: ['ROLE_PARTICIPANT'], page: 0, size: 20, sort: [{ key: 'id', direction: 'asc' }] });
  });

  it('a cursor needs the value of each unique sort key; an empty last.externalId means none', () => {
    expect(() => subjectCriteria({ sort: ['login'], 'last.id': 3 })).toThrow('No last value given for sort property login');
    expect(subjectCriteria({ sort: ['externalId'], 'last.id': 3, 'last.externalId': '' }).last).toEqual({ id: 3, externalId: null });
  });

  it('the link repeats the criteria in the reference\'s order and adds the last row', () => {
    const query = { 'enrollmentDate.from': '2024-01-01T00:00[Europe/Amsterdam]', login: 'sub', authority: ['ROLE_PARTICIPANT'], sort: ['externalId,desc'], size: 5 };
    const link = nextLink('/managementportal/api/projects/radar/subjects', query, subjectCriteria(query, { projectName: 'radar' }), { id: 7, login: 'sub-7', externalId: null });
    expect(link).toBe('</managementportal/api/projects/radar/subjects?enrollmentDate.from=2024-01-01T00%3A00%5BEurope%2FAmsterdam%5D&login=sub'
      + '&authority=ROLE_PARTICIPANT&size=5&page=0&sort=externalId%2Cdesc&sort=id%2Casc&last.id=7&last.login=sub-7>; rel="next"');
  });
});
