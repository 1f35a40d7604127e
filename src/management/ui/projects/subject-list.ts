/**
 * The subjects tab's query string: the filters of its `role="search"` GET form, its sort and the
 * keyset cursor of "Load more", read into the API's list query (`SubjectListQueryT`) and written
 * back into the links of the page (so the filters stay in the URL). Pure.
 */
import { Type, type Static } from 'typebox';
import { BadRequest } from '../../errors.js';
import { parseLocalDate, type CursorRow } from '../../api/subjects/criteria.js';
import type { SubjectListQueryT } from '../../api/subjects/schemas.js';

/** Subjects a page shows and "Load more" adds. */
export const PAGE_SIZE = 20;

/** The sorts offered, as the API's `sort` values (`id,asc` is the API's default). */
export const SORTS = ['id,asc', 'id,desc', 'login,asc', 'login,desc', 'externalId,asc', 'externalId,desc'] as const;
export type UiSort = (typeof SORTS)[number];

const field = (maxLength = 255) => Type.Optional(Type.String({ maxLength }));

/** What the page's URL may carry; every value a string as the form sends it, checked in `listQueryOf`. */
export const SubjectsPageQuery = Type.Object({
  externalId: field(),
  login: field(),
  personName: field(),
  dateOfBirth: field(10),
  enrolledFrom: field(10),
  enrolledTo: field(10),
  groupId: field(12),
  sort: field(20),
  'last.id': field(12),
  'last.login': field(),
  'last.externalId': field(),
  /** Rows shown before this page ("N of M" counts on). */
  shown: field(12),
  /** Notices after a change (a subject's login). */
  created: field(), updated: field(), discontinued: field(), deleted: field(),
  /** Notice after the project itself was created or saved (its name is the page's). */
  project: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('updated')])),
});
export type SubjectsPageQueryT = Static<typeof SubjectsPageQuery>;

/** The filters and sort as the form shows them (empty strings when not set). */
export interface SubjectFilters {
  externalId: string;
  login: string;
  personName: string;
  dateOfBirth: string;
  enrolledFrom: string;
  enrolledTo: string;
  groupId: string;
  sort: UiSort;
}

const invalid = (what: string) => new BadRequest(`Invalid ${what}`, 'subject', 'error.validation');

const trimmed = (value: string | undefined) => (value ?? '').trim();

function day(value: string, what: string): string {
  if (value === '') return '';
  if (!parseLocalDate(value)) throw invalid(what);
  return value;
}

function count(value: string | undefined, what: string): number | undefined {
  const v = trimmed(value);
  if (v === '') return undefined;
  if (!/^\d{1,10}$/.test(v) || Number(v) > 2_147_483_647) throw invalid(what);
  return Number(v);
}

/** The filters of a page URL; 400 for a date that is no day, an unknown sort or a bad group id. */
export function filtersOf(query: SubjectsPageQueryT): SubjectFilters {
  const sort = trimmed(query.sort) || 'id,asc';
  if (!(SORTS as readonly string[]).includes(sort)) throw invalid('sort');
  const groupId = count(query.groupId, 'group');
  return {
    externalId: trimmed(query.externalId),
    login: trimmed(query.login),
    personName: trimmed(query.personName),
    dateOfBirth: day(trimmed(query.dateOfBirth), 'date of birth'),
    enrolledFrom: day(trimmed(query.enrolledFrom), 'enrolment date'),
    enrolledTo: day(trimmed(query.enrolledTo), 'enrolment date'),
    groupId: groupId === undefined ? '' : String(groupId),
    sort: sort as UiSort,
  };
}

/** The API's list query for one page of `filters` after the cursor of the URL. */
export function listQueryOf(filters: SubjectFilters, query: SubjectsPageQueryT): SubjectListQueryT {
  const list: SubjectListQueryT = { size: PAGE_SIZE, sort: [filters.sort] };
  if (filters.externalId) list.externalId = filters.externalId;
  if (filters.login) list.login = filters.login;
  if (filters.personName) list.personName = filters.personName;
  if (filters.dateOfBirth) list['dateOfBirth.is'] = filters.dateOfBirth;
  // Whole days in UTC, as the page shows dates.
  if (filters.enrolledFrom) list['enrollmentDate.from'] = `${filters.enrolledFrom}T00:00:00Z`;
  if (filters.enrolledTo) list['enrollmentDate.to'] = `${filters.enrolledTo}T23:59:59.999Z`;
  if (filters.groupId) list.groupId = Number(filters.groupId);
  const lastId = count(query['last.id'], 'cursor');
  if (lastId !== undefined) list['last.id'] = lastId;
  if (query['last.login'] !== undefined) list['last.login'] = query['last.login'];
  if (query['last.externalId'] !== undefined) list['last.externalId'] = query['last.externalId'];
  return list;
}

/** Rows shown before this page. */
export const shownBefore = (query: SubjectsPageQueryT): number => count(query.shown, 'cursor') ?? 0;

/** The query string of `filters` (only what is set; the default sort left out). */
export function filterParams(filters: SubjectFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== '' && !(name === 'sort' && value === 'id,asc')) params.append(name, value);
  }
  return params;
}

/** The URL of the next page: the same filters, the cursor of the page's last row and the rows shown so far. */
export function nextPageUrl(path: string, filters: SubjectFilters, last: CursorRow, shown: number): string {
  const params = filterParams(filters);
  params.append('last.id', String(last.id));
  params.append('last.login', last.login);
  if (last.externalId) params.append('last.externalId', last.externalId);
  params.append('shown', String(shown));
  return `${path}?${params.toString()}`;
}
